/** The objects left to freeze, shared by calls (each works above the depth it found). */
const stack: object[] = []

/**
 * Freezes a value and everything reachable from it, iteratively. An object
 * that is already frozen is taken as deeply frozen and not walked again: every
 * frozen value this library builds is deep, and walking it again would make
 * building a vertex cost O(history).
 *
 * @internal
 */
export const deepFreeze = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  // Reading a property may run a getter that freezes too: each call keeps to its own part.
  const bottom = stack.length
  stack.push(value)
  try {
    while (stack.length > bottom) {
      const v = stack.pop()!
      Object.freeze(v)
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i]
          if (typeof x === 'object' && x !== null && !Object.isFrozen(x)) stack.push(x)
        }
      } else {
        const keys = Object.keys(v)
        for (let i = 0; i < keys.length; i++) {
          const x = (v as Record<string, unknown>)[keys[i]!]
          if (typeof x === 'object' && x !== null && !Object.isFrozen(x)) stack.push(x)
        }
      }
    }
  } finally {
    // Only a throw leaves anything: setting the length is a call of its own.
    if (stack.length !== bottom) stack.length = bottom
  }
  return value
}
