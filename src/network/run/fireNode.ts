/**
 * One firing of a node: the loop bound and the budget checked first (a
 * node over either is halted and keeps what it took as unprocessed), the
 * text it is sent (an auto node's prompt, then ticks; an interactive
 * node's envelopes), its assignment's write locks, one one-step runtime
 * run with what is left of the budgets, usage counted up, and the result
 * handed to {@link settle}.
 *
 * @internal
 */
import { addStep, graph } from '../../graph/index.js'
import { run, type RunUsage } from '../../runtime/index.js'
import type { Envelope } from '../model/Envelope.js'
import { inputText, tickText } from './firing.js'
import type { NetworkNode } from '../model/Network.js'
import { MaxIterationsExceeded } from './NetworkError.js'
import { sessionNodeOf } from './providers.js'
import { firingBudget, rollUp } from './budgets.js'
import { type NodeRun, type RunState } from './runState.js'
import { settle } from './settle.js'

/** Fires `node` with what {@link select} took; resolves when the firing is settled. */
export const fire = async (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
  envelopes: readonly Envelope[],
  message: string | undefined,
): Promise<void> => {
  const loop = s.loopOf.get(node.id) ?? (node.mode === 'auto' ? [node.id] : undefined)
  const max = s.net.limits.maxIterations
  if (loop !== undefined && st.iterations >= max) {
    s.unprocessed.push(...envelopes)
    s.halt(loop, new MaxIterationsExceeded(loop, node.id, max))
    return
  }
  const budget = firingBudget(s, node, st)
  if (budget === false) {
    s.unprocessed.push(...envelopes)
    return
  }
  st.iterations++
  st.inFlight = true
  s.inFlight++
  const iteration = st.iterations
  const { text, causes } = firingText(s, node, st, envelopes, message, iteration)
  s.emit({ type: 'firing', nodeId: node.id, iteration, causedBy: causes })
  const began = s.clock.now()
  const firing = new AbortController()
  st.firing = firing
  const signal = AbortSignal.any([s.abort.signal, firing.signal])
  let ok = true
  let used: RunUsage = NONE
  try {
    const release =
      node.assignment === undefined
        ? undefined
        : await s.locks.acquire(
            node.id,
            node.assignment.map((path) => ({ path, mode: 'write' as const })),
            signal,
          )
    let output: unknown
    let failure: unknown
    try {
      const step = s.session.get(node.id) ?? sessionNodeOf(node, s.options.root)
      await s.agents.prepare(node, budget)
      if (s.startsIn(node.id)) await s.session.start(node.id)
      const result = await run(addStep({ id: node.id, node: step })(graph(`${node.id}-firing`)), {
        input: text,
        interpreters: s.registry,
        session: s.session,
        handles: s.agents.handles,
        clock: s.clock,
        signal,
        runId: `${s.runId}.${node.id}.${iteration}`,
        ...(budget !== undefined && { budget }),
      })
      output = result.results[node.id]
      used = result.metrics.usage
    } catch (e) {
      failure = e
      used = usageOfTrace(e)
    } finally {
      release?.()
    }
    if (s.cancelled || firing.signal.aborted) return
    await settle(s, node, st, causes, output, failure)
    ok = failure === undefined
  } catch (e) {
    ok = false
    if (!s.cancelled) s.halt([node.id], e instanceof Error ? e : new Error(String(e)))
  } finally {
    const elapsed = s.clock.now() - began
    rollUp(s, node, st, used, elapsed)
    st.inFlight = false
    st.firing = undefined
    s.inFlight--
    s.locks.releaseAll(node.id)
    s.emit({
      type: 'fired',
      nodeId: node.id,
      iteration,
      ok,
      durationMs: elapsed,
    })
    s.pump()
  }
}

/**
 * What a firing sends the node, and the envelopes it is caused by: an auto
 * node's first iteration is its prompt (with what it took), later ones a
 * recorded `tick` envelope; an interactive node gets the message and the
 * envelopes.
 */
const firingText = (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
  envelopes: readonly Envelope[],
  message: string | undefined,
  iteration: number,
): { readonly text: string; readonly causes: readonly string[] } => {
  // a firing with nothing new (a manual trigger) acts on what the node last saw or said: that is
  // its cause, so the envelope DAG keeps one root — the first message — not one per trigger
  const causes = envelopes.length > 0 ? envelopes.map((e) => e.id) : lastOf(s, node.id)
  if (node.mode !== 'auto') {
    const text = [message, envelopes.length > 0 ? inputText(envelopes) : undefined]
      .filter((x): x is string => x !== undefined)
      .join('\n\n')
    return { text, causes }
  }
  const first = !st.started
  st.started = true
  const notes = st.notes.splice(0)
  if (first && node.prompt !== undefined) {
    const text = [node.prompt, envelopes.length > 0 ? inputText(envelopes) : '']
      .filter((x) => x !== '')
      .join('\n\n')
    return { text, causes }
  }
  const text = tickText(iteration, envelopes, message === undefined ? notes : [message, ...notes])
  return { text, causes: [s.record('tick', node.id, node.id, { message: text }, causes).id] }
}

/** The id of the last envelope to or from `nodeId`, if any. */
const lastOf = (s: RunState, nodeId: string): readonly string[] => {
  const vs = s.log.vertices()
  for (let i = vs.length - 1; i >= 0; i--) {
    const e = vs[i]!.data
    if (e.toNodeId === nodeId || e.fromNodeId === nodeId) return [e.id]
  }
  return []
}

const NONE: RunUsage = Object.freeze({ tokens: 0, apiCalls: 0, cost: 0 })

/** What the steps of a failed firing's partial trace used. */
const usageOfTrace = (e: unknown): RunUsage => {
  const records =
    (e as { trace?: { records?: readonly { data: RunUsage }[] } }).trace?.records ?? []
  let tokens = 0
  let apiCalls = 0
  let cost = 0
  for (const r of records) {
    tokens += r.data.tokens
    apiCalls += r.data.apiCalls
    cost += r.data.cost
  }
  return { tokens, apiCalls, cost }
}
