import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  ancestors,
  type Block,
  empty,
  messages,
  type SubConversation,
  toolbox,
  usage,
  user,
} from 'nerve-agents'
import { runAgent, subAgent } from 'nerve-agents/interpreters'
import { scriptedProvider, toolUse, type ScriptedProvider } from 'nerve-agents/testing'

const ask = pipe(empty, user('go'))

/** A chain of agents: level i delegates to level i + 1 until `levels`, the last answers. */
const chain = (levels: number) => {
  const providers = Array.from({ length: levels + 1 }, (_, i) =>
    scriptedProvider(
      i < levels
        ? [
            [toolUse(`level${i + 1}`, { task: `task ${i + 1}` })],
            (r) => `level ${i} got: ${JSON.stringify(r.messages.at(-1)?.content)}`,
          ]
        : [`bottom at ${i}`],
      { usage: { input_tokens: 1, output_tokens: 1 } },
    ),
  )
  let box = toolbox()
  for (let i = levels; i >= 1; i--) {
    box = toolbox(
      subAgent({
        name: `level${i}`,
        description: `level ${i}`,
        provider: providers[i]!,
        system: `You are level ${i}.`,
        tools: box,
      }),
    )
  }
  return { top: providers[0]!, box, providers }
}

describe('subAgent', () => {
  it('runs the task one level deeper and records the whole sub-conversation', async () => {
    const { top, box } = chain(1)
    const result = await runAgent(top, ask, { tools: box })
    const sub = ancestors(result.conversation).find((v) => v.data.type === 'sub_conversation')!
      .data as SubConversation
    expect(sub).toMatchObject({
      tool_name: 'level1',
      system_prompt: 'You are level 1.',
      summary: 'bottom at 1',
      depth: 1,
    })
    expect(messages(sub.heads).map((m) => m.content)).toEqual([
      'task 1',
      [{ type: 'text', text: 'bottom at 1' }],
    ])
    expect(result.text).toContain('bottom at 1')
  })

  it('refuses to go deeper than maxDepth, with an error result the model sees', async () => {
    const { top, box, providers } = chain(3)
    const result = await runAgent(top, ask, { tools: box })
    expect(providers[3]!.requests).toHaveLength(0)
    const level2 = providers[2]!.requests.at(-1)!.messages.at(-1)!.content as readonly Block[]
    expect(level2[0]).toMatchObject({ type: 'tool_result', is_error: true })
    expect(JSON.stringify(level2)).toContain('deeper than the limit of 2')
    expect(result.stopReason).toBe('end_turn')
  })

  it('takes its depth limit from the run: one maxDepth for every level', async () => {
    const shallow = chain(2)
    await runAgent(shallow.top, ask, { tools: shallow.box, maxDepth: 1 })
    expect(shallow.providers[1]!.requests).toHaveLength(2)
    expect(shallow.providers[2]!.requests).toHaveLength(0)
    const level1 = shallow.providers[1]!.requests.at(-1)!.messages.at(-1)!.content
    expect(JSON.stringify(level1)).toContain('deeper than the limit of 1')

    const deep = chain(4)
    const result = await runAgent(deep.top, ask, { tools: deep.box, maxDepth: 4 })
    expect(deep.providers[4]!.requests).toHaveLength(1)
    expect(result.text).toContain('bottom at 4')

    const none = chain(1)
    await runAgent(none.top, ask, { tools: none.box, maxDepth: 0 })
    expect(none.providers[1]!.requests).toHaveLength(0)
  })

  it('refuses a maxDepth of its own, and a run’s maxDepth that is not a count', async () => {
    expect(() =>
      subAgent({
        name: 'a',
        description: 'd',
        provider: scriptedProvider([]),
        system: 's',
        maxDepth: 3,
      } as never),
    ).toThrow(/maxDepth is the run’s/)
    await expect(runAgent(scriptedProvider(['x']), ask, { maxDepth: -1 })).rejects.toThrow(
      /options.maxDepth must be an integer ≥ 0, got -1/,
    )
  })

  it('counts the sub-agents’ calls in the run’s usage, cost and calls, and on its stop reason', async () => {
    const { top, box } = chain(2)
    const result = await runAgent(top, ask, { tools: box })
    // Two calls at the top, two at level 1, one at level 2: one input and one output token each.
    expect(result.calls).toBe(5)
    expect(result.usage).toMatchObject({ input_tokens: 5, output_tokens: 5 })
    expect(result.conversation.data).toMatchObject({ type: 'stop_reason', usage: result.usage })
    expect(usage(result.conversation)).toEqual(result.usage)

    const helper = (name: string, provider: ScriptedProvider) =>
      subAgent({ name, description: name, provider, system: 's' })
    const good = scriptedProvider([{ content: 'fine', cost: 0.25, usage: { input_tokens: 3 } }])
    // Its first call asks for a tool it does not have; its script has no second reply: it fails.
    const bad = scriptedProvider([
      { content: [toolUse('none')], cost: 0.5, usage: { input_tokens: 10 } },
    ])
    const lead = scriptedProvider([
      { content: [toolUse('good', { task: 't' }), toolUse('bad', { task: 'u' })], cost: 1 },
      { content: 'done', cost: 1 },
    ])
    const both = await runAgent(lead, ask, {
      tools: toolbox(helper('good', good), helper('bad', bad)),
    })
    expect(both.cost).toBe(2.75)
    expect(both.calls).toBe(4)
    expect(both.usage.input_tokens).toBe(13)
  })

  it('reports the sub-agent’s usage with the caller’s', async () => {
    const { top, box } = chain(2)
    const reports: number[] = []
    await runAgent(top, ask, { tools: box, onUsage: (u) => reports.push(u.apiCalls ?? 0) })
    expect(reports.reduce((a, b) => a + b, 0)).toBe(5)
  })

  it('stops with the caller when the signal aborts', async () => {
    const slow = subAgent({
      name: 'slow',
      description: 'slow',
      provider: scriptedProvider([{ content: 'late', delayMs: 60_000 }]),
      system: 's',
    })
    const controller = new AbortController()
    const running = runAgent(scriptedProvider([[toolUse('slow', { task: 't' })], 'x']), ask, {
      tools: toolbox(slow),
      signal: controller.signal,
    })
    setTimeout(() => {
      controller.abort()
    }, 5)
    expect((await running).stopReason).toBe('cancelled')
  })
})
