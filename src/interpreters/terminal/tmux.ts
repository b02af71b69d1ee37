import { forkTmux, type TmuxNode } from '../../node/TmuxNode.js'
import type { Clock } from '../../runtime/Clock.js'
import { paneConfig, PaneTerminal } from './paneTerminal.js'
import {
  terminalInterpreter,
  type Terminal,
  type TerminalDecorator,
  type TerminalInterpreter,
} from './Terminal.js'
import { TmuxPane } from './tmuxPane.js'

export { TmuxCommandFailed } from './tmuxPane.js'

/**
 * The live terminal of a tmux node.
 *
 * @category terminals
 */
export interface TmuxTerminal extends Terminal {
  /** The pane's id (`%3`) once started. */
  readonly paneId: string | undefined
  /** The session spawned for the node (`undefined` for an attached pane): stop kills it. */
  readonly sessionName: string | undefined
}

/**
 * Options of {@link openTmux} and {@link tmuxInterpreter}.
 *
 * @category terminals
 */
export interface TmuxTerminalOptions {
  /** Milliseconds between `SIGTERM` and `SIGKILL` when `stop` ends a spawned pane's processes. Default: 2000. */
  readonly killGraceMs?: number
}

class TmuxPaneTerminal extends PaneTerminal implements TmuxTerminal {
  constructor(
    node: TmuxNode,
    private readonly pane: TmuxPane,
  ) {
    super(paneConfig(node), pane)
  }

  get paneId(): string | undefined {
    return this.pane.paneId
  }

  get sessionName(): string | undefined {
    return this.pane.sessionName
  }
}

/**
 * Opens the terminal of a tmux node (not started yet). `start` spawns the
 * node's program in a new detached session (or finds the pane it attaches
 * to), connects an output event source (`pipe-pane`) and waits until the
 * parser says ready. An execute types its input with `send-keys -l` and
 * Enter, and reads the pane with `capture-pane -p -J` from the line the
 * input went to; the pane is captured again on each output event, never on
 * a timer. `read()` is the pane's text (history included) since the last
 * `clearBuffer()` (which forgets nothing in tmux: it moves a mark).
 * `interrupt` sends `C-c`. `stop` kills the session it spawned and ends
 * everything its pane started (the pane's session, its process tree and the
 * processes carrying its `NERVE_TERMINAL_ID` mark get `SIGTERM`, then
 * `SIGKILL` after `killGraceMs`), or only closes its pipe on an attached pane. When the program of a spawned pane
 * exits, the node goes to `stopped`, a pending execute (or `start`) fails
 * with `TerminalExited` carrying its exit code (or the signal that killed
 * it), and the session is killed: the window is spawned with
 * `remain-on-exit on` so the dead pane keeps its status, read when its
 * `pane-died` hook calls back. An attached pane is not changed, so when its
 * program exits the error's exit code is `null` (and if the user's window
 * keeps dead panes, the execute ends only at its timeout).
 *
 * @category terminals
 */
export const openTmux = (node: TmuxNode, options: TmuxTerminalOptions = {}): TmuxTerminal =>
  new TmuxPaneTerminal(node, new TmuxPane(node, options.killGraceMs))

/**
 * Options of {@link tmuxInterpreter}.
 *
 * @category interpreters
 */
export interface TmuxInterpreterOptions extends TmuxTerminalOptions {
  /** Where `fork` reads the time it stamps. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Wraps each terminal it opens (e.g. `withHistory`, to record the node's history). */
  readonly decorate?: TerminalDecorator
}

/**
 * The interpreter of tmux nodes (see {@link openTmux}): starts a node's
 * terminal on first use and keeps it, by node id, until stopped. A step's
 * input is typed into the pane; its result is the parsed answer.
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { tmuxInterpreter } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const registry = interpreters(...defaultInterpreters.values(), tmuxInterpreter())
 * assert.ok(registry.has('tmux'))
 */
export const tmuxInterpreter = (
  options: TmuxInterpreterOptions = {},
): TerminalInterpreter<TmuxNode> =>
  terminalInterpreter<TmuxNode>('tmux', (node) => openTmux(node, options), forkTmux, options)
