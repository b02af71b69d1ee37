/**
 * What a network run is given: the workspace, the session, providers and
 * tools, the clock, run control, the risk policy, artifacts, locks, a
 * progress probe, a journal, an event listener, a schedule, and how its
 * command-line agents run.
 */
import type {
  Approvals,
  Pricing,
  Provider,
  ProxyCall,
  ProxyUpstream,
  Tool,
} from '../../interpreters/index.js'
import type { Interpreter } from '../../node/index.js'
import type { Clock } from '../../runtime/index.js'
import type { Session } from '../../session/index.js'
import type { ArtifactStore } from './ArtifactStore.js'
import type { FileLocks } from './FileLocks.js'
import type { NetworkEvent } from './NetworkEvent.js'
import type { RiskPolicy } from './policy.js'
import type { RunControl } from '../../runtime/index.js'

/**
 * How a network run's command-line agent nodes (`cli` providers) run. The
 * run prepares each one a home (`<homes>/<node id>`: onboarding, trust,
 * key approval, telemetry off; none with `ownConfig`) and points it at a
 * model proxy the run owns: one for the nodes on `upstream`, one per other
 * `forward` target. The proxy counts each node's exact tokens, calls and
 * cost (a firing's usage), refuses a call past what is left of the node's
 * budgets, and keeps every call: {@link NetworkRun.modelCalls}, `onCall`,
 * the firing's output in the trace.
 *
 * @category network run
 */
export interface NetworkAgentOptions {
  /**
   * Where the proxy gets the answers of nodes with no `forward`. Default:
   * each program's own API (`forward` to `https://api.anthropic.com`,
   * `https://api.openai.com`, `https://generativelanguage.googleapis.com`,
   * with the key of the run's `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
   * `GEMINI_API_KEY` when set). A `replay` upstream answers every node from
   * a tape ({@link NetworkRun.modelCalls} of a recorded run), `forward`s too.
   */
  readonly upstream?: ProxyUpstream
  /** Prices per million tokens, for answers that carry no cost. */
  readonly pricing?: Pricing
  /** Where the homes are made. Default: a temporary directory, removed when the run stops. */
  readonly homes?: string
  /**
   * How permission prompts on the agents' screens are answered: a policy
   * first, then `onRequest`. Without `onRequest` a prompt is asked as the
   * run's tool calls are (an `approval` event; `RunControl` approve/deny,
   * the approving node, the approval timeout).
   */
  readonly approvals?: Approvals
  /** Called with each model call of an agent once its answer went out. */
  readonly onCall?: (call: ProxyCall) => void
}

/**
 * Options of {@link startNetwork}. Only `root` is required.
 *
 * @category network run
 */
export interface NetworkRunOptions {
  /** The workspace: where tools, commands, CLI agents and locks work. */
  readonly root: string
  /** The session the nodes are registered in; default a new one on the run's clock. */
  readonly session?: Session
  /** API providers by the names `llm` providers use. */
  readonly providers?: Readonly<Record<string, Provider>>
  /** The tools nodes may name; default the workspace tools of `root`. Guarded by the workflow policy. */
  readonly tools?: readonly Tool[]
  readonly clock?: Clock
  readonly runId?: string
  /** Where the run is listed and approvals are asked; default a new one. */
  readonly control?: RunControl
  /** How long an approval request waits. Default 300 000 ms. */
  readonly approvalTimeoutMs?: number
  readonly risk?: RiskPolicy
  /** Where outputs, written files and verification results are stored. */
  readonly artifacts?: ArtifactStore
  readonly locks?: FileLocks
  /**
   * Reads the workspace after each auto iteration: a digest (the same one
   * `stallAfter` times in a row is a stall) and a diff summary for the next
   * tick. See {@link gitProgress}.
   */
  readonly progress?: () => Promise<{ readonly digest: string; readonly summary: string }>
  /** A JSONL file recording envelopes, patches, halts and decisions as they happen. */
  readonly journal?: string
  readonly onEvent?: (event: NetworkEvent) => void
  /**
   * The order in which nodes are offered a firing on each pass (default:
   * network order). A deterministic scheduler from `nerve-agents/testing`
   * (`seededSchedule`) explores interleavings reproducibly.
   */
  readonly schedule?: (nodeIds: readonly string[]) => readonly string[]
  /** How command-line agent nodes run: homes, model proxy, approvals. */
  readonly agents?: NetworkAgentOptions
  /**
   * Wraps each interpreter the run's nodes are stepped by, but the one of
   * `llm` nodes (wrap their providers and tools instead): a tape's
   * `interpreter`, to record or replay command and CLI agent nodes.
   */
  readonly wrapInterpreter?: (i: Interpreter) => Interpreter
}
