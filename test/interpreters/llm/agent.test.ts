import { pipe } from 'fp-ts/lib/function.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ancestors,
  type Block,
  type Conversation,
  empty,
  messages,
  system,
  type Tool,
  toolbox,
  type ToolUseBlock,
  user,
} from 'nerve-agents'
import {
  AgentFailed,
  ProviderHttpError,
  ProviderTimeout,
  runAgent,
} from 'nerve-agents/interpreters'
import { fakeClock, scriptedProvider, toolUse } from 'nerve-agents/testing'

const schema = { type: 'object', properties: {}, required: [] }

/** A tool answering `run(input)`; records the order calls start and end. */
const tool = (name: string, run: Tool['run']): Tool => ({
  definition: { name, description: `the ${name} tool`, input_schema: schema },
  run,
})

const deferred = <T = void>() => {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

const start = pipe(empty, system('You help.'), user('go'))

/** Every assistant tool use is answered, in call order, by the next message. */
const wellFormed = (c: Conversation): boolean => {
  const ms = messages(c)
  return ms.every((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string') return true
    const uses = m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) return true
    const next = ms[i + 1]
    if (next === undefined || typeof next.content === 'string') return false
    const answered = next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
    return JSON.stringify(answered) === JSON.stringify(uses.map((u) => u.id))
  })
}

