interface MutableUsage {
  tokens: number
  apiCalls: number
  cost: number
}

/**
 * What each step of a graph run used: its attempts' reports, its nested
 * graphs', and those of the materializations it asked for. Kept only for
 * steps that report any.
 *
 * @internal
 */
export class StepUsage {
  #slots: (MutableUsage | undefined)[] | undefined = undefined

  add(i: number, tokens: number, apiCalls: number, cost: number): void {
    const slot = ((this.#slots ??= [])[i] ??= { tokens: 0, apiCalls: 0, cost: 0 })
    slot.tokens += tokens
    slot.apiCalls += apiCalls
    slot.cost += cost
  }

  /** Step `i`'s usage so far; `undefined` when it reported none. */
  of(i: number): Readonly<MutableUsage> | undefined {
    return this.#slots?.[i]
  }
}
