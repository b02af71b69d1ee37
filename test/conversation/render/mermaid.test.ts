import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { assistant, empty, subConversation, UsageError, user } from '../../../src/index.js'
import { renderMermaid } from '../../../src/core.js'
import { weather } from './conversations.js'

const nodes = (chart: string): string[] => chart.match(/^\s*n[\d_]+\[".*"\]$/gm) ?? []
const edges = (chart: string): string[] => chart.match(/^\s*n[\d_]+ --> n[\d_]+$/gm) ?? []

describe('renderMermaid', () => {
  it('draws one node per vertex and one edge per parent, fan-out and merge included', () => {
    const chart = renderMermaid(weather())
    expect(chart.split('\n')[0]).toBe('flowchart TD')
    expect(nodes(chart)).toHaveLength(8)
    // 5 along the chain, 3 out of the assistant, 3 into the merge
    expect(edges(chart)).toHaveLength(1 + 1 + 3 + 3 + 1)
    expect(edges(chart).map((e) => e.trim())).toEqual([
      'n0 --> n1',
      'n1 --> n2',
      'n2 --> n3',
      'n2 --> n4',
      'n2 --> n5',
      'n3 --> n6',
      'n4 --> n6',
      'n5 --> n6',
      'n6 --> n7',
    ])
  })

  it('labels nodes with the kind, short id and first content lines', () => {
    const c = weather()
    const chart = renderMermaid(c)
    expect(chart).toContain(`  n7["ASSISTANT ${c.id.slice(0, 8)}<br/>Oslo 3, Lima 24, Rome 18."]`)
    expect(chart).toMatch(
      /n2\["ASSISTANT \w{8}<br\/>Checking\.<br\/>TOOL_USE a weather .*<br\/>… 2 more lines"\]/,
    )
  })

  it('escapes quotes, brackets and markup so labels cannot end early', () => {
    const chart = renderMermaid(pipe(empty, user('say "hi" [x] {y} (z) |p| <b> # & `q` \\')))
    expect(chart).toContain(
      'say #quot;hi#quot; #91;x#93; #123;y#125; #40;z#41; #124;p#124; #lt;b#gt; #35; #amp; #96;q#96; #92;',
    )
    expect(nodes(chart)).toHaveLength(1)
  })

  it('puts each line of content on its own label line and escapes control characters', () => {
    const chart = renderMermaid(pipe(empty, user('one\ntwo\u001b')))
    expect(chart).toMatch(/n0\["USER \w{8}<br\/>one<br\/>two#92;x1b"\]/)
  })

  it('draws a sub-conversation as a subgraph block joined by edges to and from it', () => {
    const inner = pipe(empty, user('find'), assistant('found'))
    const c = pipe(
      empty,
      user('ask'),
      subConversation({
        tool_name: 'research',
        tool_use_id: 't1',
        system_prompt: '',
        heads: [inner],
        summary: 'ok',
      }),
      assistant('done'),
    )
    const chart = renderMermaid(c)
    expect(chart).toMatch(
      /\n {2}subgraph n1\["SUBGRAPH \w{8} research #40;t1#41; · depth 1"\]\n {4}direction TB\n {4}n1_0\["USER \w{8}<br\/>find"\]\n {4}n1_1\["ASSISTANT \w{8}<br\/>found"\]\n {4}n1_0 --> n1_1\n {2}end\n/,
    )
    expect(edges(chart).map((e) => e.trim())).toEqual(['n1_0 --> n1_1', 'n0 --> n1', 'n1 --> n2'])
    const summarised = renderMermaid(c, { subConversations: 'summary' })
    expect(summarised).not.toMatch(/^\s*subgraph /m)
    expect(nodes(summarised)).toHaveLength(3)
    expect(summarised).toMatch(
      /n1\["SUBGRAPH \w{8} research #40;t1#41; · depth 1<br\/>summary: ok"\]/,
    )
  })

  it('colours nodes by kind and marks heads', () => {
    const chart = renderMermaid(weather())
    expect(chart).toContain('  class n3,n4,n5 k_exec\n')
    expect(chart).toContain('  class n1,n6 k_user\n')
    expect(chart).toContain('  class n7 head\n')
    expect(chart).toMatch(/classDef k_exec fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}/)
  })

  it('cuts labels to maxWidth and maxLines', () => {
    const chart = renderMermaid(pipe(empty, user('abcdefghij\n2\n3')), {
      maxWidth: 5,
      maxLines: 1,
    })
    expect(chart).toMatch(/n0\["USER \w{8}<br\/>abcd…<br\/>… 2 more lines"\]/)
    expect(() => renderMermaid(empty, { maxLines: -1 })).toThrow(UsageError)
  })

  it('draws an empty conversation as an empty flowchart', () => {
    expect(nodes(renderMermaid(empty))).toEqual([])
  })
})
