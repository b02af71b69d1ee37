/**
 * A {@link Terminal} over a pane of a terminal multiplexer (tmux, WezTerm),
 * where the screen is read by asking the multiplexer for the pane's text
 * rather than by reading the program's output stream. Internal: not exported
 * from the package.
 *
 * Each execute marks the pane's cursor line (an absolute line number across
 * scrollback and screen), types its input, and from then on reads only the
 * text from that line on. It is complete when the parser says ready and its
 * `parse(text, { input })` is complete (the input's own line was found above
 * the prompt), and stays so through a quiet window with no change. The text
 * is re-read on each output event of the backend (tmux: `pipe-pane`), or, for
 * a backend with no events (WezTerm's CLI), on an adaptive timer: 10 ms,
 * doubling while nothing changes, up to 200 ms.
 */
import { UsageError } from '../../errors.js'
import type { NodeState } from '../../node/NodeState.js'
import type { ParsedResponse, Parser } from '../parsers/ParsedResponse.js'
import { getParser } from '../parsers/registry.js'
import { chunkStream } from './chunkStream.js'
import {
  answerOrError,
  TerminalExited,
  TerminalInterrupted,
  TerminalTimeout,
  type ExecuteOptions,
  type Terminal,
} from './Terminal.js'

/** How a pane's program ended, when the backend could tell (else both are unknown). */
export interface PaneExit {
  /** Its exit status, `null` when it was killed by a signal or the status is unknown. */
  readonly exitCode: number | null
  /** The signal that killed it (`SIGKILL`), if one did. */
  readonly signal: string | undefined
}

/** What a multiplexer must offer for a {@link PaneTerminal}. */
export interface PaneBackend {
  /** Whether `open`'s `onOutput` fires on output; without events the text is re-read on a timer. */
  readonly events: boolean
  /**
   * Spawns or attaches to the pane. `onOutput` is called on output, `onGone`
   * when the pane's program exited or the pane closed (with how it ended, if known).
   */
  open(onOutput: () => void, onGone: (exit?: PaneExit) => void): Promise<void>
  /** Kills what the backend spawned; leaves an attached pane alone. Idempotent. */
  close(): Promise<void>
  /** The absolute line of the cursor (across scrollback and screen). */
  mark(): Promise<number>
  markSync(): number
  /** The pane's text from absolute line `from` (from the top of the scrollback when undefined). */
  capture(from: number | undefined): Promise<string>
  captureSync(from: number | undefined): string
  /** Types `text` as it is (no paste brackets, no newline added). */
  sendText(text: string): Promise<void>
  /** Types `text`, then presses Enter. */
  sendLine(text: string): Promise<void>
  /** Presses Ctrl+C. */
  sendInterrupt(): Promise<void>
  /** Whether the pane still exists. */
  alive(): Promise<boolean>
}

/** The configuration a pane terminal reads from its node. */
export interface PaneConfig {
  readonly nodeId: string
  readonly parser?: string
  readonly timeoutMs?: number
  readonly quietMs?: number
  /**
   * Lines above the cursor line that each execute reads too: for programs
   * that redraw the line carrying the input above where it was typed (Claude
   * Code's input box). Default: 0 with the `none` parser (which reads the
   * first echo of the input), else 4 (agent parsers read the last prompt line
   * carrying the input).
   */
  readonly contextLines?: number
}

/** The {@link PaneConfig} of a node that has those fields. */
export const paneConfig = (node: {
  readonly id: string
  readonly parser?: string
  readonly timeoutMs?: number
  readonly quietMs?: number
}): PaneConfig => ({
  nodeId: node.id,
  ...(node.parser === undefined ? {} : { parser: node.parser }),
  ...(node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs }),
  ...(node.quietMs === undefined ? {} : { quietMs: node.quietMs }),
})

const AGENT_CONTEXT_LINES = 4
const POLL_MIN_MS = 10
const POLL_MAX_MS = 200
const DRAIN_MS = 2000
/** Captures that may fail in a row while the pane still lives (its program just ended) before an execute fails. */
const CAPTURE_TRIES = 3

