import type * as nodePty from 'node-pty'
import { UsageError } from '../../errors.js'
import type { NodeState } from '../../node/NodeState.js'
import { forkPty, type PtyNode } from '../../node/PtyNode.js'
import type { Clock } from '../../runtime/Clock.js'
import type { ParsedResponse, Parser } from '../parsers/ParsedResponse.js'
import { getParser } from '../parsers/registry.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import { chunkStream } from './chunkStream.js'
import { newMark } from './processTree.js'
import { endTerminalProcesses, spawnPty, type Exit } from './ptyProcess.js'
import { OutputBuffer } from './outputBuffer.js'
import { lastLine, TAIL_CHARS } from './readiness.js'
import { TerminalScreen } from './screen.js'
import { typeAndSubmit } from './screenSubmit.js'
import {
  answerOrError,
  terminalInterpreter,
  TerminalDialog,
  TerminalExited,
  TerminalInterrupted,
  type ExecuteOptions,
  type Terminal,
  type TerminalDecorator,
  type TerminalInterpreter,
} from './Terminal.js'
import { timeoutOf, watchFor, type Watch, type WatchFields } from './watch.js'

/**
 * Options of the PTY terminals made by {@link openPty} and {@link ptyInterpreter}.
 *
 * @category terminals
 */
export interface PtyTerminalOptions {
  /** Milliseconds between `SIGHUP`/`SIGTERM` and `SIGKILL` when stopping (to every process the terminal started). Default: 2000. */
  readonly killGraceMs?: number
  /** Milliseconds a timed-out or interrupted execute waits for the prompt before the next one runs. Default: 2000. */
  readonly drainMs?: number
  /**
   * Characters of output kept by `read()`, and by each execute for its answer;
   * older output is dropped. An answer that lost its start has lost the echo
   * of its input too: the none parser then gives the output kept up to the
   * prompt, with `isComplete` false. Default: 16 Mi.
   */
  readonly maxBufferChars?: number
  /** The parser of the terminal, over the node's parser name (e.g. one written for a program Nerve does not ship a parser for). */
  readonly parser?: Parser
  /** Called with each new state a screen parser reads while the terminal waits on it (a permission prompt, a dialog). */
  readonly onScreenState?: (state: ScreenState) => void
}

/**
 * Options of {@link ptyInterpreter}.
 *
 * @category terminals
 */
export interface PtyInterpreterOptions extends PtyTerminalOptions {
  /** Where `fork` reads the time it stamps. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Wraps each terminal it opens (e.g. `withHistory`, to record the node's history). */
  readonly decorate?: TerminalDecorator
}

/**
 * A PTY terminal, with `reset` on top of {@link Terminal}.
 *
 * @category terminals
 */
export interface PtyTerminal extends Terminal {
  /** The process id of the program (undefined before start). */
  readonly pid: number | undefined
  /** Stops the program and starts it again with an empty buffer. */
  reset(): Promise<void>
  /**
   * The screen as a terminal shows it: the rendered lines of a headless
   * terminal emulator fed with the output (scrollback first, trailing blanks
   * dropped, rows wrapped by the program joined). Kept from the start for a
   * node whose parser reads the screen; otherwise rendered from the newest
   * output on first call, and kept from then on.
   */
  screen(): string
}

const DEFAULT_TIMEOUT_MS = 30_000

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)))
const CTRL_C = '\x03'

/** Output kept to render a screen first asked for late. */
const SCREEN_SEED_CHARS = 1024 * 1024

/** The execute, start or drain in progress: what the output goes to. */
interface Active {
  readonly watcher: Watch
  readonly onChunk: ((chunk: string) => void) | undefined
  /** The program ended: settle. */
  readonly onExit: (exit: Exit) => void
}

interface Turn {
  readonly result: Promise<ParsedResponse>
  /** Resolves when the next execute may write (after a drain). Never rejects. */
  readonly done: Promise<void>
}

const checkOptions = (options: ExecuteOptions): void => {
  const { timeoutMs, quietMs } = options
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError('Terminal.execute', `timeoutMs must be positive, got ${String(timeoutMs)}`)
  }
  if (quietMs !== undefined && !(Number.isFinite(quietMs) && quietMs >= 0)) {
    throw new UsageError('Terminal.execute', `quietMs must be ≥ 0, got ${String(quietMs)}`)
  }
}

