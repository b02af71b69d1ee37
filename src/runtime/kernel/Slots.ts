/**
 * The slots of one graph run: at most `max` steps run at once. A step that
 * waits for links gives its slot back (counted per wait) and takes one again
 * when its last wait ends, before any new step starts.
 *
 * @internal
 */
export class Slots {
  readonly max: number
  /** Steps holding a slot. */
  inFlight = 0
  /** Steps that gave their slot back while they wait for links. */
  waiting = 0
  /** Per step, how many of its link waits have given its slot back. */
  #released: Int32Array | undefined = undefined
  /** Steps whose wait ended, waiting for a slot. */
  #resumes: ((take: boolean) => void)[] = []
  readonly #steps: number

  constructor(max: number, steps: number) {
    this.max = max
    this.#steps = steps
  }

  /** Whether nothing runs and nothing waits for links. */
  get idle(): boolean {
    return this.inFlight === 0 && this.waiting === 0
  }

  /** Step `i` finished: frees its slot, or ends the wait that had given it back. */
  finish(i: number): void {
    const released = this.#released
    if (released !== undefined && released[i]! > 0) {
      released[i] = 0
      this.waiting--
    } else this.inFlight--
  }

  /** Step `i` waits for links: whether this freed its slot (then the caller starts more). */
  release(i: number): boolean {
    const released = (this.#released ??= new Int32Array(this.#steps))
    if (released[i]!++ > 0) return false
    this.inFlight--
    this.waiting++
    return true
  }

  /**
   * A wait of step `i` ended: when it was its last, the step takes a slot
   * again, at once (`undefined`) or when {@link resumeNext} gives it one.
   */
  retake(i: number): Promise<void> | undefined {
    const released = this.#released
    // Zero: the step finished meanwhile (see `finish`).
    if (released === undefined || released[i] === 0) return undefined
    if (--released[i]! > 0) return undefined
    if (this.inFlight < this.max && this.#resumes.length === 0) {
      this.waiting--
      this.inFlight++
      return undefined
    }
    return new Promise<void>((resolve) => {
      this.#resumes.push((take) => {
        if (take) {
          this.waiting--
          this.inFlight++
        }
        resolve()
      })
    })
  }

  /** Gives a free slot to the first step waiting to resume; whether there was one. */
  resumeNext(): boolean {
    const next = this.#resumes.shift()
    if (next === undefined) return false
    next(true)
    return true
  }

  /** The run stopped: steps waiting to resume go on without a slot, and end there (they see the abort). */
  cancel(): void {
    const resumes = this.#resumes
    this.#resumes = []
    for (const r of resumes) r(false)
  }
}
