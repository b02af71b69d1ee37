import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ancestorsOfAll, type Conversation } from '../../../src/index.js'
import {
  type HtmlDocumentData,
  type HtmlGraph,
  renderHtml,
  renderMermaid,
  renderText,
} from '../../../src/core.js'
import { allVertices, conversation } from './conversations.js'

/** The first 8 characters of an id, which every rendering shows. */
const short = (v: Conversation): string => v.id.slice(0, 8)

const edgeCount = (start: readonly Conversation[]): number =>
  allVertices(start).reduce((n, v) => n + v.parents.length, 0)

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/

const MERMAID_LINE = [
  /^flowchart TD$/,
  /^\s*n[\d_]+\["[^"]*"\]$/,
  /^\s*subgraph n[\d_]+\["[^"]*"\]$/,
  /^\s*direction TB$/,
  /^\s*end$/,
  /^\s*n[\d_]+ --> n[\d_]+$/,
  /^\s*classDef (k_[a-z]+|head) [^\s]+$/,
  /^\s*class n[\d_]+(,n[\d_]+)* (k_[a-z]+|head)$/,
]

const idsOf = (g: HtmlGraph): string[] =>
  g.vertices.flatMap((v) => [v.id, ...(v.sub === undefined ? [] : idsOf(v.sub))])

describe('the renderings of arbitrary conversations', () => {
  it('text never throws, shows every vertex id and prints no control character', () => {
    fc.assert(
      fc.property(conversation, (start) => {
        const text = renderText(start)
        for (const v of allVertices(start)) expect(text).toContain(short(v))
        expect(text).not.toMatch(UNSAFE)
        expect(renderText(start, { maxWidth: 3, maxLines: 1, subConversations: 'summary' })).toBe(
          renderText(start, { maxWidth: 3, maxLines: 1, subConversations: 'summary' }),
        )
      }),
    )
  })

  it('Mermaid never throws, shows every vertex id and content never breaks a statement', () => {
    fc.assert(
      fc.property(conversation, (start) => {
        const chart = renderMermaid(start)
        const all = allVertices(start)
        for (const v of all) expect(chart).toContain(short(v))
        const lines = chart.trimEnd().split('\n')
        for (const line of lines) expect(MERMAID_LINE.some((p) => p.test(line))).toBe(true)
        const declared = lines.filter((l) => /^\s*(subgraph )?n[\d_]+\["/.test(l))
        expect(declared).toHaveLength(all.length)
        expect(lines.filter((l) => l.includes(' --> '))).toHaveLength(edgeCount(start))
      }),
    )
  })

  it('HTML never throws and its JSON gives back every vertex id and entry', () => {
    fc.assert(
      fc.property(conversation, (start) => {
        const html = renderHtml(start)
        expect(html.match(/<script/gi)).toHaveLength(2)
        expect(html.match(/<\/script/gi)).toHaveLength(2)
        const json = /<script type="application\/json" id="nerve-data">([^<]*)<\/script>/.exec(html)
        const data = JSON.parse(json![1]!) as HtmlDocumentData
        expect(idsOf(data.graph)).toEqual(allVertices(start).map((v) => v.id))
        const top = ancestorsOfAll(start)
        for (const [i, v] of data.graph.vertices.entries()) {
          if (v.kind !== 'subgraph') expect(v.data).toEqual(top[i]!.data)
        }
      }),
    )
  })
})
