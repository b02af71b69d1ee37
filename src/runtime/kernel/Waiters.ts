interface Waiter {
  readonly promise: Promise<void>
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

/**
 * Promises of steps finishing, made only for the steps someone waits for
 * (a link to a step that has not finished).
 *
 * @internal
 */
export class Waiters {
  #all: (Waiter | undefined)[] | undefined = undefined

  /** Resolves when {@link done} is called for `i`; rejects when {@link fail} is. */
  wait(i: number): Promise<void> {
    const all = (this.#all ??= [])
    let waiter = all[i]
    if (waiter === undefined) {
      let resolve: () => void = () => undefined
      let reject: (e: unknown) => void = () => undefined
      const promise = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      waiter = { promise, resolve, reject }
      all[i] = waiter
    }
    return waiter.promise
  }

  /** Step `i` finished with a value. */
  done(i: number): void {
    this.#all?.[i]?.resolve()
  }

  /** The graph stopped: every wait rejects with `error`. */
  fail(error: unknown): void {
    if (this.#all !== undefined) for (const w of this.#all) w?.reject(error)
  }
}
