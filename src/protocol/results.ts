import * as t from 'io-ts'
import { chatResultCodecs } from './chat.js'
import { ListApprovalsCodec } from './approvals.js'
import { StepCompletedEventCodec, StepFailedEventCodec, StepStartedEventCodec } from './events.js'
import type { Method } from './methods.js'
import { NetworkInfoCodec } from './networkInfo.js'
import { SessionSummaryCodec } from './sessionInfo.js'
import { storeResultCodecs } from './store.js'
import { literals, NodeStateCodec, PatchCodec, struct, WireErrorShapeCodec } from './parts.js'

export { InboxInfoCodec, NetworkInfoCodec, NetworkValueCodec } from './networkInfo.js'
export type { NetworkInfo } from './networkInfo.js'
export { SessionSummaryCodec } from './sessionInfo.js'
export type { SessionSummary } from './sessionInfo.js'

/**
 * A node as the node commands answer it: JSON-shaped, with `type` for the
 * node's kind.
 *
 * @category protocol
 */
export const NodeInfoCodec = struct('NodeInfo', {
  id: t.string,
  type: t.string,
  state: NodeStateCodec,
  metadata: t.UnknownRecord,
})

/**
 * A node kind as `LIST_KINDS` answers it: its name, aliases and summary,
 * whether its nodes are persistent, `CREATE_NODE` makes them and a graph
 * file may describe them, its capabilities, and the JSON Schema of its
 * options.
 *
 * @category protocol
 */
export const KindInfoCodec = struct(
  'KindInfo',
  {
    kind: t.string,
    aliases: t.readonlyArray(t.string),
    summary: t.string,
    persistent: t.boolean,
    creatable: t.boolean,
    capabilities: struct('Capabilities', {
      terminal: t.boolean,
      conversation: t.boolean,
      fork: t.boolean,
    }),
    options: t.UnknownRecord,
  },
  /** `describable`: a graph file's `nodes` table may describe a node of it (`{ "kind": … }`). */
  { describable: t.boolean },
)

/**
 * A node kind as `LIST_KINDS` answers it.
 *
 * @category protocol
 */
export type KindInfo = t.TypeOf<typeof KindInfoCodec>

/**
 * What `FORK_NODE` answers: the new node's id, the source's id, the kind,
 * and for an LLM node the number of messages the copy starts with.
 *
 * @category protocol
 */
export const ForkResultCodec = struct(
  'ForkResult',
  { nodeId: t.string, forkedFrom: t.string, nodeType: t.string },
  { messageCount: t.number },
)

/**
 * What `FORK_NODE` answers.
 *
 * @category protocol
 */
export type ForkResult = t.TypeOf<typeof ForkResultCodec>

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
  readonly error?: t.TypeOf<typeof WireErrorShapeCodec>
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
 * The codec of a run's trace (recursive: a step may carry a nested graph's trace).
 *
 * @category protocol
 */
export const TraceJsonCodec: t.Type<TraceJson, TraceJson> = t.recursion('TraceJson', () =>
  struct('TraceJson', {
    runId: t.string,
    graphId: t.string,
    status: t.string,
    durationMs: t.number,
    steps: t.readonlyArray(TraceStepCodec),
  }),
)

const TraceStepCodec: t.Type<TraceStep, TraceStep> = t.recursion('TraceStep', () =>
  struct(
    'TraceStep',
    {
      id: t.string,
      stepId: t.string,
      path: t.readonlyArray(t.string),
      nodeId: t.string,
      kind: t.string,
      status: t.string,
      output: t.unknown,
      attempts: t.number,
      durationMs: t.number,
      tokens: t.number,
      cost: t.number,
      parents: t.readonlyArray(t.string),
    },
    { error: WireErrorShapeCodec, nested: TraceJsonCodec },
  ),
)

/**
 * The state of a graph run.
 *
 * @category protocol
 */
export const RunStateNameCodec = literals('RunStateName', [
  'running',
  'completed',
  'failed',
  'cancelled',
])

/**
 * The state of a graph run.
 *
 * @category protocol
 */
export type RunStateName = t.TypeOf<typeof RunStateNameCodec>

const runFields = {
  runId: t.string,
  sessionId: t.string,
  graphId: t.string,
  state: RunStateNameCodec,
  startedAt: t.string,
}