/** Lines without trailing blanks, and no blank lines at the end. */
export const normalize = (text: string): string => {
  const lines = text.split('\n').map((l) => l.replace(/[\s\r]+$/, ''))
  let end = lines.length
  while (end > 0 && lines[end - 1] === '') end--
  return lines.slice(0, end).join('\n')
}

const changeOf = (before: string, after: string): string => {
  let i = 0
  const n = Math.min(before.length, after.length)
  while (i < n && before.charCodeAt(i) === after.charCodeAt(i)) i++
  return after.slice(i)
}

const checkOptions = (options: ExecuteOptions): void => {
  const { timeoutMs, quietMs } = options
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError('Terminal.execute', `timeoutMs must be > 0, got ${String(timeoutMs)}`)
  }
  if (quietMs !== undefined && !(Number.isFinite(quietMs) && quietMs >= 0)) {
    throw new UsageError('Terminal.execute', `quietMs must be ≥ 0, got ${String(quietMs)}`)
  }
}

interface Wait {
  readonly from: number | undefined
  readonly input: string | undefined
  readonly parser: Parser
  readonly quietMs: number
  readonly timeoutMs: number
  readonly onChunk: ((chunk: string) => void) | undefined
}

interface Pending {
  readonly kick: () => void
  readonly fail: (e: Error) => void
  readonly partial: () => string
  /** The pane's text since the input, read now (the last output event may not have been read yet). */
  readonly fresh: () => Promise<string>
}

/** A {@link Terminal} over a {@link PaneBackend}. */
export class PaneTerminal implements Terminal {
  private current: NodeState = 'created'
  private queue: Promise<unknown> = Promise.resolve()
  private pending: Pending | undefined
  private origin: number | undefined
  private stopping: Promise<void> | undefined
  private exited: PaneExit | undefined
  /** `interrupt()` came while an execute was busy but not yet waiting (its input being typed). */
  private interruptedEarly = false

  constructor(
    private readonly config: PaneConfig,
    private readonly backend: PaneBackend,
    /** Whether this terminal's operations go to the node's history (false when a wrapper owns it). */
    readonly recordsHistory = true,
  ) {}

  get nodeId(): string {
    return this.config.nodeId
  }

  get state(): NodeState {
    return this.current
  }

