/**
 * Graph and runtime benchmarks (issue 3), each against a baseline measured in
 * the same run:
 *
 * - `graph.validate`: `validate` + `executionOrder` of a fresh 10⁵-step graph
 *   with 3·10⁵ dependencies, against a plain typed-array Kahn sort of the same
 *   edges; `graph.build` reports what `addStep` costs to build it (some of
 *   the checking happens there), against a `Map` of ids and typed arrays.
 *   `.shuffled`: the same DAG with its steps added in a random order, so
 *   dependencies are often added after their dependents.
 * - `runtime.chain` / `runtime.fanout`: a Nerve run of 10⁴ steps of a
 *   trivial async function (a chain; independent steps at most 8 at once),
 *   trace and events on, against `for … await fn()` and a pool of 8 async
 *   workers calling the same function.
 * - `runtime.peer.*`: a 10³-step chain and fan-out in LangGraph.js
 *   (`StateGraph`; the fan-out is START → each node → END, one superstep),
 *   the baseline, against the same shapes in Nerve (no parallel limit on
 *   either side), every step a trivial function. LangGraph runs in a worker
 *   thread: its AsyncLocalStorage would slow every promise in this isolate.
 *
 * The runtime samples are not preceded by a forced full GC, unlike the
 * synchronous ones: a full GC frees the maps that the optimised runtime code
 * embeds, V8 deoptimises that code ("weak objects"), and a run of 10³–10⁴
 * steps then measures re-optimisation — 10× slower per step at 10³. Each
 * benchmark collects once before it warms up, and V8 collects as it needs.
 */
import { Worker } from 'node:worker_threads'
import * as E from 'fp-ts/lib/Either.js'
import {
  addStep,
  defaultInterpreters,
  fn,
  graph,
  type Graph,
  run,
  type RunResult,
  type StepSpec,
  validate,
} from '../src/index.js'
import { executionOrder } from '../src/core.js'
import { gc, interleave, interleaveAsync, timeUs, type Benchmark, type Result } from './harness.js'
import { kahnOrder, randomDag, shuffle, type Rows } from './randomDag.js'

// ---------------------------------------------------------------- graph.validate

const STEPS = 1e5
const DEPS_PER_STEP = 3
const SEED = 20_251_122

interface GraphFixture {
  readonly dag: Rows
  readonly ids: readonly string[]
  /** The steps in the order they are added. */
  readonly specs: readonly StepSpec[]
}

const trivial = (): number => 1
const one = fn('one', trivial)

const graphFixture = (shuffled: boolean): GraphFixture => {
  const dag = randomDag(STEPS, DEPS_PER_STEP, SEED)
  const ids = Array.from({ length: STEPS }, (_, i) => `s${i}`)
  const at = shuffled ? shuffle(STEPS, SEED + 1) : undefined
  const specs: StepSpec[] = []
  for (let k = 0; k < STEPS; k++) {
    const i = at === undefined ? k : at[k]!
    const dependsOn: string[] = []
    for (let d = dag.offsets[i]!; d < dag.offsets[i + 1]!; d++)
      dependsOn.push(ids[dag.targets[d]!]!)
    specs.push({ id: ids[i]!, node: one, dependsOn })
  }
  return { dag, ids, specs }
}

/** Throws unless `order` lists every step once, each after all its dependencies. */
const checkOrder = (fx: GraphFixture, order: readonly string[]): void => {
  const position = new Map<string, number>()
  order.forEach((id, k) => position.set(id, k))
  if (position.size !== STEPS) throw new Error(`order has ${position.size} of ${STEPS} steps`)
  for (let i = 0; i < STEPS; i++) {
    for (let d = fx.dag.offsets[i]!; d < fx.dag.offsets[i + 1]!; d++) {
      if (position.get(fx.ids[fx.dag.targets[d]!]!)! > position.get(fx.ids[i]!)!) {
        throw new Error(`step ${fx.ids[i]!} comes before its dependency`)
      }
    }
  }
}

/** Builds a fresh graph (compile is memoised per graph) and times building, then checking. */
const nerveGraphSample = (fx: GraphFixture, check: boolean): { build: number; check: number } => {
  gc()
  let g: Graph = graph('bench')
  const buildUs = timeUs(() => {
    for (const spec of fx.specs) g = addStep(spec)(g)
  })
  gc()
  let order: readonly string[] = []
  const checkUs = timeUs(() => {
    const valid = validate(g)
    const ordered = executionOrder(g)
    if (E.isLeft(valid) || E.isLeft(ordered)) throw new Error('the benchmark graph is not valid')
    order = ordered.right
  })
  if (check) checkOrder(fx, order)
  return { build: buildUs / 1e3, check: checkUs / 1e3 }
}

