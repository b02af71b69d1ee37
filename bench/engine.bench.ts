/**
 * Engine benchmarks (issue 11), in process, no socket:
 *
 * - `engine.dispatch`: a PING through `engine.connect` — the line read and
 *   checked, the params decoded, the command run, the answer written —
 *   against a raw NDJSON echo handler (parse the line, write
 *   `{ id, result }`) answering on the same microtask boundary, in µs per
 *   call. Target: ≤ 5× raw.
 * - `engine.execute`: `echo hi` on a PTY bash through `EXECUTE_INPUT`
 *   (events, busy/ready, history off) against `Session.execute` on a PTY
 *   node in the same process, in ms: what the engine adds to the session.
 *   Target (issue 25): ≤ 1.2× the session.
 */
import { createSession, defaultInterpreters, pty } from '../src/index.js'
import { interpreters } from '../src/core.js'
import { ptyInterpreter } from '../src/interpreters/index.js'
import { createEngine, type Engine, type EngineConnection } from '../src/server/index.js'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const BASH = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '', SHLVL: '1' },
} as const

const now = (): number => performance.now()

/** A connection whose answers resolve the call waiting for them. */
const caller = (receive: (line: string) => void) => {
  let waiting: ((line: string) => void) | undefined
  let next = 0
  return {
    sink: (line: string): boolean => {
      const w = waiting
      waiting = undefined
      w?.(line)
      return true
    },
    call: (method: string, params: object): Promise<string> =>
      new Promise((resolve) => {
        waiting = resolve
        receive(JSON.stringify({ jsonrpc: '2.0', id: ++next, method, params }))
      }),
  }
}

/** A caller on a new connection of `engine`. */
const connected = (engine: Engine) => {
  const box: { connection?: EngineConnection } = {}
  const c = caller((line) => {
    box.connection!.receive(line)
  })
  box.connection = engine.connect({ send: c.sink })
  return c
}

const BATCH = 2000

const dispatch: Benchmark = {
  name: 'engine.dispatch',
  run: async ({ rounds }) => {
    const engine = createEngine({ history: false, env: {} })
    const ours = connected(engine)
    const raw: ReturnType<typeof caller> = caller((line) => {
      void Promise.resolve().then(() => {
        const m = JSON.parse(line) as { id: number }
        raw.sink(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pong: true } }))
      })
    })
    const batch = async (c: ReturnType<typeof caller>) => {
      const t0 = now()
      for (let i = 0; i < BATCH; i++) await c.call('PING', {})
      return { us: ((now() - t0) * 1000) / BATCH }
    }
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 21,
      warmup: 3,
      ours: () => batch(ours),
      baseline: () => batch(raw),
    })
    await engine.shutdown()
    const result: Result = {
      name: 'engine.dispatch',
      unit: 'µs/call',
      median: o.us,
      baseline: 'raw NDJSON echo',
      baselineMedian: b.us,
      target: { ratio: 5 },
    }
    return [result]
  },
}

const execute: Benchmark = {
  name: 'engine.execute',
  run: async ({ rounds }) => {
    const engine = createEngine({ history: false, env: {} })
    const ours = connected(engine)
    await ours.call('CREATE_NODE', { nodeId: 'sh', kind: 'pty', options: BASH })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), ptyInterpreter()),
    })
    session.register(pty('sh', BASH))
    await session.start('sh')
    const { ours: o, baseline: b } = await interleaveAsync({
      rounds: rounds ?? 300,
      warmup: 30,
      ours: async () => {
        const t0 = now()
        const line = await ours.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo hi' })
        const ms = now() - t0
        if (!line.includes('"text":"hi"')) throw new Error(`engine.execute: got ${line}`)
        return { ms }
      },
      baseline: async () => {
        const t0 = now()
        const r = (await session.execute('sh', 'echo hi')) as { text: string }
        const ms = now() - t0
        if (r.text !== 'hi') throw new Error(`engine.execute: the session got ${r.text}`)
        return { ms }
      },
    })
    await Promise.all([engine.shutdown(), session.close()])
    return [
      {
        name: 'engine.execute',
        unit: 'ms',
        median: o.ms,
        baseline: 'Session.execute on a PTY',
        baselineMedian: b.ms,
        target: { ratio: 1.2 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [dispatch, execute]
