import { forkWezterm, type WeztermNode } from '../../node/WeztermNode.js'
import type { Clock } from '../../runtime/Clock.js'
import { paneConfig, PaneTerminal } from './paneTerminal.js'
import { TerminalNotStarted } from './Terminal.js'
import {
  terminalInterpreter,
  type Terminal,
  type TerminalDecorator,
  type TerminalInterpreter,
} from './Terminal.js'
import { WeztermPane, type WeztermPaneInfo } from './weztermPane.js'

export { listWeztermPanes, WeztermCommandFailed, weztermCli } from './weztermPane.js'
export type { WeztermPaneInfo } from './weztermPane.js'

/**
 * The live terminal of a WezTerm node.
 *
 * @category terminals
 */
export interface WeztermTerminal extends Terminal {
  /** The pane's id once started. */
  readonly paneId: number | undefined
  /** Whether the terminal spawned its pane (then stop kills it). */
  readonly spawned: boolean
  /** Whether its operations belong in the node's history (false when a wrapper node owns it). */
  readonly recordsHistory: boolean
  /** Brings the pane to the front (`wezterm cli activate-pane`). */
  focus(): Promise<void>
  /** The pane as `wezterm cli list --format json` describes it, read now. */
  paneInfo(): Promise<WeztermPaneInfo>
}

class WeztermPaneTerminal extends PaneTerminal implements WeztermTerminal {
  constructor(
    node: WeztermNode,
    private readonly pane: WeztermPane,
    options: WeztermTerminalOptions,
  ) {
    const config = paneConfig(node)
    super(
      options.contextLines === undefined
        ? config
        : { ...config, contextLines: options.contextLines },
      pane,
      options.recordsHistory ?? true,
    )
  }

  get paneId(): number | undefined {
    return this.pane.pane
  }

  get spawned(): boolean {
    return this.pane.spawned
  }

  async focus(): Promise<void> {
    if (this.pane.pane === undefined) {
      throw new TerminalNotStarted(this.nodeId, `terminal "${this.nodeId}" is not started`)
    }
    await this.pane.cli(['activate-pane', '--pane-id', String(this.pane.pane)])
  }

  paneInfo(): Promise<WeztermPaneInfo> {
    return this.pane.info()
  }
}

/**
 * Options of {@link openWezterm}.
 *
 * @category terminals
 */
export interface WeztermTerminalOptions {
  /** Set by a wrapper node that keeps the history itself (Claude on WezTerm). Default: `true`. */
  readonly recordsHistory?: boolean
  /** Lines above the cursor line each execute reads too (for programs that redraw the input line higher). Default: 0. */
  readonly contextLines?: number
  /** Milliseconds between `SIGTERM` and `SIGKILL` when `stop` ends a spawned pane's processes. Default: 2000. */
  readonly killGraceMs?: number
}

/**
 * Opens the terminal of a WezTerm node (not started yet). `start` spawns the
 * node's program with `wezterm cli spawn` (or checks that the pane it
 * attaches to is listed) and waits until the parser says ready. An execute
 * types its input with `send-text --no-paste` in pieces of at most 1024
 * characters, then a carriage return, and reads the pane with `get-text`
 * (scrollback included) from the cursor line the input went to. Every read
 * asks the pane afresh.
 *
 * Readiness: `wezterm cli` offers no output events, so, as the last resort,
 * the pane is re-read on an adaptive timer: 10 ms after a change, doubling
 * while nothing changes, up to 200 ms; the answer is complete when the
 * parser says so and the text stays the same for the quiet window.
 * `stop` kills the pane only when it spawned it, and then ends everything
 * the pane started that runs on this machine: the processes carrying its
 * `NERVE_TERMINAL_ID` mark (set with `env` in the spawn command) and their
 * descendants get `SIGTERM`, then `SIGKILL` after `killGraceMs`.
 *
 * @category terminals
 */
export const openWezterm = (
  node: WeztermNode,
  options: WeztermTerminalOptions = {},
): WeztermTerminal =>
  new WeztermPaneTerminal(node, new WeztermPane(node, options.killGraceMs), options)

/**
 * Options of {@link weztermInterpreter}.
 *
 * @category interpreters
 */
export interface WeztermInterpreterOptions {
  /** Where `fork` reads the time it stamps. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Wraps each terminal it opens (e.g. `withHistory`, to record the node's history). */
  readonly decorate?: TerminalDecorator
  /** Milliseconds between `SIGTERM` and `SIGKILL` when `stop` ends a spawned pane's processes. Default: 2000. */
  readonly killGraceMs?: number
}

/**
 * The interpreter of WezTerm nodes (see {@link openWezterm}).
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { weztermInterpreter } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const registry = interpreters(...defaultInterpreters.values(), weztermInterpreter())
 * assert.ok(registry.has('wezterm'))
 */
export const weztermInterpreter = (
  options: WeztermInterpreterOptions = {},
): TerminalInterpreter<WeztermNode> =>
  terminalInterpreter<WeztermNode>(
    'wezterm',
    (node) =>
      openWezterm(
        node,
        options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs },
      ),
    forkWezterm,
    options,
  )