  async start(): Promise<void> {
    if (this.current !== 'created') {
      throw new UsageError('Terminal.start', `terminal "${this.nodeId}" is ${this.current}`)
    }
    this.current = 'starting'
    try {
      await this.backend.open(
        () => this.pending?.kick(),
        (exit) => {
          this.gone(exit)
        },
      )
      if (this.exited !== undefined) {
        throw new TerminalExited(this.nodeId, this.exited.exitCode, this.exited.signal, '')
      }
      const parser = this.parserOf(undefined)
      await this.waitFor({
        from: undefined,
        input: undefined,
        parser,
        quietMs: this.quietOf(undefined, parser),
        timeoutMs: this.config.timeoutMs ?? 30_000,
        onChunk: undefined,
      })
      if (this.is('starting')) this.current = 'ready'
    } catch (e) {
      await this.backend.close().catch(() => undefined)
      this.current = 'stopped'
      throw e
    }
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.current === 'created') {
        this.current = 'stopped'
        return
      }
      if (this.current !== 'stopped') this.current = 'stopping'
      this.pending?.fail(new TerminalExited(this.nodeId, null, 'SIGHUP', this.pending.partial()))
      await this.backend.close()
      this.current = 'stopped'
    })()
    return this.stopping
  }

  execute(input: string, options: ExecuteOptions = {}): Promise<ParsedResponse> {
    checkOptions(options)
    return this.enqueue(() => this.run(input, options, undefined))
  }

  executeStream(
    input: string,
    options: ExecuteOptions = {},
  ): AsyncIterable<string, ParsedResponse, undefined> {
    checkOptions(options)
    return chunkStream<ParsedResponse>({
      run: (onChunk) => this.enqueue(() => this.run(input, options, onChunk)),
      pause: () => undefined,
      resume: () => undefined,
    })
  }

  write(data: string): Promise<void> {
    this.requireLive('Terminal.write')
    return this.backend.sendText(data)
  }

  read(): string {
    this.requireLive('Terminal.read')
    return normalize(this.backend.captureSync(this.origin))
  }

  readTail(lines: number): string {
    if (!Number.isSafeInteger(lines) || lines < 0) {
      throw new UsageError(
        'Terminal.readTail',
        `lines must be a non-negative integer, got ${lines}`,
      )
    }
    if (lines === 0) return ''
    return this.read().split('\n').slice(-lines).join('\n')
  }

  clearBuffer(): void {
    this.requireLive('Terminal.clearBuffer')
    this.origin = this.backend.markSync()
  }

  async interrupt(): Promise<void> {
    this.requireLive('Terminal.interrupt')
    const pending = this.pending
    if (pending === undefined && this.current === 'busy') {
      // The input is being typed: its wait sends Ctrl+C once it is, so the input is not cut.
      this.interruptedEarly = true
      return
    }
    // Read before Ctrl+C, so the partial answer holds what the pane showed when interrupted;
    // settle before it, so the prompt Ctrl+C brings back is not taken for the answer.
    const partial = await pending?.fresh()
    pending?.fail(new TerminalInterrupted(this.nodeId, partial ?? ''))
    await this.backend.sendInterrupt()
  }

  /** The state now (a method, so the compiler does not narrow it across awaits). */
  private is(state: NodeState): boolean {
    return this.current === state
  }

  private requireLive(api: string): void {
    if (this.current === 'created' || this.current === 'stopped') {
      throw new UsageError(api, `terminal "${this.nodeId}" is ${this.current}`)
    }
  }

  /** The pane closed by itself: fails what waits (even during `start`) with how it ended. */
  private gone(exit?: PaneExit): void {
    if (this.current === 'stopping' || this.stopping !== undefined) return
    this.exited ??= exit ?? { exitCode: null, signal: undefined }
    const { exitCode, signal } = this.exited
    this.pending?.fail(new TerminalExited(this.nodeId, exitCode, signal, this.pending.partial()))
    if (this.current === 'stopped') return
    this.current = 'stopped'
    void this.backend.close().catch(() => undefined)
  }

  private parserOf(option: ExecuteOptions['parser']): Parser {
    const p = option ?? this.config.parser ?? 'none'
    return typeof p === 'string' ? getParser(p) : p
  }

  private quietOf(option: number | undefined, parser: Parser): number {
    return option ?? this.config.quietMs ?? (parser.name === 'none' ? 5 : 30)
  }

  private enqueue<R>(work: () => Promise<R>): Promise<R> {
    const next = this.queue.then(work, work)
    this.queue = next.catch(() => undefined)
    return next
  }

  private async run(
    input: string,
    options: ExecuteOptions,
    onChunk: ((chunk: string) => void) | undefined,
  ): Promise<ParsedResponse> {
    if (this.current !== 'ready') {
      if (this.current === 'stopped' || this.current === 'stopping') {
        const { exitCode, signal } = this.exited ?? { exitCode: null, signal: undefined }
        throw new TerminalExited(this.nodeId, exitCode, signal, '')
      }
      throw new UsageError('Terminal.execute', `terminal "${this.nodeId}" is ${this.current}`)
    }
    options.signal?.throwIfAborted()
    const parser = this.parserOf(options.parser)
    this.current = 'busy'
    this.interruptedEarly = false
    const onAbort = (): void => void this.interrupt().catch(() => undefined)
    options.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const context = this.config.contextLines ?? (parser.name === 'none' ? 0 : AGENT_CONTEXT_LINES)
      const from = Math.max(0, (await this.backend.mark()) - context)
      await this.backend.sendLine(input)
      const parsed = await this.waitFor({
        from,
        input,
        parser,
        quietMs: this.quietOf(options.quietMs, parser),
        timeoutMs: options.timeoutMs ?? this.config.timeoutMs ?? 30_000,
        onChunk,
      })
      return answerOrError(this.nodeId, parsed)
    } catch (e) {
      if (e instanceof TerminalInterrupted && this.is('busy')) await this.drain(parser)
      throw e
    } finally {
      options.signal?.removeEventListener('abort', onAbort)
      if (this.is('busy')) this.current = 'ready'
    }
  }

  /** After an interrupt: lets the program come back to its prompt before the next execute types. */
  private async drain(parser: Parser): Promise<void> {
    const from = await this.backend.mark().catch(() => undefined)
    if (from === undefined) return
    await this.waitFor({
      from: Math.max(0, from - 1),
      input: undefined,
      parser,
      quietMs: this.quietOf(undefined, parser),
      timeoutMs: DRAIN_MS,
      onChunk: undefined,
    }).catch(() => undefined)
  }

  /** Resolves when the text from `w.from` is complete for the parser and stays so for the quiet window. */
  private waitFor(w: Wait): Promise<ParsedResponse> {
    return new Promise<ParsedResponse>((resolve, reject) => {
      let last: string | undefined
      // Changed by callbacks while a capture is awaited: read through `now`.
      const now = { running: false, dirty: false, settled: false, failures: 0 }
      let quiet: ReturnType<typeof setTimeout> | undefined
      let quietElapsed = false
      let poll: ReturnType<typeof setTimeout> | undefined
      let delay = POLL_MIN_MS
      const opts = w.input === undefined ? {} : { input: w.input }

      const finish = (settle: () => void): void => {
        if (now.settled) return
        now.settled = true
        clearTimeout(quiet)
        clearTimeout(poll)
        clearTimeout(deadline)
        if (this.pending === pending) this.pending = undefined
        settle()
      }
      const complete = (text: string): ParsedResponse | undefined => {
        if (!w.parser.isReady(text)) return undefined
        const parsed = w.parser.parse(text, opts)
        return parsed.isComplete ? parsed : undefined
      }
      const evaluate = (text: string): void => {
        const changed = text !== last
        if (changed) {
          if (last !== undefined || text !== '') w.onChunk?.(changeOf(last ?? '', text))
          last = text
          clearTimeout(quiet)
          quiet = undefined
          quietElapsed = false
          delay = POLL_MIN_MS
        }
        const parsed = complete(text)
        if (parsed !== undefined) {
          if (quietElapsed || w.quietMs === 0) {
            finish(() => {
              resolve(parsed)
            })
            return
          }
          if (quiet === undefined) {
            quiet = setTimeout(() => {
              quietElapsed = true
              check()
            }, w.quietMs)
          }
        }
        if (!this.backend.events) {
          poll = setTimeout(check, delay)
          delay = Math.min(delay * 2, POLL_MAX_MS)
        }
      }
      const settled = (): boolean => now.settled
      const dirty = (): boolean => now.dirty
      const check = (): void => {
        if (now.settled) return
        if (now.running) {
          now.dirty = true
          return
        }
        now.running = true
        clearTimeout(poll)
        void (async () => {
          try {
            do {
              now.dirty = false
              const text = normalize(await this.backend.capture(w.from))
              now.failures = 0
              if (settled()) return
              evaluate(text)
            } while (dirty() && !settled())
          } catch (e) {
            if (settled()) return
            if (!(await this.backend.alive().catch(() => false))) this.gone()
            // A pane whose program just ended can fail a capture before the server says it died.
            else if (++now.failures < CAPTURE_TRIES) poll = setTimeout(check, 50)
            else
              finish(() => {
                reject(e instanceof Error ? e : new Error(String(e)))
              })
          } finally {
            now.running = false
          }
        })()
      }
      const pending: Pending = {
        kick: check,
        fail: (e) => {
          finish(() => {
            reject(e)
          })
        },
        partial: () => last ?? '',
        fresh: () => this.backend.capture(w.from).then(normalize, () => last ?? ''),
      }
      const deadline = setTimeout(() => {
        finish(() => {
          reject(new TerminalTimeout(this.nodeId, w.timeoutMs, last ?? ''))
        })
      }, w.timeoutMs)
      this.pending = pending
      if (this.interruptedEarly) {
        // Interrupted while its input was typed: Ctrl+C now that it is, and settle.
        this.interruptedEarly = false
        void (async () => {
          pending.fail(new TerminalInterrupted(this.nodeId, await pending.fresh()))
          await this.backend.sendInterrupt()
        })().catch(() => undefined)
      } else check()
    })
  }
}
