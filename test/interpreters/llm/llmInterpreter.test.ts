import { pipe } from 'fp-ts/lib/function.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  graph,
  llm,
  llmInterpreter,
  type LlmNode,
  messages,
  type Node,
  run,
  type RunEvent,
  systemPrompt,
  type Tool,
  toolDefinitions,
} from 'nerve-agents'
import {
  interpreters,
  type LifecycleContext,
  type NodeRegistry,
  type StateCell,
} from 'nerve-agents/core'
import { isThinkingChunk, ProviderHttpError } from 'nerve-agents/interpreters'
import { BudgetExceeded, UnknownLinkHandle } from 'nerve-agents/runtime'
import { scriptedProvider, toolUse, type ScriptedReply } from 'nerve-agents/testing'

/** A registry with cells, as a session is. */
const registry = (...nodes: Node[]): NodeRegistry & { readonly values: Map<string, unknown> } => {
  const values = new Map<string, unknown>()
  return {
    values,
    get: (id) => nodes.find((n) => n.id === id),
    cell: (id): StateCell => ({ get: () => values.get(id), set: (v) => values.set(id, v) }),
  }
}

const echo: Tool = {
  definition: { name: 'echo', description: 'echoes', input_schema: { type: 'object' } },
  run: (input) => Promise.resolve(JSON.stringify(input)),
}
const other: Tool = { ...echo, definition: { ...echo.definition, name: 'other' } }

const setup = (
  script: readonly ScriptedReply[],
  node: LlmNode = llm('dev', { system: 'Be brief.', tools: ['echo'] }),
) => {
  const model = scriptedProvider(script)
  const interpreter = llmInterpreter({ providers: model, tools: [echo, other] })
  const session = registry(node)
  const lifecycle: LifecycleContext = { signal: new AbortController().signal, session }
  const exec = (input: unknown, signal = new AbortController().signal) =>
    run(pipe(graph('g'), addStep({ id: 'say', node, input })), {
      interpreters: interpreters(interpreter),
      session,
      signal,
    }).then((r) => r.results.say)
  return { model, interpreter, session, lifecycle, node, exec }
}

