import type { Conversation } from '../conversation/index.js'
import type { Node, NodeRegistry, StateCell } from '../node/index.js'

/**
 * What one chat turn owns besides its run: the control that cancels it,
 * and the registry its run reads nodes and their cells from. Each is one
 * object per turn, not a handful of closures: a short turn's run costs a
 * few microseconds, and what the turn allocates around it counts.
 *
 * @internal
 */

/**
 * The control of the turn running: `cancel` stops it before its run starts
 * (the run then starts cancelled) or while it runs. It makes an
 * `AbortSignal` only when one is asked for: one costs more than a short
 * turn's run.
 *
 * @internal
 */
export class TurnControl {
  cancelled = false
  #reason: unknown = undefined
  #controller: AbortController | undefined = undefined
  #cancelRun: ((reason: unknown) => void) | undefined = undefined

  cancel(reason: unknown): void {
    if (this.cancelled) return
    this.cancelled = true
    this.#reason = reason
    this.#controller?.abort(reason)
    this.#cancelRun?.(reason)
  }

  /** A signal aborted when the turn is cancelled. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.cancelled) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  /** The signal the turn's run needs: none, unless one was made or the turn is cancelled already. */
  get runSignal(): AbortSignal | undefined {
    return this.#controller !== undefined || this.cancelled ? this.signal : undefined
  }

  /** The turn's run has started: cancelling cancels it. */
  started(cancelRun: (reason: unknown) => void): void {
    this.#cancelRun = cancelRun
  }
}

/** A cell holding one value. */
class Cell implements StateCell {
  value: unknown = undefined
  get(): unknown {
    return this.value
  }
  set(value: unknown): void {
    this.value = value
  }
}

/** The agent's handle: the chat starts it (its state is its cell), so a turn's run starts and stops nothing. */
const STARTED = Object.freeze({ handle: undefined })

/**
 * The registry a turn's run sees: the agent's cell is the turn's own (it
 * starts at the chat's head and ends at the new one), and the chat has
 * started it; the cells and handles of other persistent nodes are the
 * session's, else the run's own; node references resolve in the session.
 *
 * @internal
 */
export class TurnRegistry implements NodeRegistry {
  readonly #session: NodeRegistry | undefined
  readonly #agent: Node | undefined
  readonly #agentCell = new Cell()
  #others: Map<string, Cell> | undefined = undefined

  constructor(session: NodeRegistry | undefined, agent: Node | undefined) {
    this.#session = session
    this.#agent = agent
  }

  /** The agent's state in the turn: its head. */
  get agentState(): { readonly head: Conversation } | undefined {
    return this.#agentCell.value as { readonly head: Conversation } | undefined
  }

  set agentState(state: { readonly head: Conversation } | undefined) {
    this.#agentCell.value = state
  }

  get(nodeId: string): Node | undefined {
    return this.#session?.get(nodeId)
  }

  handleOf(node: Node, interpreter: object): { readonly handle: unknown } | undefined {
    if (node === this.#agent) return STARTED
    return this.#session?.handleOf?.(node, interpreter)
  }

  startFor(node: Node, interpreter: object): Promise<unknown> | undefined {
    return this.#session?.startFor?.(node, interpreter)
  }

  occupy(node: Node): (() => void) | undefined {
    return node === this.#agent ? undefined : this.#session?.occupy?.(node)
  }

  cell(nodeId: string): StateCell {
    if (this.#agent !== undefined && nodeId === this.#agent.id) return this.#agentCell
    const kept = this.#session?.cell?.(nodeId)
    if (kept !== undefined) return kept
    const others = (this.#others ??= new Map<string, Cell>())
    let own = others.get(nodeId)
    if (own === undefined) others.set(nodeId, (own = new Cell()))
    return own
  }
}