/**
 * What `GET_RUN` answers: the run's state, its results by step id once it
 * completed, its error once it failed, and its trace once it ended (the
 * partial trace of a failed or cancelled run). With `EXECUTE_GRAPH {
 * record: true }`, `recording` is everything its interpreters, clock and
 * random source answered (`nerve-agents/store`'s `Recording`) and
 * `recordingId` where the engine's store keeps it (`nerve replay ID
 * --store`), when it has one. A run of `REPLAY_GRAPH` has `replayOf`, the
 * recording it ran again. A run read back from the store (`stored`) has
 * its trace only. `graph` is the graph file it ran (as
 * `EXECUTE_GRAPH` was given it, or the one of the recording a replay ran)
 * and `input` its input, when it had them: any client can run it again
 * with `EXECUTE_GRAPH`, recorded or not. While it runs, `steps` holds the
 * latest event of each step that started (`STEP_STARTED`, `STEP_FAILED`
 * or `STEP_COMPLETED`): where it stands, for a client that comes in late.
 *
 * @category protocol
 */
export const RunInfoCodec = struct('RunInfo', runFields, {
  stored: t.boolean,
  steps: t.readonlyArray(
    t.union([StepStartedEventCodec, StepFailedEventCodec, StepCompletedEventCodec]),
  ),
  results: t.UnknownRecord,
  error: WireErrorShapeCodec,
  trace: TraceJsonCodec,
  recording: t.unknown,
  recordingId: t.string,
  replayOf: t.string,
  graph: t.unknown,
  input: t.unknown,
})

/**
 * What `GET_RUN` answers.
 *
 * @category protocol
 */
export type RunInfo = t.TypeOf<typeof RunInfoCodec>

/**
 * One graph run as `LIST_RUNS` lists it: its id, session, graph, state and
 * start (`GET_RUN` has the rest). `stored` marks a run this daemon does
 * not hold but its store keeps (it ended, maybe before a restart).
 *
 * @category protocol
 */
export const RunSummaryCodec = struct('RunSummary', runFields, { stored: t.boolean })

/**
 * One graph run as `LIST_RUNS` lists it.
 *
 * @category protocol
 */
export type RunSummary = t.TypeOf<typeof RunSummaryCodec>

/**
 * An envelope of a network run: what one node sent another along an edge.
 *
 * @category protocol
 */
export const EnvelopeCodec = struct(
  'Envelope',
  {
    id: t.string,
    kind: literals('EnvelopeKind', ['handoff', 'message', 'tick', 'done', 'status', 'error']),
    fromNodeId: t.string,
    toNodeId: t.string,
    payload: struct(
      'Payload',
      { message: t.string },
      {
        structured: t.unknown,
        artifacts: t.readonlyArray(struct('ArtifactRef', { type: t.string, ref: t.string })),
      },
    ),
    time: t.number,
  },
  { causedBy: t.readonlyArray(t.string) },
)

/**
 * What a live edit answers: its patches and the inverse patches (undo).
 *
 * @category protocol
 */
export const NetworkPatchesCodec = struct('NetworkPatches', {
  patches: t.readonlyArray(PatchCodec),
  inverse: t.readonlyArray(PatchCodec),
})

/**
 * What a live edit answers.
 *
 * @category protocol
 */
export type NetworkPatches = t.TypeOf<typeof NetworkPatchesCodec>

/**
 * A record of a node's history (see `HistoryRecord`): `seq`, `op`, `time`,
 * `node` and the op's fields.
 *
 * @category protocol
 */
export const HistoryEntryCodec = t.intersection(
  [
    t.UnknownRecord,
    struct('History', { seq: t.number, op: t.string, time: t.string, node: t.string }),
  ],
  'HistoryEntry',
)

/**
 * A record of a node's history.
 *
 * @category protocol
 */
export type HistoryEntry = t.TypeOf<typeof HistoryEntryCodec>

const ok = <K extends string>(key: K) =>
  struct(`{${key}: true}`, { [key]: t.literal(true) } as Record<K, t.LiteralC<true>>)
const flag = <K extends string>(key: K) =>
  struct(`{${key}}`, { [key]: t.boolean } as Record<K, t.BooleanC>)
