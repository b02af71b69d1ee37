import { pipe } from 'fp-ts/lib/function.js'
import * as fc from 'fast-check'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  ancestors,
  type ChatEvent,
  type Conversation,
  defaultInterpreters,
  fn,
  graph,
  llm,
  llmInterpreter,
  type LlmNode,
  makeNode,
  memoryChatStore,
  type Node,
  createSession,
  messages,
  openChat,
  type Provider,
  tool,
  toolset,
  zeroUsage,
} from '../../src/index.js'
import {
  interpreters,
  type Interpreter,
  type LifecycleContext,
  type NodeContext,
} from '../../src/core.js'
import { scriptedProvider, toolUse } from '../../src/testing/index.js'

const registry = (model: Provider) =>
  interpreters(...defaultInterpreters.values(), llmInterpreter({ providers: model }))

/** A model answering `answer n` to the n-th call: no two answers alike. */
const counting = () => {
  let n = 0
  return scriptedProvider([() => `answer ${n++}`], { loop: true })
}

const texts = (head: Conversation) =>
  messages(head).map(
    (m) =>
      `${m.role}: ${typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('')}`,
  )

const shout = tool(
  { name: 'shout', description: 'Louder.', input_schema: { type: 'object' } },
  t.type({ text: t.string }),
  ({ text }) => Promise.resolve(text.toUpperCase()),
)

