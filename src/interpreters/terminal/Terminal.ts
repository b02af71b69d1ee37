import { taggedError, UsageError } from '../../errors.js'
import {
  type ChunkStream,
  type ForkContext,
  type Interpreter,
  type LifecycleContext,
  type NodeContext,
  refuseForkPoint,
  type StopContext,
} from '../../node/Interpreter.js'
import type { Node } from '../../node/Node.js'
import type { NodeState } from '../../node/NodeState.js'
import { systemClock, type Clock } from '../../runtime/Clock.js'
import type { ParsedResponse, Parser } from '../parsers/ParsedResponse.js'

/**
 * Options of one {@link Terminal.execute} or {@link Terminal.executeStream}.
 *
 * @category terminals
 */
export interface ExecuteOptions {
  /** The parser, or its name. Default: the node's parser, else `'none'`. */
  readonly parser?: string | Parser
  /**
   * Milliseconds to wait for the answer. Default: the node's, else 30 000.
   * A timeout rejects with {@link TerminalTimeout}; the terminal stays usable.
   */
  readonly timeoutMs?: number
  /** Milliseconds the parser's readiness must hold with no new output. Default: the terminal's. */
  readonly quietMs?: number
  /** Aborting interrupts (Ctrl+C); the execute rejects with {@link TerminalInterrupted}. */
  readonly signal?: AbortSignal
}

/**
 * A live terminal: one per started persistent node (a PTY, a tmux pane, a
 * WezTerm pane). Executes are queued, never interleaved: each one writes its
 * input, waits until the parser says the program is ready again (asked on each
 * output event, then held for a quiet window), and parses only the output
 * that came after its own input.
 *
 * @category terminals
 */
export interface Terminal {
  readonly nodeId: string
  readonly state: NodeState
  /** Starts the program and waits until it is ready. */
  start(): Promise<void>
  /** Idempotent: ends what the terminal owns, waits for it, and leaves the state `stopped`. */
  stop(): Promise<void>
  /** Writes `input` and a newline, and resolves with the parsed answer. Queued: never interleaved. */
  execute(input: string, options?: ExecuteOptions): Promise<ParsedResponse>
  /** Like `execute`, yielding output chunks as they come; the iterator's return value is the answer. */
  executeStream(
    input: string,
    options?: ExecuteOptions,
  ): AsyncIterable<string, ParsedResponse, undefined>
  /** Writes raw data, no newline added (not queued behind executes). */
  write(data: string): Promise<void>
  /** The whole buffer (or the pane's current text). */
  read(): string
  /** The last `lines` lines of {@link Terminal.read}. */
  readTail(lines: number): string
  /** Forgets the output so far. */
  clearBuffer(): void
  /** Sends Ctrl+C; an execute in progress rejects with {@link TerminalInterrupted}. */
  interrupt(): Promise<void>
}

/**
 * The terminal was used before it was started (or after its pane went):
 * there is no program to talk to.
 *
 * @category errors
 */
export class TerminalNotStarted extends taggedError('TerminalNotStarted', 'invalidState')<{
  readonly nodeId: string
}> {
  constructor(nodeId: string, message: string) {
    super(message, { nodeId })
  }
}

/**
 * An execute got no complete answer within its timeout. The terminal is still
 * usable; `partial` is what came after the input so far.
 *
 * @category errors
 */
export class TerminalTimeout extends taggedError('TerminalTimeout', 'timeout')<{
  readonly nodeId: string
  readonly timeoutMs: number
  readonly partial: string
  /** What the screen showed last, for a program read as a screen (`unknown` when the parser could not tell). */
  readonly state: string | undefined
}> {
  constructor(nodeId: string, timeoutMs: number, partial: string, state?: string) {
    super(
      `terminal "${nodeId}": no answer within ${timeoutMs} ms` +
        (state === undefined ? '' : ` (the screen reads as ${state}):\n${partial}`),
      { nodeId, timeoutMs, partial, state },
    )
  }
}