class Pty implements PtyTerminal {
  state: NodeState = 'created'
  private proc: nodePty.IPty | undefined
  private exit: Exit | undefined
  private exited: Promise<void> = Promise.resolve()
  private stopping: Promise<void> | undefined
  private active: Active | undefined
  private chain: Promise<void> = Promise.resolve()
  private readonly output: OutputBuffer
  /** The tail of the output before the last `clearBuffer`, for readiness. */
  private keptTail = ''
  private readonly killGraceMs: number
  private readonly drainMs: number
  private readonly maxBufferChars: number
  private readonly parser: Parser | undefined
  private readonly onScreenState: ((state: ScreenState) => void) | undefined
  /** Marks the environment of every process this terminal starts (see processTree.ts). */
  private readonly mark = newMark()
  /** The screen, once a parser or a reader needed it. */
  private screenOf: TerminalScreen | undefined

  constructor(
    private readonly node: PtyNode,
    options: PtyTerminalOptions,
  ) {
    this.killGraceMs = options.killGraceMs ?? 2000
    this.drainMs = options.drainMs ?? 2000
    this.maxBufferChars = options.maxBufferChars ?? 16 * 1024 * 1024
    this.parser = options.parser
    this.onScreenState = options.onScreenState
    this.output = new OutputBuffer(this.maxBufferChars)
  }

  get nodeId(): string {
    return this.node.id
  }

  get pid(): number | undefined {
    return this.proc?.pid
  }

  private parserOf(option: string | Parser | undefined): Parser {
    const p = option ?? this.parser ?? this.node.parser ?? 'none'
    return typeof p === 'string' ? getParser(p) : p
  }

  private quietOf(option: number | undefined, parser: Parser): number {
    return option ?? this.node.quietMs ?? (parser.name === 'none' ? 5 : 30)
  }

  /** The last characters of the output, cleared or not: where the program's prompt shows. */
  private tailText(): string {
    const tail = this.output.tail(TAIL_CHARS)
    return tail.length >= TAIL_CHARS || this.keptTail === ''
      ? tail
      : (this.keptTail + tail).slice(-TAIL_CHARS)
  }

  /** The screen, made (and fed the newest output kept) on first use. */
  private ensureScreen(): TerminalScreen {
    if (this.screenOf === undefined) {
      this.screenOf = new TerminalScreen({
        cols: this.node.cols ?? 120,
        rows: this.node.rows ?? 40,
      })
      this.screenOf.write(this.output.tail(SCREEN_SEED_CHARS))
    }
    return this.screenOf
  }

  screen(): string {
    return this.ensureScreen().text()
  }

  /** A watch of readiness for `parser`: of the screen for a screen parser, else of the stream. */
  private watch(parser: Parser, fields: WatchFields): Watch {
    return watchFor(parser, fields, {
      screen: () => this.ensureScreen(),
      maxChars: this.maxBufferChars,
      onScreenState: this.onScreenState,
    })
  }

  /** Types `input` and submits it: see {@link typeAndSubmit}. */
  private submit(proc: nodePty.IPty, input: string, parser: Parser): void {
    const key = parser.keys?.submit ?? '\r'
    if (parser.reads !== 'screen') {
      proc.write(input.replace(/\r?\n/g, '\r') + key)
      return
    }
    // The execute that types: a late key of one that was interrupted must not reach the next one.
    const active = this.active
    typeAndSubmit({
      input,
      parser,
      screen: this.ensureScreen(),
      write: (data) => {
        proc.write(data)
      },
      live: () => this.proc === proc && this.active === active && active !== undefined,
      onSubmit: () => {
        active?.watcher.sent?.()
      },
    })
  }

  private readonly onData = (chunk: string): void => {
    this.output.push(chunk)
    this.screenOf?.write(chunk)
    const active = this.active
    if (active === undefined) return
    active.onChunk?.(chunk)
    active.watcher.feed(chunk)
  }

