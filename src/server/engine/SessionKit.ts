import {
  bashInterpreter,
  bashInterpreterWith,
  claudeWeztermInterpreter,
  functionInterpreter,
  graphInterpreter,
  llmInterpreter,
  mcpServerInterpreter,
  ptyInterpreter,
  tmuxInterpreter,
  toolsetInterpreter,
  weztermInterpreter,
  type PermissionDecision,
  type PermissionRequest,
  type Provider,
  type Terminal,
  type TerminalDecorator,
  type TerminalInterpreter,
  type Tool,
} from '../../interpreters/index.js'
import {
  interpreters,
  type Interpreter,
  type InterpreterRegistry,
  type Node,
} from '../../node/index.js'
import { approvalGateInterpreter, type Clock, type RunControl } from '../../runtime/index.js'
import { bashHistory, withHistory, type Session } from '../../session/index.js'

/**
 * What every session of an engine is built with: its interpreters (the
 * terminals record history when the engine does) and where history goes.
 */
export interface KitOptions {
  readonly providers: Readonly<Record<string, Provider>>
  readonly tools: readonly Tool[]
  readonly extra: readonly Interpreter[]
  readonly history: { readonly dir: string; readonly server: string } | undefined
  readonly clock: Clock | undefined
  readonly onHistoryError: (sessionId: string, error: unknown) => void
  /** The engine's run control: where LLM nodes' held tool calls are asked. */
  readonly control: RunControl
  /** Asks run control about a CLI agent's permission prompt; answers how to withdraw the request. */
  readonly onPermission: (
    sessionId: string,
    request: PermissionRequest,
    answer: (decision: PermissionDecision) => Promise<void>,
  ) => () => void
}

/**
 * One session of an engine with what the engine keeps beside it: its
 * interpreter registry, the terminal interpreters (to reach a node's live
 * terminal), and the executes the engine runs on each node (so an
 * interrupt can abort them).
 */
export class SessionKit {
  readonly registry: InterpreterRegistry
  readonly #terminals: ReadonlyMap<string, TerminalInterpreter<Node>>
  readonly #running = new Map<string, Set<AbortController>>()
  session: Session | undefined

  constructor(
    readonly id: string,
    options: KitOptions,
  ) {
    const history = options.history
    const clock = options.clock === undefined ? {} : { clock: options.clock }
    const where =
      history === undefined
        ? undefined
        : {
            ...history,
            session: id,
            ...clock,
            onError: (e: { readonly error: unknown }) => {
              options.onHistoryError(id, e.error)
            },
          }
    const decorate: { decorate?: TerminalDecorator } =
      where === undefined ? {} : { decorate: withHistory(where) }
    const terminals = [
      ptyInterpreter({ ...clock, ...decorate }),
      tmuxInterpreter({ ...clock, ...decorate }),
      weztermInterpreter({ ...clock, ...decorate }),
      claudeWeztermInterpreter({
        ...clock,
        ...decorate,
        approvals: {
          onRequest: (request, answer) => options.onPermission(id, request, answer),
        },
      }),
    ] as unknown as TerminalInterpreter<Node>[]
    this.#terminals = new Map(terminals.map((t) => [t.kind, t]))
    const bash =
      where === undefined
        ? bashInterpreter
        : bashInterpreterWith({ ...clock, onRun: bashHistory(where) })
    const llm = llmInterpreter({
      providers: options.providers,
      tools: options.tools,
      ...clock,
      approvals: { control: options.control, sessionId: id },
    })
    const tools: Interpreter[] = [
      toolsetInterpreter,
      mcpServerInterpreter(),
      approvalGateInterpreter(options.control),
    ]
    const base: Interpreter[] = [
      functionInterpreter,
      graphInterpreter,
      bash,
      ...terminals,
      llm,
      ...tools,
    ]
    const kinds = new Set(options.extra.map((i) => i.kind))
    this.registry = interpreters(...base.filter((i) => !kinds.has(i.kind)), ...options.extra)
  }

  /** The live terminal of a node of a terminal kind; `undefined` when its program is not running. */
  terminal(node: Node): Terminal | undefined {
    return this.#terminals.get(node.kind)?.terminal(node.id)
  }

  /** Whether nodes of this kind are terminals. */
  isTerminalKind(kind: string): boolean {
    return this.#terminals.has(kind)
  }

  /** Tracks an execute the engine runs on a node, until `done` is called. */
  track(nodeId: string, controller: AbortController): () => void {
    let set = this.#running.get(nodeId)
    if (set === undefined) this.#running.set(nodeId, (set = new Set()))
    set.add(controller)
    return () => {
      set.delete(controller)
      if (set.size === 0 && this.#running.get(nodeId) === set) this.#running.delete(nodeId)
    }
  }

  /** Aborts the executes the engine runs on a node; how many there were. */
  abort(nodeId: string, reason: unknown): number {
    const set = this.#running.get(nodeId)
    if (set === undefined) return 0
    for (const c of set) c.abort(reason)
    return set.size
  }

  /** Aborts every execute the engine runs in this session. */
  abortAll(reason: unknown): void {
    for (const set of this.#running.values()) for (const c of set) c.abort(reason)
  }

  /** Stops every terminal the kit's interpreters still hold (those of graph runs included). */
  async stopTerminals(): Promise<void> {
    await Promise.allSettled([...this.#terminals.values()].map((t) => t.stopAll()))
  }
}
