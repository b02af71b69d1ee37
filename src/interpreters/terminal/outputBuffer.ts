/**
 * A terminal's output as it streams in: appended chunk by chunk, read whole
 * or by its tail, optionally bounded. Internal: not exported from the
 * package.
 *
 * A flood comes as thousands of 4 KB chunks, and copying them is what costs
 * (each copy touches fresh memory). So nothing here copies: chunks are
 * concatenated into blocks of about {@link BLOCK_CHARS} with `+`, which in
 * V8 makes a rope (a cons string) pointing at them, and the whole output is
 * a rope of its blocks; the one copy is made by whoever first reads it flat
 * (the parser). A bounded buffer drops whole blocks from its front. The tail
 * is read from the newest chunks, kept apart, so asking for it never
 * flattens a block.
 */

/** Characters gathered into one block. */
export const BLOCK_CHARS = 256 * 1024

/** A terminal's output, appended in chunks. */
export class OutputBuffer {
  /** Sealed blocks (ropes); those before `head` were dropped. */
  private blocks: string[] = []
  private head = 0
  private blocksSize = 0
  /** The block being gathered. */
  private current = ''
  /** The newest chunks, at least `tailChars` of them when there are: the tail is read from these. */
  private recent: string[] = []
  private recentSize = 0

  /**
   * `max`: characters kept (older output is dropped; unbounded by default);
   * `tailChars`: the longest tail read without flattening the output.
   */
  constructor(
    private readonly max = Infinity,
    private readonly tailChars = 4096,
  ) {}

  /** Characters held (at most `max` plus a block). */
  get size(): number {
    return this.blocksSize + this.current.length
  }

  push(chunk: string): void {
    if (chunk === '') return
    this.current += chunk
    this.recent.push(chunk)
    this.recentSize += chunk.length
    while (this.recentSize - this.recent[0]!.length >= this.tailChars) {
      this.recentSize -= this.recent.shift()!.length
    }
    if (this.current.length >= BLOCK_CHARS) this.seal()
  }

  /** The whole output kept, at most `max` characters: the newest ones. */
  text(): string {
    this.seal()
    let all = ''
    for (let i = this.head; i < this.blocks.length; i++) all += this.blocks[i]!
    this.blocks = all === '' ? [] : [all]
    this.head = 0
    return all.length > this.max ? all.slice(all.length - this.max) : all
  }

  /** The last `n` characters (fewer when there are fewer). */
  tail(n: number): string {
    if (n > this.recentSize && this.size > this.recentSize) {
      const all = this.text()
      return all.slice(Math.max(0, all.length - n))
    }
    const parts: string[] = []
    let need = n
    for (let i = this.recent.length - 1; i >= 0 && need > 0; i--) {
      const piece = this.recent[i]!
      parts.push(piece.length > need ? piece.slice(piece.length - need) : piece)
      need -= piece.length
    }
    return parts.length === 1 ? parts[0]! : parts.reverse().join('')
  }

  clear(): void {
    this.blocks = []
    this.head = 0
    this.blocksSize = 0
    this.current = ''
    this.recent = []
    this.recentSize = 0
  }

  private seal(): void {
    if (this.current === '') return
    this.blocks.push(this.current)
    this.blocksSize += this.current.length
    this.current = ''
    // Drop whole blocks from the front while the rest still holds `max` characters.
    while (
      this.head < this.blocks.length - 1 &&
      this.blocksSize - this.blocks[this.head]!.length >= this.max
    ) {
      this.blocksSize -= this.blocks[this.head]!.length
      this.blocks[this.head] = ''
      this.head++
    }
    if (this.head > 32 && this.head * 2 > this.blocks.length) {
      this.blocks = this.blocks.slice(this.head)
      this.head = 0
    }
  }
}