  async start(): Promise<void> {
    if (this.state !== 'created') {
      if (this.state === 'stopped') {
        throw new UsageError('Terminal.start', `terminal "${this.nodeId}" is stopped; reset it`)
      }
      return
    }
    this.state = 'starting'
    let resolveExited: () => void = () => undefined
    this.exited = new Promise<void>((resolve) => {
      resolveExited = resolve
    })
    try {
      this.proc = spawnPty(this.node, this.mark, this.onData, (exit) => {
        this.exit = exit
        this.state = 'stopped'
        const active = this.active
        this.active = undefined
        active?.watcher.close()
        active?.onExit(exit)
        resolveExited()
      })
    } catch (e) {
      this.state = 'stopped'
      this.exit = { exitCode: null, signal: undefined }
      throw e
    }
    const parser = this.parserOf(undefined)
    if (parser.reads === 'screen') this.ensureScreen()
    const timeoutMs = this.node.timeoutMs ?? DEFAULT_TIMEOUT_MS
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.active = undefined
          watcher.close()
          reject(timeoutOf(this.nodeId, timeoutMs, watcher))
        }, timeoutMs)
        const watcher = this.watch(parser, {
          input: undefined,
          prompt: undefined,
          quietMs: this.quietOf(undefined, parser),
          onReady: () => {
            clearTimeout(timer)
            this.active = undefined
            resolve()
          },
          onDialog: (state) => {
            clearTimeout(timer)
            this.active = undefined
            const title = state._tag === 'dialog' ? state.title : state._tag
            reject(new TerminalDialog(this.nodeId, title, watcher.text()))
          },
        })
        this.active = {
          watcher,
          onChunk: undefined,
          onExit: (exit) => {
            clearTimeout(timer)
            reject(new TerminalExited(this.nodeId, exit.exitCode, exit.signal, watcher.text()))
          },
        }
        if (parser.reads === 'screen') watcher.check()
        else {
          const before = this.output.text()
          if (before !== '') watcher.feed(before)
        }
      })
    } catch (e) {
      await this.stop()
      throw e
    }
    this.becomeReady('starting')
  }

  /** Back to ready from `from`, unless something (an exit, a stop) moved the state meanwhile. */
  private becomeReady(from: NodeState): void {
    if (this.state === from) this.state = 'ready'
  }

  stop(): Promise<void> {
    if (this.state === 'created') {
      this.state = 'stopped'
      return Promise.resolve()
    }
    this.stopping ??= this.end()
    return this.stopping
  }

  private async end(): Promise<void> {
    const proc = this.proc
    if (this.state === 'stopped' || proc === undefined) return
    this.state = 'stopping'
    await endTerminalProcesses(proc, this.mark, this.exited, this.killGraceMs)
    this.state = 'stopped'
  }

  async reset(): Promise<void> {
    await this.stop()
    await this.chain
    this.stopping = undefined
    this.proc = undefined
    this.exit = undefined
    this.clearBuffer()
    this.keptTail = ''
    this.screenOf?.dispose()
    this.screenOf = undefined
    this.state = 'created'
    await this.start()
  }

  execute(input: string, options: ExecuteOptions = {}): Promise<ParsedResponse> {
    return this.enqueue(input, options, undefined)
  }

  executeStream(
    input: string,
    options: ExecuteOptions = {},
  ): AsyncGenerator<string, ParsedResponse, undefined> {
    return chunkStream({
      run: (onChunk) => this.enqueue(input, options, onChunk),
      pause: () => this.proc?.pause(),
      resume: () => this.proc?.resume(),
      // `+` makes a rope pointing at the chunks; `join` would copy them
      merge: (chunks) => chunks.reduce((all, chunk) => all + chunk),
    })
  }

  private enqueue(
    input: string,
    options: ExecuteOptions,
    onChunk: ((chunk: string) => void) | undefined,
  ): Promise<ParsedResponse> {
    const turn = this.chain.then(() => this.run(input, options, onChunk))
    this.chain = turn.then((t) => t.done)
    return turn.then((t) => t.result)
  }

  private exitedError(partial: string): TerminalExited {
    const exit = this.exit ?? { exitCode: null, signal: undefined }
    return new TerminalExited(this.nodeId, exit.exitCode, exit.signal, partial)
  }

  private run(
    input: string,
    options: ExecuteOptions,
    onChunk: ((chunk: string) => void) | undefined,
  ): Turn {
    const settled = (result: Promise<ParsedResponse>): Turn => ({ result, done: Promise.resolve() })
    let parser: Parser
    try {
      if (typeof input !== 'string') {
        throw new UsageError('Terminal.execute', `input must be a string, got ${typeof input}`)
      }
      checkOptions(options)
      parser = this.parserOf(options.parser)
    } catch (e) {
      return settled(Promise.reject(asError(e)))
    }
    if (this.state === 'created' || this.state === 'starting') {
      return settled(
        Promise.reject(new UsageError('Terminal.execute', `start terminal "${this.nodeId}" first`)),
      )
    }
    if (this.state !== 'ready' || this.proc === undefined) {
      return settled(Promise.reject(this.exitedError('')))
    }
    const { signal } = options
    if (signal?.aborted === true) {
      return settled(Promise.reject(new TerminalInterrupted(this.nodeId, '')))
    }
    const proc = this.proc
    const timeoutMs = options.timeoutMs ?? this.node.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const tail = this.tailText()
    const prompt = parser.isReady(tail) ? lastLine(tail) : undefined
    let release: () => void = () => undefined
    const done = new Promise<void>((resolve) => {
      release = resolve
    })
    const result = new Promise<ParsedResponse>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        if (this.active === active) this.active = undefined
      }
      const watcher = this.watch(parser, {
        input,
        prompt,
        quietMs: this.quietOf(options.quietMs, parser),
        onReady: () => {
          finish()
          this.becomeReady('busy')
          release()
          try {
            resolve(answerOrError(this.nodeId, parser.parse(watcher.text(), { input })))
          } catch (e) {
            reject(asError(e))
          }
        },
      })
      // Ctrl+C, settle now, and hold the queue until the program is back at its prompt.
      const abandon = (error: Error): void => {
        watcher.close()
        finish()
        reject(error)
        this.drain(parser, release)
      }
      const onAbort = (): void => {
        abandon(new TerminalInterrupted(this.nodeId, watcher.text()))
      }
      const active: Active & { interrupt: () => void } = {
        watcher,
        onChunk,
        onExit: (exit) => {
          finish()
          release()
          reject(new TerminalExited(this.nodeId, exit.exitCode, exit.signal, watcher.text()))
        },
        interrupt: onAbort,
      }
      const timer = setTimeout(() => {
        abandon(timeoutOf(this.nodeId, timeoutMs, watcher))
      }, timeoutMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.active = active
      this.state = 'busy'
      this.submit(proc, input, parser)
    })
    return { result, done }
  }

  /**
   * Interrupts what runs and waits (up to `drainMs`) for the prompt, then
   * lets the queue go on. The key is sent again each quarter of the way
   * while the screen still does not read as ready: a busy program can miss
   * a key that comes between its screens (an agent that has just sent its
   * request), or several on a loaded machine.
   */
  private drain(parser: Parser, release: () => void): void {
    const proc = this.proc
    if (this.state !== 'busy' || proc === undefined) {
      release()
      return
    }
    const key = parser.keys?.interrupt ?? CTRL_C
    const end = (): void => {
      clearTimeout(timer)
      clearInterval(again)
      if (this.active === active) this.active = undefined
      this.becomeReady('busy')
      release()
    }
    const watcher = this.watch(parser, {
      input: undefined,
      prompt: undefined,
      // A screen drawn just after the key can be a frame behind (the input still in the box):
      // the prompt counts once it has held an eighth of `drainMs`.
      quietMs:
        parser.reads === 'screen'
          ? Math.max(this.quietOf(undefined, parser), this.drainMs / 8)
          : this.quietOf(undefined, parser),
      onReady: end,
    })
    const active: Active = { watcher, onChunk: undefined, onExit: end }
    const timer = setTimeout(() => {
      watcher.close()
      end()
    }, this.drainMs)
    const again = setInterval(() => {
      // Not when the prompt is back and only the quiet window runs: a second Escape opens a menu.
      if (this.active !== active || this.proc !== proc || parser.isReady(watcher.text())) return
      proc.write(key)
    }, this.drainMs / 4)
    this.active = active
    proc.write(key)
    // The screen as it stood may be a frame behind (the turn not drawn yet): only what follows counts.
    watcher.sent?.()
  }

  write(data: string): Promise<void> {
    if (this.proc === undefined || this.state === 'stopped' || this.state === 'stopping') {
      return Promise.reject(this.exitedError(''))
    }
    this.proc.write(data)
    return Promise.resolve()
  }

  read(): string {
    return this.output.text()
  }

  readTail(lines: number): string {
    if (!Number.isSafeInteger(lines) || lines < 0) {
      throw new UsageError(
        'Terminal.readTail',
        `lines must be a non-negative integer, got ${lines}`,
      )
    }
    if (lines === 0) return ''
    const all = this.read()
    let at = all.length
    for (let n = 0; n < lines && at > 0; n++) at = all.lastIndexOf('\n', at - 1)
    return at <= 0 ? all : all.slice(at + 1)
  }

  /** Empties the buffer. The short tail kept for readiness stays: the next execute still knows the prompt it starts from. */
  clearBuffer(): void {
    this.keptTail = this.tailText()
    this.output.clear()
  }

  interrupt(): Promise<void> {
    const active = this.active as (Active & { interrupt?: () => void }) | undefined
    if (active?.interrupt !== undefined) active.interrupt()
    else if (this.proc !== undefined && this.state !== 'stopped') {
      this.proc.write(this.parserOf(undefined).keys?.interrupt ?? CTRL_C)
    }
    return Promise.resolve()
  }
}