describe('openChat', () => {
  it('runs a message through the graph and tells the answer as it streams', async () => {
    const events: ChatEvent[] = []
    const chat = openChat({
      id: 'c',
      agent: llm('helper', { system: 'Be brief.' }),
      interpreters: registry(scriptedProvider(['Hi there.'], { usage: { output_tokens: 4 } })),
      onEvent: (e) => events.push(e),
    })
    const turn = await chat.send('hello')
    expect(turn).toMatchObject({ status: 'completed', text: 'Hi there.', stopReason: 'end_turn' })
    expect(turn.usage.output_tokens).toBe(4)
    expect(events.map((e) => e.type)).toEqual(['started', 'delta', 'usage', 'completed'])
    expect(events[1]).toMatchObject({ text: 'Hi there.', turnId: turn.turnId, chatId: 'c' })
    expect(chat.head).toBe(turn.head)
    expect(texts(turn.head)).toEqual(['user: hello', 'assistant: Hi there.'])
  })

  it('shows tool calls through a linked toolset as they run, and their results', async () => {
    const g = pipe(
      graph('team'),
      addStep({ id: 'words', node: toolset('words', { builtin: [], tools: [shout] }) }),
      addStep({ id: 'coder', node: llm('coder'), links: { tools: ['words'] } }),
    )
    const model = scriptedProvider([[toolUse('shout', { text: 'hi' })], 'Done.'])
    const events: ChatEvent[] = []
    const chat = openChat({ id: 'c', graph: g, interpreters: registry(model) })
    const turn = await chat.send('go', { onEvent: (e) => events.push(e) })
    expect(turn.text).toBe('Done.')
    expect(events.map((e) => e.type)).toEqual([
      'started',
      'tool_call',
      'tool_result',
      'delta',
      'usage',
      'completed',
    ])
    expect(events[1]).toMatchObject({ name: 'shout', input: { text: 'hi' } })
    expect(events[2]).toMatchObject({ name: 'shout', content: 'HI', isError: false })
    expect(events[4]).toMatchObject({ apiCalls: 2 })
  })

  it('makes no AbortSignal for a turn whose model and tools never read one', async () => {
    const g = pipe(
      graph('team'),
      addStep({ id: 'words', node: toolset('words', { builtin: [], tools: [shout] }) }),
      addStep({ id: 'coder', node: llm('coder'), links: { tools: ['words'] } }),
    )
    const model = scriptedProvider([[toolUse('shout', { text: 'hi' })], 'Done.'], { loop: true })
    const chat = openChat({ id: 'c', graph: g, interpreters: registry(model) })
    await chat.send('warm up')
    const Real = globalThis.AbortController
    let made = 0
    globalThis.AbortController = class extends Real {
      constructor() {
        super()
        made++
      }
    }
    try {
      const turn = await chat.send('go', { onEvent: () => undefined })
      expect(turn.text).toBe('Done.')
    } finally {
      globalThis.AbortController = Real
    }
    expect(made).toBe(0)
  })

  it('retries as a sibling of the old answer, sharing the user message vertex', async () => {
    const chat = openChat({ id: 'c', agent: llm('a'), interpreters: registry(counting()) })
    const first = await chat.send('q')
    const again = await chat.retry()
    const asked = first.head.parents[0]!.parents[0]!
    expect(asked.data).toMatchObject({ role: 'user', content: 'q' })
    expect(again.head.parents[0]!.parents[0]).toBe(asked)
    expect([first.text, again.text]).toEqual(['answer 0', 'answer 1'])
    expect(chat.heads).toEqual([first.head, again.head])
    const tree = chat.branches()
    expect(tree.current).toBe(again.head.id)
    expect(tree.branches.map((b) => [b.answer, b.current, b.forkedAt])).toEqual([
      ['answer 0', false, undefined],
      ['answer 1', true, asked.id],
    ])
  })

  it('edits a message as a sibling, and goes on from any head', async () => {
    const chat = openChat({ id: 'c', agent: llm('a'), interpreters: registry(counting()) })
    const one = await chat.send('one')
    const two = await chat.send('two')
    const edited = await chat.edit('TWO')
    expect(texts(edited.head)).toEqual([
      'user: one',
      'assistant: answer 0',
      'user: TWO',
      'assistant: answer 2',
    ])
    // The edited message hangs where the old one did.
    expect(ancestors(edited.head)).toContain(one.head)
    expect(chat.heads).toEqual([two.head, edited.head])
    chat.switch(two.head.id)
    const three = await chat.send('three')
    expect(texts(three.head).slice(-2)).toEqual(['user: three', 'assistant: answer 3'])
    expect(chat.heads).toEqual([edited.head, three.head])
    const back = await chat.continue(edited.head.id, 'more')
    expect(ancestors(back.head)).toContain(edited.head)
    expect(chat.heads).toEqual([three.head, back.head])
    expect(() => chat.switch('nope')).toThrow(/no head "nope"/)
  })

  it('keeps what was said when a turn is cancelled mid-answer', async () => {
    const slow: Provider = {
      name: 'slow',
      call: (_r, o) =>
        new Promise((_resolve, reject) => {
          o.onDelta?.({ type: 'text', text: 'Half an ans' })
          o.signal.addEventListener('abort', () => {
            reject(o.signal.reason as Error)
          })
        }),
    }
    const events: ChatEvent[] = []
    const chat = openChat({
      id: 'c',
      agent: llm('a'),
      interpreters: registry(slow),
      onEvent: (e) => {
        events.push(e)
        if (e.type === 'delta') chat.cancel()
      },
    })
    const turn = await chat.send('tell me')
    expect(turn.status).toBe('cancelled')
    expect(texts(turn.head)).toEqual(['user: tell me', 'assistant: Half an ans'])
    expect(turn.head.data).toMatchObject({ type: 'stop_reason', reason: 'cancelled' })
    expect(events.at(-1)).toMatchObject({ type: 'cancelled', text: 'Half an ans' })
    expect(chat.head).toBe(turn.head)
  })

  it('cancels a later turn: mid-answer, from its started event, or by the turn signal', async () => {
    const slow: Provider = {
      name: 'slow',
      call: (request, o) =>
        request.messages.length === 1
          ? Promise.resolve({
              content: [{ type: 'text', text: 'first' }],
              stopReason: 'end_turn',
              usage: zeroUsage,
            })
          : new Promise((_resolve, reject) => {
              o.onDelta?.({ type: 'text', text: 'Half' })
              o.signal.addEventListener('abort', () => {
                reject(o.signal.reason as Error)
              })
            }),
    }
    let cancelOn: ChatEvent['type'] | undefined
    const chat = openChat({
      id: 'c',
      agent: llm('a'),
      interpreters: registry(slow),
      onEvent: (e) => {
        if (e.type === cancelOn) expect(chat.cancel('stop')).toBe(true)
      },
    })
    const first = await chat.send('one')
    expect(first.text).toBe('first')
    expect(chat.cancel()).toBe(false)

    cancelOn = 'delta'
    const mid = await chat.send('two')
    expect(mid.status).toBe('cancelled')
    expect(texts(mid.head).slice(-2)).toEqual(['user: two', 'assistant: Half'])

    cancelOn = 'started'
    const before = await chat.send('three')
    expect(before.status).toBe('cancelled')
    expect(texts(before.head).slice(-1)).toEqual(['user: three'])

    cancelOn = undefined
    const controller = new AbortController()
    const byCaller = chat.send('four', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'delta') controller.abort(new Error('caller stop'))
      },
    })
    const turn = await byCaller
    expect(turn.status).toBe('cancelled')
    expect(texts(turn.head).slice(-2)).toEqual(['user: four', 'assistant: Half'])
    expect(chat.head).toBe(turn.head)
  })

  it('leaves the head where it was when a turn fails', async () => {
    const broken = scriptedProvider(['ok', { error: new Error('down') }])
    const chat = openChat({
      id: 'c',
      agent: llm('a'),
      interpreters: interpreters(llmInterpreter({ providers: broken, retry: { maxRetries: 0 } })),
    })
    const ok = await chat.send('one')
    const events: ChatEvent[] = []
    await expect(chat.send('two', { onEvent: (e) => events.push(e) })).rejects.toMatchObject({
      _tag: 'StepFailed',
    })
    expect(events.map((e) => e.type)).toEqual(['started', 'failed'])
    expect(chat.head).toBe(ok.head)
  })

  it('answers with a graph that has no agent, appending its output', async () => {
    const g = pipe(
      graph('shout'),
      addStep({ id: 'up', node: fn('up', (ctx) => String(ctx.input).toUpperCase()) }),
    )
    const chat = openChat({ id: 'c', graph: g, interpreters: defaultInterpreters })
    const a = await chat.send('hey')
    const b = await chat.retry()
    expect([a.text, b.text]).toEqual(['HEY', 'HEY'])
    expect(texts(a.head)).toEqual(['user: hey', 'assistant: HEY'])
    expect(b.head.parents[0]!.parents[0]).toBe(a.head.parents[0]!.parents[0])
  })

  it('opens a kept chat again where it was, with its branches', async () => {
    const store = memoryChatStore()
    const model = counting()
    const open = () => openChat({ id: 'c', agent: llm('a'), interpreters: registry(model), store })
    const chat = open()
    await chat.send('one')
    await chat.retry()
    const again = open()
    expect(again.head?.id).toBe(chat.head?.id)
    expect(again.heads.map((h) => h.id)).toEqual(chat.heads.map((h) => h.id))
    expect(texts((await again.send('two')).head)).toEqual([
      'user: one',
      'assistant: answer 1',
      'user: two',
      'assistant: answer 2',
    ])
  })

  it("starts no handle per turn: the agent is the chat's, a persistent node the session's", async () => {
    const log: string[] = []
    const conn: Interpreter = {
      kind: 'conn',
      start: () => {
        log.push('start')
        return Promise.resolve('handle')
      },
      stop: () => {
        log.push('stop')
        return Promise.resolve()
      },
      execute: (_node: Node, ctx: NodeContext) => {
        log.push(`execute on ${String(ctx.live)}`)
        return 'facts'
      },
    }
    const db = makeNode({ id: 'db', kind: 'conn', persistent: true, metadata: {} })
    const model = scriptedProvider(['one', 'two'])
    const llms = llmInterpreter({ providers: model })
    const starts: string[] = []
    const counted = {
      ...llms,
      start: (n: LlmNode, c: LifecycleContext) => {
        starts.push(n.id)
        return llms.start!(n, c)
      },
    }
    const all = interpreters(...defaultInterpreters.values(), counted, conn)
    const session = createSession({ interpreters: all })
    session.register(db)
    const g = pipe(
      graph('chat'),
      addStep({ id: 'db', nodeRef: 'db' }),
      addStep({ id: 'agent', node: llm('helper'), dependsOn: ['db'], inputFn: () => 'go' }),
    )
    const chat = openChat({ id: 'c', graph: g, interpreters: all, session })
    await chat.send('hi')
    await chat.send('again')
    expect(log).toEqual(['start', 'execute on handle', 'execute on handle'])
    expect(starts).toEqual(['helper'])
    await session.close()
    expect(log.at(-1)).toBe('stop')
  })

  it('refuses what is not a message or not the chat', async () => {
    const chat = openChat({ id: 'c', agent: llm('a'), interpreters: registry(counting()) })
    expect(() => chat.send('')).toThrow(/non-empty string/)
    expect(() => chat.retry()).toThrow(/no user message to retry/)
    await chat.send('x')
    expect(() => chat.continue('0000', 'y')).toThrow(/no vertex "0000"/)
  })
})

