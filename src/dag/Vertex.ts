import { UsageError } from '../errors.js'
import { deepFreeze } from './freeze.js'
import { Hasher } from './hash.js'

/**
 * Free-form, JSON-shaped metadata of a vertex: times, token counts, the
 * provider that produced it. Metadata does not take part in the id.
 *
 * @category model
 */
export type Meta = Readonly<Record<string, unknown>>

/**
 * Options of the vertex constructors.
 *
 * @category model
 */
export interface VertexOptions {
  /** A given id (a loaded file keeps its ids). Omitted: derived from data and parents. */
  readonly id?: string
  /** Metadata; frozen with the vertex. */
  readonly meta?: Meta
}

const EMPTY_META: Meta = Object.freeze({})

/**
 * How many parents a vertex has, and its i-th parent, without making the
 * `parents` tuple: traversals use these to stay allocation-free.
 *
 * @internal
 */
export let parentCount: (v: Vertex<unknown>) => number
/** @internal */
export let parentAt: <T>(v: Vertex<T>, i: number) => Vertex<T>
/**
 * A vertex's walk slot: what the last traversal that met it left there (a
 * traversal that dedupes vertices by identity marks them met with a token of
 * its own, instead of keeping a set of 10⁵ entries). Not part of the value.
 *
 * @internal
 */
export let walkSlot: {
  readonly get: (v: Vertex<unknown>) => unknown
  readonly set: (v: Vertex<unknown>, mark: unknown) => void
}
/**
 * A vertex's memo slot: one value a layer above may keep with a vertex (the
 * conversation keeps its projections of some heads there). A slot is
 * cheaper to write than a WeakMap entry, and lives and dies with its vertex
 * the same way. Not part of the value: ids, equality and codecs ignore it.
 *
 * @internal
 */
export let memoSlot: {
  readonly get: (v: Vertex<unknown>) => unknown
  readonly set: (v: Vertex<unknown>, memo: unknown) => void
}
const NO_PARENTS: readonly never[] = Object.freeze([])

/**
 * A frozen value in an immutable DAG: `{ id, parents, data, meta }`.
 *
 * `parents` is a readonly tuple of vertices in the order they were given, so a
 * cycle cannot be built. The `id` is either given or derived from `data` and
 * the parents' ids by a structural hash (key order does not matter); it is
 * computed on first read and memoised, so appending never pays for hashing.
 * Two vertices built from equal data on the same parents have the same id.
 *
 * @category model
 */
export class Vertex<T> {
  #id: string | undefined
  // One parent is kept inline (most vertices have one); the tuple is made on
  // first read of `parents`. Roots and merges hold their frozen tuple here.
  #up: Vertex<T> | readonly Vertex<T>[]
  #memo: unknown
  #walk: unknown
  readonly data: T
  readonly meta: Meta

  /** @internal use {@link vertex}, {@link root}, {@link child} or {@link merge}. */
  constructor(up: Vertex<T> | readonly Vertex<T>[], data: T, id: string | undefined, meta: Meta) {
    this.#id = id
    this.#up = up
    this.data = data
    this.meta = meta
    Object.freeze(this)
  }

  /** The parents, in the order they were given: a frozen tuple. */
  get parents(): readonly Vertex<T>[] {
    const up = this.#up
    if (!(up instanceof Vertex)) return up
    const tuple = Object.freeze([up])
    this.#up = tuple
    return tuple
  }

  /** The vertex id: given, or a 16-hex-digit content hash computed once. */
  get id(): string {
    return this.#id ?? Vertex.#computeIds(this)
  }

  /** Whether the id is already known (given or computed). */
  get hasId(): boolean {
    return this.#id !== undefined
  }

  /** JSON view: the id, the parents' ids, data and meta. */
  toJSON(): { id: string; parents: string[]; data: T; meta: Meta } {
    return { id: this.id, parents: this.parents.map((p) => p.id), data: this.data, meta: this.meta }
  }

  static {
    parentCount = (v) => {
      const up = v.#up
      return up instanceof Vertex ? 1 : up.length
    }
    parentAt = <U>(v: Vertex<U>, i: number): Vertex<U> => {
      const up = v.#up
      return up instanceof Vertex ? up : up[i]!
    }
    walkSlot = {
      get: (v) => v.#walk,
      set: (v, mark) => {
        v.#walk = mark
      },
    }
    memoSlot = {
      get: (v) => v.#memo,
      set: (v, memo) => {
        v.#memo = memo
      },
    }
  }

