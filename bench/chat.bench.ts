/**
 * Chat benchmarks (issue 27), each against a baseline measured in the same
 * run:
 *
 * - `chat.turn`: one turn of a chat (`send`) whose graph links a toolset to
 *   its agent, the scripted model asking for one tool call then answering —
 *   the graph run, the link resolved, the events mapped, the answer saved
 *   as it streams (memory store) — against the same turn through
 *   `runAgent` with the tool given directly (what `agent.round` measures
 *   the loop of). Target: ratio ≤ 1.3.
 * - `chat.retry.1e4`: a retry on a chat of 10⁴ messages against the model
 *   call it makes (`runAgent` answering the same user message vertex).
 *   Target: at most 10 µs more than that call. Before timing, a retry on
 *   the same chat in a SQLite store must write two vertices (the answer and
 *   its stop reason) and nothing of the history, or the benchmark fails.
 */
import { pipe } from 'fp-ts/lib/function.js'
import {
  addStep,
  assistant,
  type ChatStore,
  type Conversation,
  defaultInterpreters,
  empty,
  graph,
  llm,
  llmInterpreter,
  memoryChatStore,
  openChat,
  system,
  type Tool,
  toolbox,
  toolset,
  user,
} from '../src/index.js'
import { interpreters } from '../src/core.js'
import { runAgent } from '../src/interpreters/index.js'
import { sqliteStore } from '../src/store/index.js'
import { scriptedProvider, toolUse } from '../src/testing/index.js'
import { interleaveAsync, type Benchmark } from './harness.js'

const noop: Tool = {
  definition: { name: 'noop', description: 'does nothing', input_schema: { type: 'object' } },
  run: () => Promise.resolve('ok'),
}

const chatTurn: Benchmark = {
  name: 'chat.turn',
  run: async ({ rounds, log }) => {
    // Short samples: a sample that outlasts a scheduler time slice on a busy machine is cut in two.
    const TURNS = 50
    const g = pipe(
      graph('chat'),
      addStep({ id: 'tools', node: toolset('tools', { builtin: [], tools: [noop] }) }),
      addStep({ id: 'agent', node: llm('agent'), links: { tools: ['tools'] } }),
    )
    const script = [[toolUse('noop')], 'done']
    const box = toolbox(noop)
    log(`  ${TURNS} turns (a model call asking for one tool, the tool, the answer) per sample`)
    let k = 0
    const m = await interleaveAsync({
      rounds: rounds ?? 61,
      // Both sides at their steady state: a turn runs many more functions than the loop, each optimised later.
      warmup: 200,
      ours: async () => {
        const model = scriptedProvider(script, { loop: true, keep: 0 })
        const chat = openChat({
          id: `c${k++}`,
          graph: g,
          interpreters: interpreters(
            ...defaultInterpreters.values(),
            llmInterpreter({ providers: model }),
          ),
        })
        const t0 = performance.now()
        for (let i = 0; i < TURNS; i++) await chat.send('go')
        return { us: ((performance.now() - t0) * 1000) / TURNS }
      },
      baseline: async () => {
        const model = scriptedProvider(script, { loop: true, keep: 0 })
        let head: Conversation = system('')(empty)
        const t0 = performance.now()
        for (let i = 0; i < TURNS; i++) {
          head = (await runAgent(model, user('go')(head), { tools: box })).conversation
        }
        return { us: ((performance.now() - t0) * 1000) / TURNS }
      },
    })
    return [
      {
        name: 'chat.turn',
        unit: 'µs',
        median: m.ours.us,
        baseline: 'runAgent, the same turn with the tool given directly',
        baselineMedian: m.baseline.us,
        target: { ratio: 1.3 },
      },
    ]
  },
}

/** A chat of `n` messages kept in `store` under `id`, its head current. */
const longChat = (store: ChatStore, id: string, n: number): Conversation => {
  let head: Conversation = system('You help.')(empty)
  for (let i = 0; i < n; i++) head = (i % 2 === 0 ? user : assistant)(`message ${i}`)(head)
  store.saveChat({
    id,
    createdAt: '2026-01-01T00:00:00.000Z',
    current: head,
    heads: [head],
    metadata: {},
  })
  return head
}

const chatRetry: Benchmark = {
  name: 'chat.retry',
  run: async ({ rounds, log }) => {
    const N = 1e4
    const model = scriptedProvider(['again'], { loop: true, keep: 0 })
    const registry = interpreters(llmInterpreter({ providers: model }))

    // No copy of the history: a retry on the chat in a SQLite store writes the new vertices only.
    const db = sqliteStore(':memory:')
    longChat(db, 'long', N)
    const kept = openChat({ id: 'long', agent: llm('a'), interpreters: registry, store: db })
    const before = db.vertexCount()
    await kept.retry()
    const written = db.vertexCount() - before
    await db.close()
    if (written !== 2) throw new Error(`a retry wrote ${written} vertices, not 2`)

    const store = memoryChatStore()
    const head = longChat(store, 'long', N)
    const chat = openChat({ id: 'long', agent: llm('a'), interpreters: registry, store })
    const asked = head.parents[0]! // the last user message
    const RETRIES = 100
    log(`  ${RETRIES} retries per sample on a ${N}-message chat`)
    const m = await interleaveAsync({
      rounds: rounds ?? 61,
      warmup: 50,
      ours: async () => {
        const t0 = performance.now()
        for (let i = 0; i < RETRIES; i++) await chat.retry({ at: head })
        return { us: ((performance.now() - t0) * 1000) / RETRIES }
      },
      baseline: async () => {
        const t0 = performance.now()
        for (let i = 0; i < RETRIES; i++) await runAgent(model, asked)
        return { us: ((performance.now() - t0) * 1000) / RETRIES }
      },
    })
    return [
      {
        name: 'chat.retry.1e4',
        unit: 'µs',
        median: m.ours.us,
        baseline: 'the model call: runAgent on the same message vertex',
        baselineMedian: m.baseline.us,
        target: { median: m.baseline.us + 10 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [chatTurn, chatRetry]