describe('runAgent', () => {
  it('keeps the head as its only state: every call sends the messages of the head at that moment', async () => {
    const model = scriptedProvider([[toolUse('t')], [toolUse('t'), toolUse('t')], 'done'])
    const result = await runAgent(model, start, {
      tools: toolbox(tool('t', () => Promise.resolve('ok'))),
    })
    const all = messages(result.conversation)
    // Each request is a prefix of the final messages: the user's, then two per tool round.
    model.requests.forEach((r, i) => {
      expect(r.messages).toEqual(all.slice(0, 1 + 2 * i))
    })
    expect(result.messages).toEqual(all)
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('appends the answer and a stop reason with the usage, leaving the input as it was', async () => {
    const model = scriptedProvider([
      { content: 'Hi.', usage: { input_tokens: 7, output_tokens: 2 } },
    ])
    const result = await runAgent(model, start)
    expect(result.text).toBe('Hi.')
    expect(result.stopReason).toBe('end_turn')
    expect(result.conversation.data).toMatchObject({
      type: 'stop_reason',
      reason: 'end_turn',
      usage: { input_tokens: 7, output_tokens: 2 },
    })
    expect(messages(result.conversation).map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(messages(start)).toHaveLength(1)
    expect(model.requests[0]).toMatchObject({ system: 'You help.', tools: [] })
  })

  it('runs the tool uses of one answer in parallel and merges the results in call order', async () => {
    const gates = { a: deferred(), b: deferred() }
    const started: string[] = []
    const slow = tool('slow', async (input) => {
      const key = input.key as 'a' | 'b'
      started.push(key)
      await gates[key].promise
      return `done ${key}`
    })
    const model = scriptedProvider([
      [toolUse('slow', { key: 'a' }), toolUse('slow', { key: 'b' })],
      (request) => `saw ${JSON.stringify(request.messages.at(-1)?.content)}`,
    ])
    const running = runAgent(model, start, { tools: toolbox(slow) })
    await new Promise((r) => setImmediate(r))
    expect(started).toEqual(['a', 'b'])
    gates.b.resolve()
    await new Promise((r) => setImmediate(r))
    gates.a.resolve()
    const result = await running
    const merged = result.conversation.parents[0]!.parents[0]!
    expect(merged.parents).toHaveLength(2)
    expect(merged.parents.map((p) => p.data)).toEqual([
      {
        type: 'tool_execution',
        tool_name: 'slow',
        tool_use_id: 'call_0_0',
        result: 'done a',
        is_error: false,
      },
      {
        type: 'tool_execution',
        tool_name: 'slow',
        tool_use_id: 'call_0_1',
        result: 'done b',
        is_error: false,
      },
    ])
    expect(merged.parents.every((p) => p.parents[0] === merged.parents[0]!.parents[0])).toBe(true)
    expect(result.text).toContain('"tool_use_id":"call_0_0","content":"done a"')
    expect(result.calls).toBe(2)
    expect(wellFormed(result.conversation)).toBe(true)
  })

  it('runs one call at a time when parallel tool calls are off', async () => {
    let running = 0
    let most = 0
    const t = tool('t', async () => {
      most = Math.max(most, ++running)
      await new Promise((r) => setTimeout(r, 1))
      running--
      return 'ok'
    })
    const model = scriptedProvider([[toolUse('t'), toolUse('t'), toolUse('t')], 'end'])
    await runAgent(model, start, { tools: toolbox(t), parallelToolCalls: false })
    expect(most).toBe(1)
    expect(model.requests[0]?.parallelToolCalls).toBe(false)
  })

  it('answers tool uses past the last round with errors and stops with max_tool_rounds', async () => {
    const model = scriptedProvider([[toolUse('t')]], { loop: true })
    const result = await runAgent(model, start, {
      tools: toolbox(tool('t', () => Promise.resolve('ok'))),
      maxToolRounds: 2,
    })
    expect(result.stopReason).toBe('max_tool_rounds')
    expect(result.calls).toBe(3)
    const last = messages(result.conversation).at(-1)!
    expect(last.content).toMatchObject([{ is_error: true }])
    expect(JSON.stringify(last.content)).toContain('limit of 2 tool rounds')
    expect(wellFormed(result.conversation)).toBe(true)
  })

  it('gives an unknown tool or a failing tool an error result and goes on', async () => {
    const model = scriptedProvider([[toolUse('nope'), toolUse('boom')], 'recovered'])
    const boom = tool('boom', () => Promise.reject(new Error('kaput')))
    const result = await runAgent(model, start, { tools: toolbox(boom) })
    const results = messages(result.conversation).at(-2)!.content as readonly Block[]
    expect(results.map((b) => b.type === 'tool_result' && b.is_error)).toEqual([true, true])
    expect(JSON.stringify(results)).toContain('kaput')
    expect(result.text).toBe('recovered')
  })

  it('reports tokens, cost and one API call per model call', async () => {
    const reports: unknown[] = []
    const model = scriptedProvider([
      { content: [toolUse('t')], usage: { input_tokens: 3, output_tokens: 1 }, cost: 0.5 },
      { content: 'ok', usage: { input_tokens: 5, output_tokens: 2 }, cost: 0.25 },
    ])
    const result = await runAgent(model, start, {
      tools: toolbox(tool('t', () => Promise.resolve('x'))),
      onUsage: (u) => reports.push(u),
    })
    expect(reports).toEqual([
      { tokens: 4, apiCalls: 1, cost: 0.5 },
      { tokens: 7, apiCalls: 1, cost: 0.25 },
    ])
    expect(result.usage).toMatchObject({ input_tokens: 8, output_tokens: 3 })
    expect(result.cost).toBe(0.75)
  })

  describe('retries', () => {
    it('waits what Retry-After asks on a 429, then the backoff on 5xx and timeouts', async () => {
      const clock = fakeClock({ auto: true })
      const waits: number[] = []
      const model = scriptedProvider([
        { error: new ProviderHttpError('p', 429, 'slow down', 2000) },
        { error: new ProviderHttpError('p', 500, 'oops') },
        { error: new ProviderTimeout('p', 100) },
        'finally',
      ])
      const result = await runAgent(model, start, {
        clock,
        retry: { baseDelayMs: 100, maxRetries: 5 },
        onRetry: (n) => waits.push(n.delayMs),
      })
      expect(waits).toEqual([2000, 200, 400])
      expect(clock.now()).toBe(2600)
      expect(result.text).toBe('finally')
      expect(messages(result.conversation).map((m) => m.role)).toEqual(['user', 'assistant'])
    })

    it('does not retry a 400, and fails with the last whole turn closed by an error stop', async () => {
      const model = scriptedProvider([
        [toolUse('t')],
        { error: new ProviderHttpError('p', 400, 'bad') },
      ])
      const failure = await runAgent(model, start, {
        tools: toolbox(tool('t', () => Promise.resolve('ok'))),
      }).catch((e: unknown) => e)
      expect(failure).toBeInstanceOf(AgentFailed)
      const { conversation, cause } = failure as AgentFailed
      expect(cause).toBeInstanceOf(ProviderHttpError)
      expect(conversation.data).toMatchObject({ type: 'stop_reason', reason: 'error' })
      expect(wellFormed(conversation)).toBe(true)
      expect(model.requests).toHaveLength(2)
    })

    it('gives up after maxRetries, and at once when Retry-After is past maxDelayMs', async () => {
      const clock = fakeClock({ auto: true })
      const always500 = scriptedProvider([{ error: new ProviderHttpError('p', 503, '') }], {
        loop: true,
      })
      await expect(
        runAgent(always500, start, { clock, retry: { maxRetries: 2 } }),
      ).rejects.toBeInstanceOf(AgentFailed)
      expect(always500.requests).toHaveLength(3)
      const tooLong = scriptedProvider([{ error: new ProviderHttpError('p', 429, '', 120_000) }], {
        loop: true,
      })
      await expect(runAgent(tooLong, start, { clock })).rejects.toBeInstanceOf(AgentFailed)
      expect(tooLong.requests).toHaveLength(1)
    })
  })

  describe('cancellation', () => {
    it('stops with "cancelled" when aborted during the model call', async () => {
      const controller = new AbortController()
      const model = scriptedProvider([{ content: 'late', delayMs: 60_000 }])
      const running = runAgent(model, start, { signal: controller.signal })
      setTimeout(() => {
        controller.abort()
      }, 5)
      const result = await running
      expect(result.stopReason).toBe('cancelled')
      expect(result.conversation.data).toMatchObject({ type: 'stop_reason', reason: 'cancelled' })
      expect(messages(result.conversation).map((m) => m.role)).toEqual(['user'])
    })

    it('is immediate during a retry wait', async () => {
      const controller = new AbortController()
      const model = scriptedProvider([
        { error: new ProviderHttpError('p', 429, '', 20_000) },
        'never',
      ])
      const running = runAgent(model, start, { signal: controller.signal })
      setTimeout(() => {
        controller.abort()
      }, 5)
      expect((await running).stopReason).toBe('cancelled')
    })

    it('keeps finished tool results, records the rest as cancelled, and still merges', async () => {
      const controller = new AbortController()
      const quick = tool('quick', () => Promise.resolve('quick done'))
      let sawAbort = false
      const stuck = tool('stuck', (_input, ctx) => {
        ctx.signal.addEventListener('abort', () => (sawAbort = true))
        return new Promise(() => undefined)
      })
      const model = scriptedProvider([[toolUse('quick'), toolUse('stuck')], 'never asked'])
      const running = runAgent(model, start, {
        tools: toolbox(quick, stuck),
        signal: controller.signal,
      })
      setTimeout(() => {
        controller.abort()
      }, 5)
      const result = await running
      expect(result.stopReason).toBe('cancelled')
      expect(sawAbort).toBe(true)
      const results = messages(result.conversation).at(-1)!.content as readonly Block[]
      expect(results).toMatchObject([
        { type: 'tool_result', tool_use_id: 'call_0_0', content: 'quick done', is_error: false },
        { tool_use_id: 'call_0_1', is_error: true },
      ])
      expect(JSON.stringify(results[1])).toContain('cancelled')
      expect(result.conversation.parents[0]!.parents).toHaveLength(2)
      expect(model.requests).toHaveLength(1)
    })
  })

  it('keeps every conversation well-formed, whatever the script and the order tools finish in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.nat(3), { minLength: 1, maxLength: 4 }), { maxLength: 4 }),
        fc.nat(3),
        async (rounds, maxToolRounds) => {
          const t = tool('t', async (input) => {
            for (let i = 0; i < (input.wait as number); i++) await Promise.resolve()
            return `waited ${String(input.wait)}`
          })
          const script = [
            ...rounds.map((waits) => waits.map((w) => toolUse('t', { wait: w }))),
            'end',
          ]
          const result = await runAgent(scriptedProvider(script), start, {
            tools: toolbox(t),
            maxToolRounds,
          })
          const uses = rounds.slice(0, maxToolRounds + 1).flat().length
          const executions = ancestors(result.conversation).filter(
            (v) => v.data.type === 'tool_execution',
          )
          return wellFormed(result.conversation) && executions.length === uses
        },
      ),
      { numRuns: 100 },
    )
  })
})
