import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  ancestors,
  empty,
  messages,
  runAgent,
  subAgent,
  toolbox,
  user,
  type Block,
  type SubConversation,
} from 'nerve'
import { scriptedProvider, toolUse } from 'nerve/testing'

const ask = pipe(empty, user('go'))

/** A chain of agents: level i delegates to level i + 1 until `levels`, the last answers. */
const chain = (levels: number, maxDepth: number) => {
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
        maxDepth,
      }),
    )
  }
  return { top: providers[0]!, box, providers }
}

describe('subAgent', () => {
  it('runs the task one level deeper and records the whole sub-conversation', async () => {
    const { top, box } = chain(1, 2)
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
    const { top, box, providers } = chain(3, 2)
    const result = await runAgent(top, ask, { tools: box })
    expect(providers[3]!.requests).toHaveLength(0)
    const level2 = providers[2]!.requests.at(-1)!.messages.at(-1)!.content as readonly Block[]
    expect(level2[0]).toMatchObject({ type: 'tool_result', is_error: true })
    expect(JSON.stringify(level2)).toContain('deeper than the limit of 2')
    expect(result.stopReason).toBe('end_turn')
  })

  it('reports the sub-agent’s usage with the caller’s', async () => {
    const { top, box } = chain(2, 2)
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
