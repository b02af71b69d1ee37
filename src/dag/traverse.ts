import * as O from 'fp-ts/lib/Option.js'
import { parentAt, parentCount, walkSlot, type Vertex } from './Vertex.js'

/**
 * Every vertex reachable from `v` through `parents`, in causal order: each
 * once, parents before children, parents in listed order, ending with `v`.
 * Iterative, so a chain of a million vertices is fine.
 *
 * @category traversal
 * @example
 * import { ancestors, child, merge, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const a = root('a')
 * const b = pipe(a, child('b'))
 * const c = pipe(a, child('c'))
 * const m = pipe([c, b], merge('m'))
 * assert.deepStrictEqual(ancestors(m).map((v) => v.data), ['a', 'c', 'b', 'm'])
 */
export const ancestors = <T>(v: Vertex<T>): readonly Vertex<T>[] => ancestorsOfAll([v])

/**
 * The union of the ancestors of several vertices, in causal order (the first
 * vertex's history first). Vertices count as the same when they are the same
 * object, or, given `key`, when their keys are equal (`(v) => v.id` takes two
 * objects built from equal content as one vertex, as a file does).
 *
 * @category traversal
 */
export const ancestorsOfAll = <T>(
  vs: readonly Vertex<T>[],
  key?: (v: Vertex<T>) => unknown,
): readonly Vertex<T>[] => {
  if (key === undefined) {
    const met = {}
    return walk(vs, (v) => {
      if (walkSlot.get(v) === met) return false
      walkSlot.set(v, met)
      return true
    })
  }
  const seen = new Set<unknown>()
  return walk(vs, (v) => {
    const size = seen.size
    seen.add(key(v))
    return seen.size !== size
  })
}

/**
 * The ancestors of `vs` in causal order, depth first: `firstVisit(v)` says
 * whether `v` is met for the first time (and remembers it); `metAgain` is
 * told of each vertex met again (one with several children in the walk).
 *
 * @internal
 */
export const walk = <T>(
  vs: readonly Vertex<T>[],
  firstVisit: (v: Vertex<T>) => boolean,
  metAgain?: (v: Vertex<T>) => void,
): Vertex<T>[] => {
  const out: Vertex<T>[] = []
  // The depth-first stack: frames of a vertex and the index of its next
  // parent to visit, side by side in chunks (each twice the last, up to
  // MAX_FRAMES). A chain of 10⁵ vertices is 10⁵ deep, and one growing array
  // that long is reallocated, in fresh memory, at every growth; chunks of
  // regular size are not.
  const chunks: unknown[][] = [new Array(FIRST_FRAMES * 2)]
  let chunk = chunks[0]!
  let depth = 0
  let at = 0
  const push = (v: Vertex<T>): void => {
    if (at === chunk.length) {
      depth++
      if (depth === chunks.length) {
        chunks.push(new Array(Math.min(FIRST_FRAMES * 2 ** depth, MAX_FRAMES) * 2))
      }
      chunk = chunks[depth]!
      at = 0
    }
    chunk[at] = v
    chunk[at + 1] = 0
    at += 2
  }
  for (const start of vs) {
    if (!firstVisit(start)) {
      metAgain?.(start)
      continue
    }
    push(start)
    while (at > 0) {
      const v = chunk[at - 2] as Vertex<T>
      const i = chunk[at - 1] as number
      if (i < parentCount(v)) {
        chunk[at - 1] = i + 1
        const p = parentAt(v, i)
        if (firstVisit(p)) push(p)
        else metAgain?.(p)
        continue
      }
      out.push(v)
      at -= 2
      if (at === 0 && depth > 0) {
        depth--
        chunk = chunks[depth]!
        at = chunk.length
      }
    }
  }
  return out
}

/** Frames in the first and the largest chunks of {@link ancestorsOfAll}'s stack (2 slots each, well under V8's large-object size). */
const FIRST_FRAMES = 16
const MAX_FRAMES = 4096

/**
 * Folds over the ancestors of `v` in causal order. Data-last.
 *
 * @category traversal
 * @example
 * import { child, fold, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const v = pipe(root(1), child(2), child(3))
 * assert.strictEqual(pipe(v, fold(0, (sum, x) => sum + x.data)), 6)
 */
export const fold =
  <T, B>(initial: B, f: (acc: B, v: Vertex<T>) => B) =>
  (v: Vertex<T>): B => {
    let acc = initial
    for (const a of ancestors(v)) acc = f(acc, a)
    return acc
  }

/**
 * The heads of a set of vertices: those that are not an ancestor of another
 * vertex of the set, in the order given, each once.
 *
 * @category traversal
 * @example
 * import { child, heads, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const a = root('a')
 * const b = pipe(a, child('b'))
 * const c = pipe(a, child('c'))
 * assert.deepStrictEqual(heads([a, b, c, b]), [b, c])
 */
export const heads = <T>(vs: readonly Vertex<T>[]): readonly Vertex<T>[] => {
  const parents: Vertex<T>[] = []
  for (const v of vs) for (let i = 0; i < parentCount(v); i++) parents.push(parentAt(v, i))
  const below = new Set(ancestorsOfAll(parents))
  const out: Vertex<T>[] = []
  for (const v of vs) if (!below.has(v) && !out.includes(v)) out.push(v)
  return out
}

/**
 * The lowest common ancestor of two vertices: a common ancestor that no other
 * common ancestor descends from. When criss-cross merges leave several, the
 * one latest in `a`'s causal order. A vertex counts as its own ancestor.
 *
 * @category traversal
 * @example
 * import { child, lowestCommonAncestor, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import * as O from 'fp-ts/lib/Option.js'
 * import assert from 'assert'
 *
 * const a = root('a')
 * const b = pipe(a, child('b'))
 * const c = pipe(b, child('c'))
 * const d = pipe(b, child('d'))
 * assert.deepStrictEqual(lowestCommonAncestor(c, d), O.some(b))
 * assert.deepStrictEqual(lowestCommonAncestor(c, root('x')), O.none)
 */
export const lowestCommonAncestor = <T>(a: Vertex<T>, b: Vertex<T>): O.Option<Vertex<T>> => {
  const ofB = new Set(ancestors(b))
  const ofA = ancestors(a)
  // Walking a's history from newest to oldest, the first common vertex is a
  // lowest one: anything common that is newer in causal order cannot be its ancestor.
  for (let i = ofA.length - 1; i >= 0; i--) {
    const v = ofA[i]!
    if (ofB.has(v)) return O.some(v)
  }
  return O.none
}
