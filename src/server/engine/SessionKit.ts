import type {
  Kinds,
  PermissionDecision,
  PermissionRequest,
  Provider,
  Tool,
} from '../../interpreters/index.js'
import { interpreters, type Interpreter, type InterpreterRegistry } from '../../node/index.js'
import type { Clock, RunControl } from '../../runtime/index.js'
import { bashHistory, withHistory, type Session } from '../../session/index.js'

/**
 * What every session of an engine is built with: its interpreters (the
 * terminals record history when the engine does) and where history goes.
 */
export interface KitOptions {
  readonly kinds: Kinds
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
 * One session of an engine with the interpreter registry it was built
 * with. What a node is doing is the session's to tell: its state, its
 * executes in progress (`Session.interrupt`), its live terminal
 * (`Session.live`).
 */
export class SessionKit {
  readonly registry: InterpreterRegistry
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
    const env = {
      providers: options.providers,
      tools: options.tools,
      ...clock,
      ...(where !== undefined && { decorate: withHistory(where), onBashRun: bashHistory(where) }),
      control: options.control,
      sessionId: id,
      onPermission: (
        request: PermissionRequest,
        answer: (decision: PermissionDecision) => Promise<void>,
      ) => options.onPermission(id, request, answer),
    }
    const replaced = new Set(options.extra.map((i) => i.kind))
    const made = [...options.kinds.values()]
      .filter((k) => !replaced.has(k.kind))
      .map((k) => k.interpreter(env))
    this.registry = interpreters(...made, ...options.extra)
  }
}
