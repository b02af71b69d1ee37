/**
 * Freezes a value and everything reachable from it, iteratively. An object
 * that is already frozen is taken as deeply frozen and not walked again: every
 * frozen value this library builds is deep, and walking it again would make
 * building a vertex cost O(history).
 *
 * @internal
 */
export const deepFreeze = <T>(value: T): T => {
  // The common case, a value already frozen (or not an object), allocates nothing.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue
    Object.freeze(v)
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key])
  }
  return value
}
