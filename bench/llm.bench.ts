/**
 * LLM node and agent loop benchmarks (issue 5), each against a baseline
 * measured in the same run:
 *
 * - `llm.fork.1e2` / `llm.fork.1e4`: `fork(session, 'dev', name)` of an LLM
 *   node holding a conversation of 10² and 10⁴ messages — the fork must be
 *   O(1), so both sizes should cost the same — against copying the node
 *   record under a new id into a Map (the least a fork can do).
 * - `llm.fork.turn`: one turn (execute) on a fork of the 10⁴-message node
 *   with the scripted provider, against a hand-written turn (copy the message
 *   array, append the input, call the same provider).
 * - `agent.round`: the loop's cost per round (a model call asking for one
 *   no-op tool, the tool run, the results merged), `runAgent` with the
 *   scripted provider against a hand-written loop making the same calls on a
 *   plain message array.
 */
import {
  assistant,
  type Block,
  type Conversation,
  createSession,
  empty,
  fork,
  llm,
  llmInterpreter,
  type Message,
  type Provider,
  system,
  type Tool,
  toolbox,
  user,
} from '../src/index.js'
import { interpreters } from '../src/core.js'
import { runAgent } from '../src/interpreters/index.js'
import { setConversation } from '../src/session/index.js'
import { scriptedProvider, toolUse } from '../src/testing/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const conversationOf = (n: number): Conversation => {
  let c = system('You help.')(empty)
  for (let i = 0; i < n; i++) c = (i % 2 === 0 ? user : assistant)(`message ${i}`)(c)
  return c
}

const noop: Tool = {
  definition: { name: 'noop', description: 'does nothing', input_schema: { type: 'object' } },
  run: () => Promise.resolve('ok'),
}

const forkBench: Benchmark = {
  name: 'llm.fork',
  run: async ({ rounds, log }) => {
    const forks = 2000
    const results: Result[] = []
    const turns: { ours: number; baseline: number }[] = []
    for (const n of [1e2, 1e4]) {
      const model = scriptedProvider(['ok'], { loop: true })
      const session = createSession({
        interpreters: interpreters(llmInterpreter({ providers: model })),
      })
      const node = session.register(llm('dev'))
      await session.start('dev')
      const head = conversationOf(n)
      setConversation(session, 'dev', head)
      const copies = new Map<string, unknown>()
      let sample = 0
      log(`  ${forks} forks per sample of a ${n}-message LLM node`)
      const m = await interleaveAsync({
        rounds: rounds ?? 21,
        warmup: 5,
        ours: async () => {
          const names = Array.from({ length: forks }, (_, k) => `f${sample}-${k}`)
          sample++
          const t0 = performance.now()
          for (const name of names) await fork(session, 'dev', name)
          const us = ((performance.now() - t0) * 1000) / forks
          for (const name of names) session.unregister(name)
          return { us }
        },
        baseline: async () => {
          const t0 = performance.now()
          for (let k = 0; k < forks; k++) {
            const id = `b${k}`
            copies.set(id, Object.freeze({ ...node, id, metadata: { forked_from: node.id } }))
            await Promise.resolve()
          }
          const us = ((performance.now() - t0) * 1000) / forks
          copies.clear()
          return { us }
        },
      })
      results.push({
        name: `llm.fork.${n === 1e2 ? '1e2' : '1e4'}`,
        unit: 'µs',
        median: m.ours.us,
        baseline: 'copy the node record into a Map',
        baselineMedian: m.baseline.us,
        target: { median: 5 },
      })
      if (n === 1e4) {
        const plain: Message[] = []
        for (let i = 0; i < n; i++) {
          plain.push({
            type: 'message',
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: `message ${i}`,
          })
        }
        let k = 0
        const t = await interleaveAsync({
          rounds: rounds ?? 15,
          warmup: 3,
          ours: async () => {
            const name = `turn${k++}`
            await fork(session, 'dev', name)
            const t0 = performance.now()
            await session.execute(name, 'one more')
            const ms = performance.now() - t0
            session.unregister(name)
            return { ms }
          },
          baseline: async () => {
            const t0 = performance.now()
            const msgs: Message[] = [
              ...plain,
              { type: 'message', role: 'user', content: 'one more' },
            ]
            const r = await model.call(
              { system: 'You help.', messages: msgs, tools: [] },
              { signal: new AbortController().signal },
            )
            msgs.push({ type: 'message', role: 'assistant', content: r.content })
            return { ms: performance.now() - t0 }
          },
        })
        turns.push({ ours: t.ours.ms, baseline: t.baseline.ms })
      }
      await session.close()
    }
    const turn = turns[0]!
    results.push({
      name: 'llm.fork.turn.1e4',
      unit: 'ms',
      median: turn.ours,
      baseline: 'hand-written turn on a message array',
      baselineMedian: turn.baseline,
    })
    return results
  },
}

/** The baseline of `agent.round`: the same calls on a plain message array. */
const handWritten = async (model: Provider): Promise<void> => {
  const signal = new AbortController().signal
  const msgs: Message[] = [{ type: 'message', role: 'user', content: 'go' }]
  for (;;) {
    const r = await model.call(
      { system: 'You help.', messages: msgs.slice(), tools: [noop.definition] },
      { signal },
    )
    msgs.push({ type: 'message', role: 'assistant', content: r.content })
    const uses = r.content.filter((b) => b.type === 'tool_use')
    if (uses.length === 0) return
    const outs = await Promise.all(
      uses.map((u) => noop.run(u.input, { signal, toolUseId: u.id, depth: 0 })),
    )
    msgs.push({
      type: 'message',
      role: 'user',
      content: uses.map((u, i): Block => ({
        type: 'tool_result',
        tool_use_id: u.id,
        content: outs[i] as string,
      })),
    })
  }
}

const agentRound: Benchmark = {
  name: 'agent.round',
  run: async ({ rounds, log }) => {
    const R = 200
    // Runs per sample: long enough that one scavenge does not make a sample.
    const RUNS = 5
    const script = [...Array.from({ length: R }, () => [toolUse('noop')]), 'done']
    const start = user('go')(system('You help.')(empty))
    const box = toolbox(noop)
    log(`  ${RUNS} runs of ${R} rounds (one no-op tool call each) per sample`)
    const m = await interleaveAsync({
      rounds: rounds ?? 31,
      // Both loops at their steady state: the optimising compiler is done with both.
      warmup: 20,
      ours: async () => {
        const t0 = performance.now()
        for (let k = 0; k < RUNS; k++) {
          await runAgent(scriptedProvider(script), start, { tools: box, maxToolRounds: R })
        }
        return { us: ((performance.now() - t0) * 1000) / (R * RUNS) }
      },
      baseline: async () => {
        const t0 = performance.now()
        for (let k = 0; k < RUNS; k++) await handWritten(scriptedProvider(script))
        return { us: ((performance.now() - t0) * 1000) / (R * RUNS) }
      },
    })
    return [
      {
        name: 'agent.round',
        unit: 'µs',
        median: m.ours.us,
        baseline: 'hand-written loop, same provider and tool',
        baselineMedian: m.baseline.us,
        target: { ratio: 3 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [forkBench, agentRound]