  // Iterative, so the id of the tip of a long chain of fresh vertices can be
  // computed without deep recursion: visit parents first, hash in post-order.
  static #computeIds(target: Vertex<unknown>): string {
    const stack: Vertex<unknown>[] = [target]
    while (stack.length > 0) {
      const v = stack[stack.length - 1]!
      if (v.#id !== undefined) {
        stack.pop()
        continue
      }
      let ready = true
      for (let i = parentCount(v) - 1; i >= 0; i--) {
        const p = parentAt(v, i)
        if (p.#id === undefined) {
          stack.push(p)
          ready = false
        }
      }
      if (!ready) continue
      stack.pop()
      const h = new Hasher()
      const n = parentCount(v)
      h.int(n)
      for (let i = 0; i < n; i++) h.string(parentAt(v, i).#id!)
      h.value(v.data, (o) => (o instanceof Vertex ? o.id : undefined))
      v.#id = h.digest()
    }
    return target.#id!
  }
}

/**
 * Whether a value is a {@link Vertex}.
 *
 * @category guards
 */
export const isVertex = (u: unknown): u is Vertex<unknown> => u instanceof Vertex

/**
 * Builds a vertex on any number of parents (none: a root; several: a merge,
 * order kept). The data and meta are frozen deeply in place; pass a copy if
 * you mean to keep changing yours.
 *
 * @category constructors
 * @example
 * import { vertex } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const a = vertex([], 'a')
 * const b = vertex([a], 'b')
 * assert.deepStrictEqual(b.parents, [a])
 * assert.ok(Object.isFrozen(b))
 */
export const vertex = <T>(
  parents: readonly Vertex<T>[],
  data: T,
  options?: VertexOptions,
): Vertex<T> => {
  for (let i = 0; i < parents.length; i++) {
    if (!(parents[i] instanceof Vertex)) {
      throw new UsageError('vertex', `parents[${i}] is not a Vertex`)
    }
  }
  const id = options?.id
  if (id !== undefined && (typeof id !== 'string' || id === '')) {
    throw new UsageError(
      'vertex',
      `the given id must be a non-empty string, got ${JSON.stringify(id)}`,
    )
  }
  const up =
    parents.length === 1
      ? parents[0]!
      : parents.length === 0
        ? NO_PARENTS
        : Object.isFrozen(parents)
          ? parents
          : Object.freeze([...parents])
  const meta = options?.meta === undefined ? EMPTY_META : deepFreeze(options.meta)
  // A frozen value is deep already (see deepFreeze); checking first keeps the append path lean.
  const frozenData = Object.isFrozen(data) ? data : deepFreeze(data)
  return new Vertex(up, frozenData, id, meta)
}

/**
 * A vertex without parents.
 *
 * @category constructors
 * @example
 * import { root } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(root('hello').parents, [])
 * assert.strictEqual(root('hello').id, root('hello').id)
 */
export const root = <T>(data: T, options?: VertexOptions): Vertex<T> => vertex([], data, options)

/**
 * Appends a vertex to one parent. Data-last: `pipe(parent, child(data))`.
 *
 * @category constructors
 * @example
 * import { child, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const a = root('a')
 * const b = pipe(a, child('b'))
 * assert.strictEqual(b.parents[0], a)
 */
export const child =
  <T>(data: T, options?: VertexOptions) =>
  (parent: Vertex<T>): Vertex<T> =>
    vertex([parent], data, options)

/**
 * Joins several parents into one vertex, keeping their order.
 * Data-last: `pipe([a, b], merge(data))`.
 *
 * @category constructors
 * @example
 * import { merge, root } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const a = root('a')
 * const b = root('b')
 * assert.deepStrictEqual(pipe([b, a], merge('m')).parents, [b, a])
 */
export const merge =
  <T>(data: T, options?: VertexOptions) =>
  (parents: readonly Vertex<T>[]): Vertex<T> => {
    if (parents.length === 0) throw new UsageError('merge', 'needs at least one parent')
    return vertex(parents, data, options)
  }
