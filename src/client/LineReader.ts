/**
 * NDJSON framing for byte streams: chunks in, whole lines out, with a bound
 * on the bytes one line may take. A line over the bound is reported once and
 * then skipped up to its newline without being kept, so a peer cannot make
 * the daemon hold more than the bound for one connection.
 */

/**
 * 16 MiB: the default bound on one line.
 *
 * @category server
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024

/**
 * 256: how many of the first and of the last bytes of a line over the bound
 * are kept, to tell what it was.
 *
 * @category server
 */
export const LINE_ENDS = 256

/** The first `n` bytes of `chunks`. */
const headOf = (chunks: readonly Buffer[], n: number): Buffer => {
  const out: Buffer[] = []
  let have = 0
  for (const c of chunks) {
    if (have >= n) break
    out.push(c.subarray(0, n - have))
    have += Math.min(c.length, n - have)
  }
  return Buffer.concat(out)
}

/** The last `n` bytes of `chunks`. */
const tailOf = (chunks: readonly Buffer[], n: number): Buffer => {
  const out: Buffer[] = []
  let have = 0
  for (let i = chunks.length - 1; i >= 0 && have < n; i--) {
    const c = chunks[i]!
    out.unshift(c.subarray(Math.max(0, c.length - (n - have))))
    have += Math.min(c.length, n - have)
  }
  return Buffer.concat(out)
}

const NEWLINE = 0x0a
const RETURN = 0x0d

/**
 * What a {@link LineReader} reports.
 *
 * @category server
 */
export interface LineHandlers {
  /** A whole line, decoded as UTF-8, without its newline (and without a `\r` before it). Empty lines are skipped. */
  readonly line: (line: string) => void
  /**
   * A line grew past the bound; its bytes up to the next newline are
   * dropped. Called once per such line, with its first and last bytes
   * ({@link LINE_ENDS} of each, as text) for a reply that names its id.
   */
  readonly oversize: (bytes: number, ends: { readonly head: string; readonly tail: string }) => void
  /** A line just grew past the bound (before its newline came): a peer that is not trusted can be cut off here. */
  readonly overflowing?: () => void
}

/**
 * Splits a byte stream into lines of at most `maxLineBytes` bytes.
 *
 * @category server
 * @example
 * import { LineReader } from 'nerve-agents/client'
 * import assert from 'assert'
 *
 * const lines: string[] = []
 * let tooLong = 0
 * const reader = new LineReader(8, { line: (l) => lines.push(l), oversize: () => tooLong++ })
 * reader.push(Buffer.from('{"a":1}\n{"b"'))
 * reader.push(Buffer.from(':2}\r\nfar too long a line\nok\n'))
 * assert.deepStrictEqual(lines, ['{"a":1}', '{"b":2}', 'ok'])
 * assert.strictEqual(tooLong, 1)
 */
export class LineReader {
  private pending: Buffer[] = []
  private pendingBytes = 0
  /** Inside a line that went over the bound: drop until the next newline. */
  private discarding = false
  private discarded = 0
  private head: Buffer = Buffer.alloc(0)
  private tail: Buffer = Buffer.alloc(0)

  constructor(
    private maxLineBytes: number,
    private readonly handlers: LineHandlers,
  ) {}

  /** The bound on one line. */
  get limit(): number {
    return this.maxLineBytes
  }

  /** Changes the bound for the lines still to come (a peer that authenticated may send longer ones). */
  set limit(bytes: number) {
    this.maxLineBytes = bytes
  }

  /** Feeds one chunk; calls the handlers for every line it completes. */
  push(chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      const end = nl === -1 ? chunk.length : nl
      if (this.discarding) {
        this.discarded += end - start
        this.tail = tailOf([this.tail, chunk.subarray(start, end)], LINE_ENDS)
        if (nl !== -1) this.dropped()
      } else if (this.pendingBytes + (end - start) > this.maxLineBytes) {
        this.discarding = true
        this.discarded = this.pendingBytes + (end - start)
        const seen = [...this.pending, chunk.subarray(start, end)]
        this.head = headOf(seen, LINE_ENDS)
        this.tail = tailOf(seen, LINE_ENDS)
        this.pending = []
        this.pendingBytes = 0
        this.handlers.overflowing?.()
        if (nl !== -1) this.dropped()
      } else if (nl === -1) {
        this.pending.push(chunk.subarray(start))
        this.pendingBytes += chunk.length - start
      } else {
        this.emit(chunk, start, end)
      }
      start = end + 1
    }
  }

  /** The line being dropped has ended: report it. */
  private dropped(): void {
    const ends = { head: this.head.toString('utf8'), tail: this.tail.toString('utf8') }
    const bytes = this.discarded
    this.discarding = false
    this.discarded = 0
    this.head = Buffer.alloc(0)
    this.tail = Buffer.alloc(0)
    this.handlers.oversize(bytes, ends)
  }

  /** Whether a partial line is waiting for its newline. */
  get partial(): boolean {
    return this.pendingBytes > 0 || this.discarding
  }

  private emit(chunk: Buffer, start: number, end: number): void {
    let bytes: Buffer
    if (this.pending.length === 0) bytes = chunk.subarray(start, end)
    else {
      this.pending.push(chunk.subarray(start, end))
      bytes = Buffer.concat(this.pending)
      this.pending = []
      this.pendingBytes = 0
    }
    const length =
      bytes.length > 0 && bytes[bytes.length - 1] === RETURN ? bytes.length - 1 : bytes.length
    if (length === 0) return
    this.handlers.line(bytes.toString('utf8', 0, length))
  }
}
