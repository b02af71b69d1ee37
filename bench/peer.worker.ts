/**
 * The LangGraph.js side of `runtime.peer.*`, in a worker thread of its own.
 *
 * LangGraph keeps its run context in an `AsyncLocalStorage`; once one is used,
 * Node installs promise hooks for the whole isolate, and every promise of
 * everything else in it costs more (a Nerve run of 10³ steps measured 25–60%
 * slower per step next to it). In its own isolate each library is measured
 * as a user running only it would see it. Each message `{ shape, steps }` runs
 * one invoke of that shape and size and answers `{ us }`, µs per step.
 */
import events from 'node:events'
import { parentPort } from 'node:worker_threads'
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'

const PeerState = Annotation.Root({
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
})

const peerNode = (): { count: number } => ({ count: 1 })

const peerNodes = (n: number): Record<string, typeof peerNode> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}`, peerNode]))

/** n0 → n1 → … → n(n-1), from START to END. */
const langGraphChain = (n: number) => {
  const b = new StateGraph(PeerState).addNode(peerNodes(n))
  b.addEdge(START, 'n0')
  for (let i = 1; i < n; i++) b.addEdge(`n${i - 1}`, `n${i}`)
  b.addEdge(`n${n - 1}`, END)
  return b.compile()
}

/** START → each node → END: one superstep of `n` parallel nodes. */
const langGraphFanout = (n: number) => {
  const b = new StateGraph(PeerState).addNode(peerNodes(n))
  for (let i = 0; i < n; i++) b.addEdge(START, `n${i}`).addEdge(`n${i}`, END)
  return b.compile()
}

type PeerApp = ReturnType<typeof langGraphChain>

/** µs per step of one `invoke`, checking every node ran. */
const sample = async (app: PeerApp, n: number): Promise<number> => {
  const start = process.hrtime.bigint()
  const out = await app.invoke({ count: 0 }, { recursionLimit: n + 10 })
  const us = Number(process.hrtime.bigint() - start) / 1e3 / n
  if (out.count !== n) throw new Error(`LangGraph ran ${out.count} of ${n} nodes`)
  return us
}

// LangGraph adds an abort listener per task to one signal: past 10 parallel
// tasks Node would print a MaxListenersExceeded warning.
events.defaultMaxListeners = 0

const apps = new Map<string, PeerApp>()
parentPort?.on('message', ({ shape, steps }: { shape: 'chain' | 'fanout'; steps: number }) => {
  const key = `${shape} ${steps}`
  let app = apps.get(key)
  if (app === undefined) {
    app = shape === 'chain' ? langGraphChain(steps) : langGraphFanout(steps)
    apps.set(key, app)
  }
  sample(app, steps).then(
    (us) => {
      // Answer once this isolate's collector has had its time: its background
      // threads would otherwise share the CPU with the side measured next.
      setTimeout(() => parentPort?.postMessage({ us }), 250)
    },
    (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) }),
  )
})