/**
 * A full-screen program stopped on a dialog its node did not expect (a
 * trust question, an onboarding step): `title` is what the parser read,
 * `screen` the screen as it stood.
 *
 * @category errors
 */
export class TerminalDialog extends taggedError('TerminalDialog', 'invalidState')<{
  readonly nodeId: string
  readonly title: string
  readonly screen: string
}> {
  constructor(nodeId: string, title: string, screen: string) {
    super(`terminal "${nodeId}": the program asks "${title}", which nothing answers:\n${screen}`, {
      nodeId,
      title,
      screen,
    })
  }
}

/**
 * The terminal's program ended (by itself, or by a stop) while an execute
 * waited, or before it could start. `exitCode` is `null` when it was killed by
 * `signal`.
 *
 * @category errors
 */
export class TerminalExited extends taggedError('TerminalExited', 'failed')<{
  readonly nodeId: string
  readonly exitCode: number | null
  readonly signal: string | undefined
  readonly partial: string
}> {
  constructor(
    nodeId: string,
    exitCode: number | null,
    signal: string | undefined,
    partial: string,
  ) {
    const how =
      exitCode === null ? `was killed by ${String(signal)}` : `exited with code ${exitCode}`
    super(`terminal "${nodeId}": the program ${how}`, { nodeId, exitCode, signal, partial })
  }
}

/**
 * The program answered the input with an error of its own instead of an
 * answer (its parser's `error`: Claude Code's `Not logged in · Please run
 * /login`, `API Error: …`). `screen` is what the answer was read from.
 *
 * @category errors
 */
export class TerminalAnswerError extends taggedError('TerminalAnswerError', 'failed')<{
  readonly nodeId: string
  readonly said: string
  readonly screen: string
}> {
  constructor(nodeId: string, said: string, screen: string) {
    super(`terminal "${nodeId}": the program did not answer: ${said}`, { nodeId, said, screen })
  }
}

/**
 * The parsed answer, or the {@link TerminalAnswerError} its program said instead.
 *
 * @internal
 */
export const answerOrError = (nodeId: string, parsed: ParsedResponse): ParsedResponse => {
  if (parsed.error !== undefined) throw new TerminalAnswerError(nodeId, parsed.error, parsed.raw)
  return parsed
}

/**
 * An execute was interrupted (its signal was aborted, or
 * {@link Terminal.interrupt} was called) before its answer was complete.
 * Chosen over a resolved, incomplete answer so a graph step fails visibly;
 * `partial` is what came after the input so far.
 *
 * @category errors
 */
export class TerminalInterrupted extends taggedError('TerminalInterrupted', 'failed')<{
  readonly nodeId: string
  readonly partial: string
}> {
  constructor(nodeId: string, partial: string) {
    super(`terminal "${nodeId}": interrupted`, { nodeId, partial })
  }
}

/**
 * An interpreter of a terminal kind: its `start` answers the node's live
 * {@link Terminal} (the handle its keeper holds and hands back to each
 * step as `ctx.live`, and to `stop`).
 *
 * @category terminals
 */
export interface TerminalInterpreter<N extends Node> extends Interpreter<N> {
  start(node: N, ctx: LifecycleContext): Promise<Terminal>
  stop(node: N, ctx: StopContext): Promise<void>
  alive(node: N, live: unknown): boolean
  fork(node: N, id: string, ctx?: ForkContext): Promise<N>
}

/**
 * Options of {@link terminalInterpreter}.
 *
 * @category terminals
 */
export interface TerminalInterpreterOptions {
  /** Where `fork` reads the time it stamps. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Wraps each terminal the interpreter opens (e.g. `withHistory`, which records its operations). */
  readonly decorate?: TerminalDecorator
}

/**
 * Wraps a freshly opened terminal of `node` (not started yet), returning the
 * terminal to use in its place: one with the same members, some of which do
 * more (record history, count, log).
 *
 * @category terminals
 */