/** The plain way: a `Map` from id to index and typed arrays, then Kahn's sort. */
const plainGraphSample = (fx: GraphFixture, check: boolean): { build: number; check: number } => {
  gc()
  let deps: Rows = { offsets: new Int32Array(0), targets: new Int32Array(0) }
  const buildUs = timeUs(() => {
    const index = new Map<string, number>()
    fx.specs.forEach((s, i) => index.set(s.id, i))
    const offsets = new Int32Array(STEPS + 1)
    let total = 0
    for (let i = 0; i < STEPS; i++) {
      total += fx.specs[i]!.dependsOn?.length ?? 0
      offsets[i + 1] = total
    }
    const targets = new Int32Array(total)
    let e = 0
    for (const s of fx.specs) for (const d of s.dependsOn ?? []) targets[e++] = index.get(d) ?? -1
    deps = { offsets, targets }
  })
  gc()
  let order: string[] = []
  const checkUs = timeUs(() => {
    const sorted = kahnOrder(STEPS, deps)
    if (sorted === undefined) throw new Error('the benchmark graph has a cycle')
    order = Array.from(sorted, (i) => fx.specs[i]!.id)
  })
  if (check) checkOrder(fx, order)
  return { build: buildUs / 1e3, check: checkUs / 1e3 }
}

const graphBench =
  (shuffled: boolean): Benchmark['run'] =>
  ({ rounds, log }) => {
    const fx = graphFixture(shuffled)
    log(`  ${STEPS} steps, ${fx.dag.targets.length} dependencies${shuffled ? ', shuffled' : ''}`)
    nerveGraphSample(fx, true)
    plainGraphSample(fx, true)
    const m = interleave({
      rounds: rounds ?? 7,
      warmup: 1,
      ours: () => nerveGraphSample(fx, false),
      baseline: () => plainGraphSample(fx, false),
    })
    const suffix = shuffled ? '.shuffled' : ''
    return [
      {
        name: `graph.validate${suffix}`,
        unit: 'ms',
        median: m.ours.check,
        baseline: 'typed-array Kahn sort',
        baselineMedian: m.baseline.check,
        target: { median: 100 },
      },
      {
        name: `graph.build${suffix}`,
        unit: 'ms',
        median: m.ours.build,
        baseline: 'Map of ids + typed arrays',
        baselineMedian: m.baseline.build,
        ...(shuffled ? {} : { target: { ratio: 2 } }),
      },
    ]
  }

// ---------------------------------------------------------------- runtime.chain, runtime.fanout

const RUNTIME_STEPS = 1e4
const POOL = 8

/** The work of every runtime step and baseline task: an async function with nothing to do. */
const work = (): Promise<number> => Promise.resolve(1)
const workNode = fn('work', work)

/** `n` steps running {@link workNode}: each depends on the one before (chain), or none does. */
const nerveGraph = (shape: 'chain' | 'fanout', n: number): Graph => {
  let g = graph(shape)
  for (let i = 0; i < n; i++) {
    g = addStep({
      id: `s${i}`,
      node: workNode,
      ...(shape === 'chain' && i > 0 && { dependsOn: [`s${i - 1}`] }),
    })(g)
  }
  return g
}

/** µs per step of one awaited `body` of `n` steps. */
const usPerStep = async (n: number, body: () => Promise<unknown>): Promise<{ us: number }> => {
  const start = process.hrtime.bigint()
  await body()
  return { us: Number(process.hrtime.bigint() - start) / 1e3 / n }
}

/**
 * A sampler of Nerve runs of `n` steps, µs per step: one graph built up front
 * (it is compiled by the first, warm-up, run and memoised), trace always on,
 * every event received by a listener. The last result is kept, as a caller
 * would keep it.
 */
const nerveRunner = (shape: 'chain' | 'fanout', n: number, maxParallel: number) => {
  const g = nerveGraph(shape, n)
  let seen = 0
  const onEvent = (): void => {
    seen++
  }
  const options = { interpreters: defaultInterpreters, maxParallel, onEvent }
  let last: RunResult | undefined
  return async (): Promise<{ us: number }> => {
    seen = 0
    const sample = await usPerStep(n, async () => {
      last = await run(g, options)
    })
    // graph_started, step_start and step_complete per step, graph_completed.
    if (last?.trace.records.length !== n || seen !== 2 * n + 2) {
      throw new Error(`${shape}: ${last?.trace.records.length ?? 0} records, ${seen} events`)
    }
    return sample
  }
}

