import type { Patch } from 'immer'
import type { ApprovalRequest, Envelope, InboxInfo, Network } from '../network/index.js'
import type { NodeInfo } from '../node/index.js'
import type { WireErrorShape } from './events.js'

/**
 * A session as `CREATE_SESSION` and `LIST_SESSIONS` answer it.
 *
 * @category protocol
 */
export interface SessionSummary {
  readonly sessionId: string
  readonly name: string
  readonly default: boolean
  readonly createdAt: string
  readonly tags: readonly string[]
  readonly nodes: number
}

/**
 * What `FORK_NODE` answers: the new node's id, the source's id, the kind,
 * and for an LLM node the number of messages the copy starts with.
 *
 * @category protocol
 */
export interface ForkResult {
  readonly nodeId: string
  readonly forkedFrom: string
  readonly nodeType: string
  readonly messageCount?: number
}

/**
 * One step of a run's trace, JSON-shaped: `parents` are the ids (step
 * paths joined by `/`) of the records of its dependencies; `error` is the
 * last attempt's error, if any; `nested` the trace of a nested graph.
 *
 * @category protocol
 */
export interface TraceStep {
  readonly id: string
  readonly stepId: string
  readonly path: readonly string[]
  readonly nodeId: string
  readonly kind: string
  readonly status: string
  readonly output: unknown
  readonly error?: WireErrorShape
  readonly attempts: number
  readonly durationMs: number
  readonly tokens: number
  readonly cost: number
  readonly parents: readonly string[]
  readonly nested?: TraceJson
}

/**
 * A run's trace, JSON-shaped.
 *
 * @category protocol
 */
export interface TraceJson {
  readonly runId: string
  readonly graphId: string
  readonly status: string
  readonly durationMs: number
  readonly steps: readonly TraceStep[]
}

/**
 * The state of a graph run.
 *
 * @category protocol
 */
export type RunStateName = 'running' | 'completed' | 'failed' | 'cancelled'

/**
 * What `GET_RUN` answers: the run's state, its results by step id once it
 * completed, its error once it failed, and its trace once it ended (the
 * partial trace of a failed or cancelled run).
 *
 * @category protocol
 */
export interface RunInfo {
  readonly runId: string
  readonly sessionId: string
  readonly graphId: string
  readonly state: RunStateName
  readonly startedAt: string
  readonly results?: Readonly<Record<string, unknown>>
  readonly error?: WireErrorShape
  readonly trace?: TraceJson
  /** With `EXECUTE_GRAPH { record: true }`: everything its interpreters, clock and random source answered (`nerve-agents/store`'s `Recording`). */
  readonly recording?: unknown
  /** Where the engine's store keeps that recording (`nerve replay ID --store`), when it has one. */
  readonly recordingId?: string
}

/**
 * One graph run as `LIST_RUNS` lists it: its id, session, graph, state and
 * start, and its end once it ended (`GET_RUN` has the rest).
 *
 * @category protocol
 */
export interface RunSummary {
  readonly runId: string
  readonly sessionId: string
  readonly graphId: string
  readonly state: RunStateName
  readonly startedAt: string
}

/**
 * A network run as the network commands answer it: its id, the session it
 * was created in, its workspace, its state (`running`, `paused`,
 * `finished`) and, once finished, how it ended (`done`, `halted`, `idle`,
 * `cancelled`); the network value as it is now (live edits applied — the
 * value `NETWORK_PATCHED` patches apply to); the envelopes sent so far, the
 * nodes that reached Done, the halts, the usage of the whole network, the
 * approvals waiting for a decision, and its inboxes.
 *
 * @category protocol
 */
export interface NetworkInfo {
  readonly networkId: string
  readonly sessionId: string
  readonly root: string
  readonly startedAt: string
  readonly state: 'running' | 'paused' | 'finished'
  readonly outcome?: 'done' | 'halted' | 'idle' | 'cancelled'
  readonly network: Network
  readonly envelopes: number
  readonly done: readonly string[]
  readonly halts: readonly (WireErrorShape & { readonly nodes: readonly string[] })[]
  readonly usage: { readonly tokens: number; readonly apiCalls: number; readonly cost: number }
  readonly pending: readonly ApprovalRequest[]
  /** Every inbox: each node's messages from the user, then each way of each edge. */
  readonly inboxes: readonly InboxInfo[]
}