export type TerminalDecorator = (terminal: Terminal, node: Node) => Terminal

/**
 * Turns a function that opens a {@link Terminal} for a node into the
 * interpreter of that node kind. It keeps no terminal: `start` opens one,
 * starts it and answers it; `stop` stops the one it is given (`ctx.live`);
 * `execute` and `executeStream` send the step's input as text, with the
 * step's parser and signal, to the step's terminal (`ctx.live`: the
 * session's, or the run's, which starts the node on first use) — given
 * none (a context made by hand), to one started for that execute and
 * stopped after it. `alive` says whether a terminal's program still runs,
 * so its keeper starts a fresh one for the next step once it has exited
 * (`exit` typed into a shell, a killed program). `fork(node, id)` returns `forkNode(id, now)(node)`: the
 * session starts the copy when the source is started (a respawn: a live
 * process cannot be copied). With `decorate`, every terminal it opens is
 * the decorated one.
 *
 * @category terminals
 */
export const terminalInterpreter = <N extends Node>(
  kind: N['kind'],
  open: (node: N) => Terminal,
  forkNode: (id: string, forkTime: string) => (node: N) => N,
  options: TerminalInterpreterOptions = {},
): TerminalInterpreter<N> => {
  const clock = options.clock ?? systemClock
  const api = `${kind}Interpreter`

  const requireKind = (node: N): N => {
    if ((node as Node).kind !== kind) {
      throw new UsageError(api, `node "${node.id}" is a ${node.kind} node, not ${kind}`)
    }
    return node
  }

  const startOne = async (node: N): Promise<Terminal> => {
    const opened = open(requireKind(node))
    const terminal = options.decorate?.(opened, node) ?? opened
    await terminal.start()
    return terminal
  }

  const inputOf = (node: N, input: unknown): string => {
    if (typeof input === 'string') return input
    throw new UsageError(
      api,
      `node "${node.id}": the step's input must be a string, got ${input === null ? 'null' : typeof input}`,
    )
  }

  const optionsOf = (ctx: NodeContext): ExecuteOptions =>
    ctx.parser === undefined ? { signal: ctx.signal } : { signal: ctx.signal, parser: ctx.parser }

  async function* stream(node: N, ctx: NodeContext): AsyncGenerator<string, ParsedResponse> {
    const input = inputOf(node, ctx.input)
    const given = ctx.live as Terminal | undefined
    const terminal = given ?? (await startOne(node))
    try {
      return yield* terminal.executeStream(input, optionsOf(ctx))
    } finally {
      if (given === undefined) await terminal.stop()
    }
  }

  return Object.freeze({
    kind,
    start(node: N, _ctx: LifecycleContext): Promise<Terminal> {
      return startOne(node)
    },
    async stop(_node: N, ctx: StopContext): Promise<void> {
      await (ctx.live as Terminal | undefined)?.stop()
    },
    alive(_node: N, live: unknown): boolean {
      return (live as Terminal).state !== 'stopped'
    },
    async execute(node: N, ctx: NodeContext): Promise<ParsedResponse> {
      const input = inputOf(node, ctx.input)
      const given = ctx.live as Terminal | undefined
      if (given !== undefined) return given.execute(input, optionsOf(ctx))
      const terminal = await startOne(node)
      try {
        return await terminal.execute(input, optionsOf(ctx))
      } finally {
        await terminal.stop()
      }
    },
    executeStream(node: N, ctx: NodeContext): ChunkStream<ParsedResponse> {
      return stream(node, ctx)
    },
    fork(node: N, id: string, ctx?: ForkContext): Promise<N> {
      return new Promise((resolve) => {
        refuseForkPoint(api, node, ctx)
        const time = ctx?.time ?? new Date(clock.now()).toISOString()
        resolve(forkNode(id, time)(requireKind(node)))
      })
    },
  })
}
