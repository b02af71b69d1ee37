import type { NodeState } from '../../node/index.js'
import type { RunEvent } from '../../runtime/index.js'
import type { SessionEvent } from '../../session/index.js'
import type { EngineEvent, NodeEvent } from '../../protocol/index.js'
import { errorShape } from './json.js'

const NODE_TYPES: Readonly<Record<string, NodeEvent['type'] | undefined>> = {
  created: 'NODE_CREATED',
  ready: 'NODE_READY',
  busy: 'NODE_BUSY',
  respawned: 'NODE_RESPAWNED',
  stopped: 'NODE_STOPPED',
  forked: 'NODE_FORKED',
  removed: 'NODE_DELETED',
}

const STATES: Readonly<Record<string, NodeState>> = {
  created: 'created',
  ready: 'ready',
  busy: 'busy',
  stopped: 'stopped',
  removed: 'stopped',
}

/**
 * The engine event of a session event (`starting` has none). `state` is
 * the node's state the event tells of; for a fork, `stateOf` gives it.
 */
export const nodeEvent = (
  e: SessionEvent,
  stateOf: (name: string) => NodeState | undefined,
): NodeEvent | undefined => {
  const type = NODE_TYPES[e.type]
  // Only node events map (a session may also tell its readers of events they missed).
  if (type === undefined || !('name' in e)) return undefined
  return Object.freeze({
    type,
    time: e.time,
    sessionId: e.session,
    nodeId: e.name,
    kind: e.kind,
    state: STATES[e.type] ?? stateOf(e.name) ?? 'created',
    ...(e.from !== undefined && { from: e.from }),
  })
}

/** The longest text an event carries whole; a longer one keeps its end. */
const EVENT_TEXT = 64 * 1024

/** `u` with each text in it (down to `depth` levels) longer than {@link EVENT_TEXT} cut to its end: `u` itself when none is. */
const cutTexts = (u: unknown, cut: { any: boolean }, depth: number): unknown => {
  if (typeof u === 'string') {
    if (u.length <= EVENT_TEXT) return u
    cut.any = true
    return u.slice(-EVENT_TEXT)
  }
  if (depth === 0 || typeof u !== 'object' || u === null) return u
  // Plain objects and arrays only: a buffer or a class's value is sent as it is.
  const proto = Object.getPrototypeOf(u) as unknown
  if (!Array.isArray(u) && proto !== Object.prototype && proto !== null) return u
  const entries = Object.entries(u)
  const cutOnes = entries.map(([k, v]) => [k, cutTexts(v, cut, depth - 1)] as const)
  if (cutOnes.every(([, v], i) => v === entries[i]![1])) return u
  return Array.isArray(u) ? cutOnes.map(([, v]) => v) : Object.fromEntries(cutOnes)
}

/**
 * A step's output or a node's answer as an event carries it to every
 * subscriber (`STEP_COMPLETED`, `OUTPUT_PARSED`): its long texts cut to
 * their last 64 KiB, marked `truncated`. Whoever needs it whole has it from
 * the request that made it (`EXECUTE_INPUT`'s result, `GET_RUN`'s results),
 * and its text came whole as `OUTPUT_CHUNK`s.
 */
export const eventOutput = (output: unknown): { output: unknown; truncated?: true } => {
  const cut = { any: false }
  const kept = cutTexts(output, cut, 4)
  return cut.any ? { output: kept, truncated: true } : { output }
}

/**
 * Maps the events of one run to engine events. `nodeOf` remembers which
 * node each step runs (from `step_start`), so output chunks can name it.
 * With `chunksOf` (an execute of that one node), only output chunks are
 * told, as that node's.
 */
export const runEvents = (
  sessionId: string,
  publish: (event: EngineEvent) => void,
  now: () => string,
  options: { readonly chunksOf?: string } = {},
): ((e: RunEvent) => void) => {
  const nodeOf = new Map<string, string>()
  const iso = (ms: number) => new Date(ms).toISOString()
  const map = (e: RunEvent): EngineEvent | undefined => {
    switch (e.type) {
      case 'step_start':
        nodeOf.set(e.path.join('/'), e.nodeId)
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'STEP_STARTED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          stepId: e.stepId,
          path: e.path,
          nodeId: e.nodeId,
          attempt: e.attempt,
        }
      case 'step_chunk': {
        const nodeId = options.chunksOf ?? nodeOf.get(e.path.join('/')) ?? e.stepId
        return {
          type: 'OUTPUT_CHUNK',
          time: now(),
          sessionId,
          nodeId,
          chunk: e.chunk,
          ...(options.chunksOf === undefined && { runId: e.runId, stepId: e.stepId }),
        }
      }
      case 'graph_started':
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'GRAPH_STARTED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          graphId: e.graphId,
          path: e.path,
        }
      case 'step_complete':
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'STEP_COMPLETED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          stepId: e.stepId,
          path: e.path,
          status: e.status,
          ...eventOutput(e.output),
          durationMs: e.durationMs,
        }
      case 'step_error':
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'STEP_FAILED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          stepId: e.stepId,
          path: e.path,
          attempt: e.attempt,
          final: e.final,
          error: errorShape(e.error),
        }
      case 'node_respawned':
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'RUN_NODE_RESPAWNED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          path: e.path,
          nodeId: e.nodeId,
          kind: e.kind,
        }
      case 'graph_completed':
        if (options.chunksOf !== undefined) return undefined
        return {
          type: 'GRAPH_COMPLETED',
          time: iso(e.time),
          sessionId,
          runId: e.runId,
          graphId: e.graphId,
          path: e.path,
          status: e.status,
          durationMs: e.durationMs,
          ...(e.error !== undefined && e.error !== null && { error: errorShape(e.error) }),
        }
    }
  }
  return (e) => {
    const event = map(e)
    if (event !== undefined) publish(event)
  }
}
