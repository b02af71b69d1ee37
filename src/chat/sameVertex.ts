import { Vertex } from '../dag/index.js'

/** How many keys of a record have a value that is not `undefined`: the ones a vertex id hashes. */
const definedKeys = (record: Readonly<Record<string, unknown>>): number => {
  let n = 0
  for (const k in record) if (record[k] !== undefined) n++
  return n
}

/**
 * Whether two vertices have the same id, found without computing one that
 * is not known yet: two vertices whose ids are both known compare them;
 * others compare their data as the id's hash reads it (object keys in any
 * order, `undefined` values left out, numbers by their text, nested vertices
 * by the same rule) and their parents in order. A turn's new vertices then
 * cost no hashing when a chat looks for a head equal to its new one — they
 * hang from a vertex both share, which ends the walk at once.
 *
 * Iterative, so neither a long chain of fresh vertices nor deeply nested
 * data can overflow the stack.
 *
 * @internal
 */
export const sameVertex = (a: Vertex<unknown>, b: Vertex<unknown>): boolean => {
  // Pairs to compare, flattened: [x0, y0, x1, y1, …].
  const todo: unknown[] = [a, b]
  while (todo.length > 0) {
    const y = todo.pop()
    const x = todo.pop()
    if (x === y) continue
    if (x instanceof Vertex) {
      if (!(y instanceof Vertex)) return false
      if (x.hasId && y.hasId) {
        if (x.id !== y.id) return false
        continue
      }
      const xp = x.parents
      const yp = y.parents
      if (xp.length !== yp.length) return false
      for (let i = 0; i < xp.length; i++) todo.push(xp[i], yp[i])
      todo.push(x.data, y.data)
      continue
    }
    if (y instanceof Vertex || typeof x !== typeof y) return false
    switch (typeof x) {
      case 'string':
      case 'boolean':
      case 'undefined':
        return false // not identical
      case 'object': {
        if (x === null || y === null) return false
        if (Array.isArray(x)) {
          if (!Array.isArray(y) || x.length !== y.length) return false
          for (let i = 0; i < x.length; i++) todo.push(x[i], y[i])
          continue
        }
        if (Array.isArray(y)) return false
        const xr = x as Readonly<Record<string, unknown>>
        const yr = y as Readonly<Record<string, unknown>>
        let n = 0
        for (const k in xr) {
          const v = xr[k]
          if (v === undefined) continue
          const w = yr[k]
          if (w === undefined) return false
          todo.push(v, w)
          n++
        }
        if (n !== definedKeys(yr)) return false
        continue
      }
      default:
        // Numbers (0 and -0 alike, NaN equal to itself), and what the hash reads as text.
        if (String(x) !== String(y)) return false
    }
  }
  return true
}