describe('branch commands (laws)', () => {
  type Op =
    | { readonly op: 'send' }
    | { readonly op: 'retry' }
    | { readonly op: 'edit' }
    | { readonly op: 'switch'; readonly to: number }
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constant({ op: 'send' as const }),
    fc.constant({ op: 'retry' as const }),
    fc.constant({ op: 'edit' as const }),
    fc.nat({ max: 9 }).map((to) => ({ op: 'switch' as const, to })),
  )

  it('never copy a vertex, and leave every old head as it was', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const chat = openChat({ id: 'p', agent: llm('a'), interpreters: registry(counting()) })
        let n = 0
        await chat.send('first')
        for (const o of ops) {
          const before = [...chat.heads]
          const snapshot = new Map(before.map((h) => [h, ancestors(h)]))
          if (o.op === 'send') await chat.send(`message ${n++}`)
          else if (o.op === 'retry') await chat.retry()
          else if (o.op === 'edit') await chat.edit(`edited ${n++}`)
          else chat.switch(chat.heads[o.to % chat.heads.length]!)
          // Old heads are untouched: the same vertices with the same histories.
          for (const [h, history] of snapshot) {
            expect(ancestors(h)).toEqual(history)
            if (o.op !== 'send') expect(chat.heads).toContain(h)
          }
          // No vertex exists twice: one object per id across the whole tree.
          const byId = new Map<string, Conversation>()
          for (const h of chat.heads) {
            for (const v of ancestors(h)) {
              const seen = byId.get(v.id)
              expect(seen === undefined || seen === v).toBe(true)
              byId.set(v.id, v)
            }
          }
        }
      }),
      { numRuns: 40 },
    )
  })
})
