import { Script } from 'node:vm'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { ancestors, assistant, empty, subConversation, user } from '../../../src/index.js'
import { type HtmlDocumentData, type HtmlGraph, renderHtml } from '../../../src/core.js'
import { weather } from './conversations.js'

const HOSTILE = '</script><script>alert(1)</script> <!-- <SCRIPT>x</Script> \u2028'

/** The text of the embedded JSON script, as a browser would read it. */
const embedded = (html: string): HtmlDocumentData => {
  const m = /<script type="application\/json" id="nerve-data">([^<]*)<\/script>/.exec(html)
  if (m === null) throw new Error('no embedded data')
  return JSON.parse(m[1]!) as HtmlDocumentData
}

const viewerScript = (html: string): string => {
  const m = /<script>\n([\s\S]*?)\n<\/script>/.exec(html)
  if (m === null) throw new Error('no viewer script')
  return m[1]!
}

const idsOf = (g: HtmlGraph): string[] =>
  g.vertices.flatMap((v) => [v.id, ...(v.sub === undefined ? [] : idsOf(v.sub))])

describe('renderHtml', () => {
  it('writes one self-contained document: no link, no external source, no URL', () => {
    const html = renderHtml(weather())
    expect(html.startsWith('<!doctype html>\n')).toBe(true)
    expect(html).not.toMatch(/<link/i)
    expect(html).not.toMatch(/\b(src|href)\s*=/i)
    expect(html).not.toMatch(/https?:/i)
    expect(html).toContain("default-src 'none'")
    expect(html.match(/<script/g)).toHaveLength(2)
    expect(html.match(/<style>/g)).toHaveLength(1)
  })

  it('embeds every vertex with its entry, metadata, parents and children as JSON', () => {
    const c = weather()
    const data = embedded(renderHtml(c))
    expect(data.format).toBe('nerve-conversation')
    const history = ancestors(c)
    expect(data.graph.vertices.map((v) => v.id)).toEqual(history.map((v) => v.id))
    expect(data.graph.vertices.map((v) => v.data)).toEqual(history.map((v) => v.data))
    expect(data.graph.vertices.map((v) => v.kind)).toEqual([
      'system',
      'user',
      'assistant',
      'exec',
      'exec',
      'exec',
      'user',
      'assistant',
    ])
    expect(data.graph.vertices[6]!.parents).toEqual([3, 4, 5])
    expect(data.graph.vertices[2]!.children).toEqual([3, 4, 5])
    expect(data.graph.heads).toEqual([7])
  })

  it('keeps hostile content inert and gives it back unchanged from the JSON', () => {
    const c = pipe(empty, user(HOSTILE, { meta: { note: HOSTILE } }), assistant('ok'))
    const html = renderHtml(c, { title: HOSTILE })
    expect(html.match(/<script/gi)).toHaveLength(2)
    expect(html.match(/<\/script/gi)).toHaveLength(2)
    expect(html).not.toContain('<!--')
    expect(html).not.toContain('alert(1)</script>')
    expect(html).toContain('<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;')
    const data = embedded(html)
    expect(data.title).toBe(HOSTILE)
    expect(data.graph.vertices[0]!.data).toEqual({
      type: 'message',
      role: 'user',
      content: HOSTILE,
    })
    expect(data.graph.vertices[0]!.meta).toEqual({ note: HOSTILE })
  })

  it('places parallel branches side by side on one row and the merge below them', () => {
    const g = embedded(renderHtml(weather())).graph
    const place = g.vertices.map((v) => [v.row, v.column])
    expect(place).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 0],
      [3, 1],
      [3, 2],
      [4, 0],
      [5, 0],
    ])
  })

  it('nests a sub-conversation graph that the viewer can open', () => {
    const inner = pipe(empty, user('find'), assistant('found'))
    const c = pipe(
      empty,
      subConversation({
        tool_name: 'research',
        tool_use_id: 't1',
        system_prompt: '',
        heads: [inner],
        summary: 'ok',
      }),
    )
    const v = embedded(renderHtml(c)).graph.vertices[0]!
    expect(v.kind).toBe('subgraph')
    expect(v.data).toMatchObject({ type: 'sub_conversation', heads: [inner.id], summary: 'ok' })
    expect(v.sub?.vertices.map((u) => u.id)).toEqual(ancestors(inner).map((u) => u.id))
    expect(idsOf(embedded(renderHtml(c)).graph)).toHaveLength(3)
  })

  it('uses the title option, with a default', () => {
    expect(renderHtml(weather(), { title: 'Weather & co' })).toContain(
      '<title>Weather &amp; co</title>',
    )
    expect(renderHtml(weather())).toContain('<title>Nerve conversation</title>')
    expect(() => renderHtml(weather(), { title: 1 as never })).toThrow(/options.title/)
  })

  it('shows a legend with every kind', () => {
    const html = renderHtml(empty)
    for (const label of ['SYSTEM', 'TOOLS', 'USER', 'ASSISTANT', 'EXEC', 'STOP', 'SUBGRAPH']) {
      expect(html).toContain(`</i>${label}</span>`)
    }
    expect(embedded(html).graph).toEqual({ vertices: [], heads: [] })
  })

  it('carries a viewer script that compiles and writes data only as text', () => {
    const script = viewerScript(renderHtml(weather()))
    expect(() => new Script(script)).not.toThrow()
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/)
  })

  it('keeps metadata that JSON cannot hold without throwing', () => {
    const cyclic: Record<string, unknown> = { n: 1n }
    cyclic['self'] = cyclic
    const c = pipe(empty, user('x', { meta: cyclic }))
    expect(embedded(renderHtml(c)).graph.vertices[0]!.meta).toEqual({ n: '1', self: '[cycle]' })
  })
})