describe('llmInterpreter', () => {
  it('starts a conversation with the system prompt and only the node’s tools', async () => {
    const { interpreter, session, lifecycle, node } = setup([])
    await interpreter.start!(node, lifecycle)
    const head = interpreter.state(session, 'dev')!.head
    expect(systemPrompt(head)).toBe('Be brief.')
    expect(toolDefinitions(head).map((t) => t.name)).toEqual(['echo'])
  })

  it('appends the input, answers the assistant’s text and moves the head, turn after turn', async () => {
    const { model, interpreter, session, exec } = setup([[toolUse('echo', { a: 1 })], 'one', 'two'])
    expect(await exec('first')).toBe('one')
    expect(await exec('second')).toBe('two')
    const roles = messages(interpreter.state(session, 'dev')!.head).map((m) => m.role)
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    expect(Object.keys(interpreter.state(session, 'dev')!)).toEqual(['head'])
    expect(model.requests[2]!.messages.map((m) => m.content)).toContainEqual('first')
    expect(session.values.has('dev')).toBe(true)
  })

  it('queues executes on one node, so each turn sees the one before', async () => {
    const { model, exec } = setup([
      { content: 'slow', delayMs: 20 },
      (request) => `after ${request.messages.length} messages`,
    ])
    const [a, b] = await Promise.all([exec('a'), exec('b')])
    expect(a).toBe('slow')
    expect(b).toBe('after 3 messages')
    expect(model.requests).toHaveLength(2)
  })

  it('leaves the head where it was when the turn fails', async () => {
    const { interpreter, session, lifecycle, node, exec } = setup([
      { error: new ProviderHttpError('p', 401, 'no key') },
    ])
    await interpreter.start!(node, lifecycle)
    const before = interpreter.state(session, 'dev')
    await expect(exec('hi')).rejects.toThrow(/401/)
    expect(interpreter.state(session, 'dev')).toBe(before)
  })

  it('records a cancelled turn and rejects', async () => {
    const { interpreter, session, exec } = setup([{ content: 'late', delayMs: 60_000 }])
    const controller = new AbortController()
    const running = exec('hi', controller.signal)
    setTimeout(() => {
      controller.abort()
    }, 5)
    await expect(running).rejects.toThrow()
    expect(interpreter.state(session, 'dev')!.head.data).toMatchObject({ reason: 'cancelled' })
  })

  it('ends a turn cancelled during a tool call that ignores its signal at once, the call recorded as cancelled', async () => {
    const stuck: Tool = {
      definition: { name: 'stuck', description: 'never ends', input_schema: { type: 'object' } },
      run: () => new Promise(() => undefined),
    }
    const node = llm('dev', { tools: ['stuck'] })
    const model = scriptedProvider([[toolUse('stuck')], 'never asked'])
    const interpreter = llmInterpreter({ providers: model, tools: [stuck] })
    const session = registry(node)
    const controller = new AbortController()
    const running = run(pipe(graph('g'), addStep({ id: 'say', node, input: 'go' })), {
      interpreters: interpreters(interpreter),
      session,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'step_chunk' && (e.chunk as { type?: string }).type === 'tool_call') {
          controller.abort(new Error('stop'))
        }
      },
    })
    await expect(running).rejects.toMatchObject({ _tag: 'Cancelled' })
    await new Promise((resolve) => setImmediate(resolve))
    const head = interpreter.state(session, 'dev')!.head
    expect(head.data).toMatchObject({ type: 'stop_reason', reason: 'cancelled' })
    const results = messages(head).at(-1)!.content as readonly { content?: unknown }[]
    expect(results).toMatchObject([{ type: 'tool_result', is_error: true }])
    expect(String(results[0]!.content)).toMatch(/^cancelled/)
    expect(model.requests).toHaveLength(1)
  })

  it('reports usage to the run’s budget', async () => {
    const { session, interpreter, node } = setup([
      { content: [toolUse('echo')], usage: { input_tokens: 60, output_tokens: 10 } },
      { content: 'done', usage: { input_tokens: 60, output_tokens: 10 } },
    ])
    const failure = await run(pipe(graph('g'), addStep({ id: 'say', node, input: 'hi' })), {
      interpreters: interpreters(interpreter),
      session,
      budget: { maxTokens: 100 },
    }).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(BudgetExceeded)
  })

  it('streams text deltas as step chunks', async () => {
    const { session, interpreter, node } = setup(['streamed answer'])
    const events: RunEvent[] = []
    await run(pipe(graph('g'), addStep({ id: 'say', node, input: 'hi' })), {
      interpreters: interpreters(interpreter),
      session,
      onEvent: (e) => events.push(e),
    })
    expect(
      events.filter((e) => e.type === 'step_chunk').map((e) => (e as { chunk: unknown }).chunk),
    ).toEqual(['streamed answer'])
  })

  it('streams thinking as typed chunks beside the text, so a UI can tell them apart', async () => {
    const { session, interpreter, node } = setup([
      [
        { type: 'thinking', thinking: 'The user greets me.', signature: 's' },
        { type: 'text', text: 'Hello.' },
      ],
    ])
    const chunks: unknown[] = []
    await run(pipe(graph('g'), addStep({ id: 'say', node, input: 'hi' })), {
      interpreters: interpreters(interpreter),
      session,
      onEvent: (e) => {
        if (e.type === 'step_chunk') chunks.push(e.chunk)
      },
    })
    expect(chunks).toEqual([{ type: 'thinking', text: 'The user greets me.' }, 'Hello.'])
    expect(chunks.map(isThinkingChunk)).toEqual([true, false])
  })

  it('names a missing provider or tool', async () => {
    const { exec } = setup([], llm('dev', { tools: ['nope'] }))
    await expect(exec('x')).rejects.toThrow(/no tool named "nope" \(there are: echo, other\)/)
    const { exec: exec2 } = setup([], llm('dev', { provider: 'gpt' }))
    await expect(exec2('x')).rejects.toThrow(/no provider named "gpt"/)
  })

  describe('fork', () => {
    it('shares the head in O(1) and stamps forked_from, fork_time and fork_message_count', async () => {
      const { interpreter, session, lifecycle, node, exec } = setup(['one'])
      await exec('hi')
      const copy = await interpreter.fork!(node, 'dev-2', {
        ...lifecycle,
        time: '2026-11-22T00:00:00.000Z',
      })
      expect(copy.metadata).toEqual({
        forked_from: 'dev',
        fork_time: '2026-11-22T00:00:00.000Z',
        fork_message_count: 2,
      })
      expect(interpreter.state(session, 'dev-2')!.head).toBe(
        interpreter.state(session, 'dev')!.head,
      )
    })

    it('forks from a message count or a vertex', async () => {
      const { interpreter, session, lifecycle, node, exec } = setup(['one', 'two'])
      await exec('a')
      await exec('b')
      await interpreter.fork!(node, 'early', { ...lifecycle, at: 2 })
      const early = interpreter.state(session, 'early')!
      expect(messages(early.head).map((m) => m.content)).toEqual([
        'a',
        [{ type: 'text', text: 'one' }],
      ])
      expect(Object.keys(early)).toEqual(['head'])
      const first = await interpreter.fork!(node, 'first', { ...lifecycle, at: 0 })
      expect(first.metadata.fork_message_count).toBe(0)
      expect(messages(interpreter.state(session, 'first')!.head)).toEqual([])
      await interpreter.fork!(node, 'at-vertex', { ...lifecycle, at: early.head })
      expect(messages(interpreter.state(session, 'at-vertex')!.head)).toHaveLength(2)
      await expect(interpreter.fork!(node, 'x', { ...lifecycle, at: 9 })).rejects.toThrow(
        /from 0 to 4/,
      )
    })

    it('keeps forks independent: executing on one never changes what another sees', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(3), fc.string()), { maxLength: 12 }),
          async (ops) => {
            const node = llm('n0')
            const model = scriptedProvider([(r) => `reply to ${r.messages.length}`], { loop: true })
            const interpreter = llmInterpreter({ providers: model })
            const session = registry()
            const lifecycle = { signal: new AbortController().signal, session }
            const nodes: LlmNode[] = [node]
            await interpreter.start!(node, lifecycle)
            const expected = new Map<string, number>([['n0', 0]])
            for (const [pick, text] of ops) {
              const target = nodes[pick % nodes.length]!
              if (text.length % 2 === 0) {
                const copy = await interpreter.fork!(target, `n${nodes.length}`, lifecycle)
                nodes.push(copy)
                expected.set(copy.id, expected.get(target.id)!)
              } else {
                await interpreter.execute!(target, {
                  input: text,
                  session,
                  signal: lifecycle.signal,
                  reportUsage: () => undefined,
                  emit: () => undefined,
                  path: [target.id],
                  resolveLinks: (h: string) =>
                    Promise.reject(new UnknownLinkHandle([target.id], h)),
                } as never)
                expected.set(target.id, expected.get(target.id)! + 2)
              }
            }
            return nodes.every(
              (n) => messages(interpreter.state(session, n.id)!.head).length === expected.get(n.id),
            )
          },
        ),
        { numRuns: 60 },
      )
    })
  })
})