/**
 * What a live edit answers: its patches and the inverse patches (undo).
 *
 * @category protocol
 */
export interface NetworkPatches {
  readonly patches: readonly Patch[]
  readonly inverse: readonly Patch[]
}

/**
 * A record of a node's history (see `HistoryRecord`): `seq`, `op`, `time`,
 * `node` and the op's fields.
 *
 * @category protocol
 */
export type HistoryEntry = Readonly<Record<string, unknown>> & {
  readonly seq: number
  readonly op: string
  readonly time: string
  readonly node: string
}

/**
 * The result of each command, by method name.
 *
 * @category protocol
 */
export interface Results {
  readonly PING: { readonly pong: true }
  readonly CREATE_SESSION: SessionSummary
  readonly LIST_SESSIONS: { readonly sessions: readonly SessionSummary[] }
  readonly CLOSE_SESSION: { readonly closed: boolean }
  readonly CREATE_NODE: NodeInfo
  readonly GET_NODE: NodeInfo
  readonly LIST_NODES: { readonly nodes: readonly NodeInfo[] }
  readonly STOP_NODE: NodeInfo
  readonly DELETE_NODE: { readonly deleted: true }
  /** The node's answer: a terminal's parsed response, a bash result, a model's text, a graph's results. */
  readonly EXECUTE_INPUT: unknown
  readonly RUN_COMMAND: { readonly accepted: true }
  readonly SEND_INTERRUPT: { readonly interrupted: boolean }
  readonly WRITE_DATA: { readonly written: number }
  readonly GET_BUFFER: { readonly buffer: string }
  /** An LLM node's conversation now, in Nerve's file format (`format: "nerve/conversation"`). */
  readonly GET_CONVERSATION: {
    readonly nodeId: string
    readonly messageCount: number
    readonly conversation: unknown
  }
  readonly GET_HISTORY: { readonly records: readonly HistoryEntry[]; readonly corrupt: number }
  readonly FORK_NODE: ForkResult
  readonly EXECUTE_GRAPH: { readonly runId: string }
  readonly CANCEL_GRAPH: { readonly cancelled: boolean }
  readonly GET_RUN: RunInfo
  readonly LIST_RUNS: { readonly runs: readonly RunSummary[] }
  readonly SUBSCRIBE: { readonly subscription: string }
  readonly UNSUBSCRIBE: { readonly unsubscribed: boolean }
  readonly SAVE_SESSION: { readonly saved: true; readonly sessionId: string }
  readonly SHUTDOWN: { readonly shuttingDown: true }
  readonly CREATE_NETWORK: NetworkInfo
  readonly GET_NETWORK: NetworkInfo
  readonly LIST_NETWORKS: { readonly networks: readonly NetworkInfo[] }
  readonly EDIT_NETWORK: NetworkPatches
  readonly UNDO_NETWORK: { readonly undone: boolean }
  readonly SET_NODE_MODE: NetworkPatches
  readonly SET_WORKFLOW_MODE: NetworkPatches
  readonly SEND_ENVELOPE: { readonly envelope: Envelope }
  readonly TRIGGER_NODE: { readonly triggered: true }
  readonly APPROVE: { readonly decided: true }
  readonly DENY: { readonly decided: true }
  readonly PAUSE_NETWORK: NetworkInfo
  readonly RESUME_NETWORK: NetworkInfo
  /** Waits until nothing is in flight and nothing can fire, then ends the run. */
  readonly STOP_NETWORK: NetworkInfo
  readonly CANCEL_NETWORK: NetworkInfo
  /** Every envelope so far, in order; `causedBy` links them into a DAG. */
  readonly GET_ENVELOPES: { readonly envelopes: readonly Envelope[] }
}