/** `for … await work()`, µs per call. */
const plainLoop = async (n: number): Promise<{ us: number }> => {
  let sum = 0
  const sample = await usPerStep(n, async () => {
    for (let i = 0; i < n; i++) sum += await work()
  })
  if (sum !== n) throw new Error('the loop lost a call')
  return sample
}

/** {@link POOL} async workers pulling the next index from a shared counter, µs per task. */
const plainPool = async (n: number): Promise<{ us: number }> => {
  let next = 0
  let sum = 0
  const worker = async (): Promise<void> => {
    while (next < n) {
      next++
      const v = await work() // not `sum += await …`: that reads `sum` before the await
      sum += v
    }
  }
  const sample = await usPerStep(n, () => Promise.all(Array.from({ length: POOL }, worker)))
  if (sum !== n) throw new Error('the pool lost a task')
  return sample
}

const runtimeBench =
  (shape: 'chain' | 'fanout'): Benchmark['run'] =>
  async ({ rounds }) => {
    const ours = nerveRunner(shape, RUNTIME_STEPS, shape === 'chain' ? Infinity : POOL)
    gc() // once, before warming up: see the top of the file
    const m = await interleaveAsync({
      rounds: rounds ?? 15,
      warmup: 2,
      ours,
      baseline: () => (shape === 'chain' ? plainLoop(RUNTIME_STEPS) : plainPool(RUNTIME_STEPS)),
    })
    return [
      {
        name: `runtime.${shape}`,
        unit: 'µs/step',
        median: m.ours.us,
        baseline: shape === 'chain' ? 'for … await fn()' : `pool of ${POOL} async workers`,
        baselineMedian: m.baseline.us,
        target: { median: 3 },
      },
    ]
  }

// ---------------------------------------------------------------- runtime.peer

const PEER_STEPS = 1e3

/** A LangGraph.js runner in a worker thread (see bench/peer.worker.ts): one invoke per call. */
const langGraphWorker = () => {
  const worker = new Worker(new URL('./peer.worker.js', import.meta.url))
  const sample = (shape: 'chain' | 'fanout'): Promise<{ us: number }> =>
    new Promise((resolve, reject) => {
      worker.once('message', (m: { us?: number; error?: string }) => {
        if (m.us !== undefined) resolve({ us: m.us })
        else reject(new Error(m.error))
      })
      worker.once('error', reject)
      worker.postMessage({ shape, steps: PEER_STEPS })
    })
  return { sample, close: () => worker.terminate() }
}

const peerBench =
  (shape: 'chain' | 'fanout'): Benchmark['run'] =>
  async ({ rounds }): Promise<readonly Result[]> => {
    const peer = langGraphWorker()
    try {
      const once = nerveRunner(shape, PEER_STEPS, Infinity)
      // A LangGraph invoke takes ~1 s; one of ours ~1 ms, so a sample of ours
      // averages 10 runs to keep timer and GC noise from a single run out of it.
      const ours = async (): Promise<{ us: number }> => {
        let us = 0
        for (let k = 0; k < 10; k++) us += (await once()).us
        return { us: us / 10 }
      }
      gc() // once, before warming up: see the top of the file
      // One LangGraph invoke warms LangGraph up; ours needs more runs of 10³ steps to be optimised.
      for (let i = 0; i < 20; i++) await once()
      const m = await interleaveAsync({
        rounds: rounds ?? 5,
        warmup: 1,
        ours,
        baseline: () => peer.sample(shape),
      })
      return [
        {
          name: `runtime.peer.${shape}`,
          unit: 'µs/step',
          median: m.ours.us,
          baseline: 'LangGraph.js StateGraph (own worker thread)',
          baselineMedian: m.baseline.us,
          target: { ratio: 0.001 },
        },
      ]
    } finally {
      await peer.close()
    }
  }

/** The graph benchmarks, then the runtime ones, in the order they run. */
export const benchmarks: readonly Benchmark[] = [
  { name: 'graph.validate', run: graphBench(false) },
  { name: 'graph.validate.shuffled', run: graphBench(true) },
  { name: 'runtime.chain', run: runtimeBench('chain') },
  { name: 'runtime.fanout', run: runtimeBench('fanout') },
  { name: 'runtime.peer.chain', run: peerBench('chain') },
  { name: 'runtime.peer.fanout', run: peerBench('fanout') },
]