const decided = ok('decided')

/**
 * The result codec of every command, by method name: the client decodes
 * each answer with it, so a daemon that answers something else is caught
 * at the path where it differs.
 *
 * @category protocol
 */
export const resultCodecs = {
  PING: struct('PING', { pong: t.literal(true) }),
  CREATE_SESSION: SessionSummaryCodec,
  LIST_SESSIONS: struct('LIST_SESSIONS', { sessions: t.readonlyArray(SessionSummaryCodec) }),
  CLOSE_SESSION: flag('closed'),
  CREATE_NODE: NodeInfoCodec,
  LIST_KINDS: struct('LIST_KINDS', { kinds: t.readonlyArray(KindInfoCodec) }),
  GET_NODE: NodeInfoCodec,
  LIST_NODES: struct('LIST_NODES', { nodes: t.readonlyArray(NodeInfoCodec) }),
  STOP_NODE: NodeInfoCodec,
  DELETE_NODE: ok('deleted'),
  /** The node's answer: a terminal's parsed response, a bash result, a model's text, a graph's results. */
  EXECUTE_INPUT: t.unknown,
  RUN_COMMAND: ok('accepted'),
  SEND_INTERRUPT: flag('interrupted'),
  WRITE_DATA: struct('WRITE_DATA', { written: t.number }),
  GET_BUFFER: struct('GET_BUFFER', { buffer: t.string }),
  /** An LLM node's conversation now, in Nerve's file format (`format: "nerve/conversation"`). */
  GET_CONVERSATION: struct('GET_CONVERSATION', {
    nodeId: t.string,
    messageCount: t.number,
    conversation: t.unknown,
  }),
  GET_HISTORY: struct('GET_HISTORY', {
    records: t.readonlyArray(HistoryEntryCodec),
    corrupt: t.number,
  }),
  FORK_NODE: ForkResultCodec,
  EXECUTE_GRAPH: struct('EXECUTE_GRAPH', { runId: t.string }),
  CANCEL_GRAPH: flag('cancelled'),
  GET_RUN: RunInfoCodec,
  LIST_RUNS: struct('LIST_RUNS', { runs: t.readonlyArray(RunSummaryCodec) }),
  SUBSCRIBE: struct('SUBSCRIBE', { subscription: t.string }),
  UNSUBSCRIBE: flag('unsubscribed'),
  SAVE_SESSION: struct('SAVE_SESSION', { saved: t.literal(true), sessionId: t.string }),
  SHUTDOWN: ok('shuttingDown'),
  CREATE_NETWORK: NetworkInfoCodec,
  GET_NETWORK: NetworkInfoCodec,
  LIST_NETWORKS: struct('LIST_NETWORKS', { networks: t.readonlyArray(NetworkInfoCodec) }),
  EDIT_NETWORK: NetworkPatchesCodec,
  UNDO_NETWORK: flag('undone'),
  SET_NODE_MODE: NetworkPatchesCodec,
  SET_WORKFLOW_MODE: NetworkPatchesCodec,
  SEND_ENVELOPE: struct('SEND_ENVELOPE', { envelope: EnvelopeCodec }),
  TRIGGER_NODE: ok('triggered'),
  APPROVE: decided,
  DENY: decided,
  PAUSE_NETWORK: NetworkInfoCodec,
  RESUME_NETWORK: NetworkInfoCodec,
  /** Waits until nothing is in flight and nothing can fire, then ends the run. */
  STOP_NETWORK: NetworkInfoCodec,
  CANCEL_NETWORK: NetworkInfoCodec,
  /** Every envelope so far, in order; `causedBy` links them into a DAG. */
  GET_ENVELOPES: struct('GET_ENVELOPES', { envelopes: t.readonlyArray(EnvelopeCodec) }),
  ...chatResultCodecs,
  ...storeResultCodecs,
  /** The approvals waiting, of every run, node and network (or of the ones the params name). */
  LIST_APPROVALS: ListApprovalsCodec,
} as const satisfies Record<Method, t.Mixed>

/**
 * The result of each command, by method name, as its codec decodes it.
 *
 * @category protocol
 */
export type Results = { readonly [M in Method]: t.TypeOf<(typeof resultCodecs)[M]> }