/**
 * Opens a PTY terminal for a node (not started: call `start`). The program
 * runs in a pseudo-terminal through node-pty, in a session and process group
 * of its own, its environment marked with `NERVE_TERMINAL_ID`. `stop` ends
 * everything the terminal started: the group gets `SIGHUP` and `SIGTERM`, and
 * so does every other process of its session, of its process tree or carrying
 * its mark (a background job in a group of its own, a `nohup` job, a daemon
 * that called `setsid`); what still runs after `killGraceMs` gets `SIGKILL`.
 * It resolves when they are all gone (on Linux, read from `/proc`; elsewhere
 * only the group is signalled).
 *
 * A parser that reads the screen (`reads: 'screen'`: Claude Code, Codex,
 * Gemini CLI) gets the rendered lines of a headless terminal emulator
 * (xterm.js) fed with the output, and `screen()` shows them. Readiness is
 * decided from the screen on each change: its `classify` must say `ready`,
 * on a screen drawn after the submit key and once the input shows in the history, and
 * hold through the quiet window (unless the parser's `finished` says the
 * turn ended for certain); a screen it cannot classify (`unknown`)
 * is never ready, and the timeout's error carries the screen. The input is
 * typed, then, once the screen changed, the parser's submit key is sent
 * alone. At start, a dialog that holds through the quiet window rejects
 * with {@link TerminalDialog}. An interrupt sends the parser's interrupt key.
 *
 * A stream parser (`none`: shells, REPLs) reads the output stream instead:
 * each execute collects the chunks that came after its own input (the
 * newest `maxBufferChars` of them), asks the parser's `isReady` on their
 * tail as each arrives, and parses them when readiness held through the
 * quiet window (the none parser strips ANSI and drops the echoed input
 * line). An answer may be longer than any screen holds.
 *
 * Readiness counts only after a line end came back (the echo of the input),
 * so the prompt the input was typed at is never taken for the answer. The
 * quiet window adapts: when the output ends with the very prompt line the
 * input was typed at, one idle turn of the event loop confirms it (any output
 * already waiting in the pty is read within that turn), so a shell round trip
 * costs no fixed wait; otherwise readiness must hold `quietMs` (the node's,
 * else 5 ms for the none parser, whose prompt test is strict, else 30 ms).
 *
 * A timeout or an interrupt (the execute's signal, or `interrupt()`) rejects
 * at once with {@link TerminalTimeout} or {@link TerminalInterrupted}, sends
 * the parser's interrupt key (Ctrl+C by default), and holds the next execute
 * until a screen drawn after that key shows the prompt back (at most
 * `drainMs`, the key sent again each quarter of it while the program still
 * reads busy; a screen parser's prompt must hold an eighth of it, since the
 * first screens after the key can be a frame behind the program), so the
 * terminal stays usable; no key of the interrupted
 * execute is sent after it. When the program ends, the state
 * is `stopped` and executes reject with {@link TerminalExited}.
 *
 * @category terminals
 */
export const openPty = (node: PtyNode, options: PtyTerminalOptions = {}): PtyTerminal =>
  new Pty(node, options)

/**
 * The interpreter of PTY nodes. It holds live processes, so it is not among
 * the default interpreters: make one and add it.
 *
 * @category interpreters
 * @example
 * import { defaultInterpreters } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { ptyInterpreter } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const registry = interpreters(...defaultInterpreters.values(), ptyInterpreter())
 * assert.ok(registry.has('pty'))
 */
export const ptyInterpreter = (options: PtyInterpreterOptions = {}): TerminalInterpreter<PtyNode> =>
  terminalInterpreter<PtyNode>('pty', (node) => openPty(node, options), forkPty, options)
