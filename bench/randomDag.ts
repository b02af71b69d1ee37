/**
 * Pure helpers of the graph benchmark: a seeded random number generator, a
 * random DAG as compressed rows, and the plain Kahn sort that is its
 * baseline. Tested in test/bench/randomDag.test.ts.
 */

/**
 * A seeded generator of numbers in [0, 1) (mulberry32: 32-bit state, one
 * multiply-xorshift round per draw). The same seed gives the same sequence.
 */
export const prng = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A relation as compressed rows: the neighbours of node `i` are
 * `targets[offsets[i]]` to `targets[offsets[i + 1] - 1]`.
 */
export interface Rows {
  readonly offsets: Int32Array
  readonly targets: Int32Array
}

/**
 * A random DAG of `n` nodes in which node `i` depends on `min(perNode, i)`
 * distinct nodes drawn uniformly from `0 … i − 1`: acyclic by construction,
 * with `perNode · n − perNode(perNode + 1)/2` dependencies. Returned as the
 * dependencies of each node, in the order drawn.
 */
export const randomDag = (n: number, perNode: number, seed: number): Rows => {
  const random = prng(seed)
  const offsets = new Int32Array(n + 1)
  let total = 0
  for (let i = 0; i < n; i++) {
    total += Math.min(perNode, i)
    offsets[i + 1] = total
  }
  const targets = new Int32Array(total)
  for (let i = 0; i < n; i++) {
    const start = offsets[i]!
    const count = offsets[i + 1]! - start
    for (let k = 0; k < count; k++) {
      let j: number
      do j = Math.floor(random() * i)
      while (targets.subarray(start, start + k).includes(j))
      targets[start + k] = j
    }
  }
  return { offsets, targets }
}

/**
 * Kahn's topological sort over typed arrays, with a FIFO queue: `deps` are
 * the dependencies of each of the `n` nodes. Returns every node once,
 * dependencies first, or `undefined` when there is a cycle.
 */
export const kahnOrder = (n: number, deps: Rows): Int32Array | undefined => {
  const indegree = new Int32Array(n)
  const outOffsets = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) {
    indegree[i] = deps.offsets[i + 1]! - deps.offsets[i]!
    for (let k = deps.offsets[i]!; k < deps.offsets[i + 1]!; k++) {
      const d = deps.targets[k]!
      outOffsets[d + 1] = outOffsets[d + 1]! + 1
    }
  }
  for (let i = 0; i < n; i++) outOffsets[i + 1] = outOffsets[i + 1]! + outOffsets[i]!
  const fill = outOffsets.slice(0, n)
  const outTargets = new Int32Array(deps.targets.length)
  for (let i = 0; i < n; i++) {
    for (let k = deps.offsets[i]!; k < deps.offsets[i + 1]!; k++) {
      const d = deps.targets[k]!
      outTargets[fill[d]!] = i
      fill[d] = fill[d]! + 1
    }
  }
  const order = new Int32Array(n)
  let tail = 0
  for (let i = 0; i < n; i++) if (indegree[i] === 0) order[tail++] = i
  for (let head = 0; head < tail; head++) {
    const v = order[head]!
    for (let k = outOffsets[v]!; k < outOffsets[v + 1]!; k++) {
      const t = outTargets[k]!
      indegree[t] = indegree[t]! - 1
      if (indegree[t] === 0) order[tail++] = t
    }
  }
  return tail === n ? order : undefined
}

/** A random permutation of `0 … n − 1` (Fisher–Yates with {@link prng}). */
export const shuffle = (n: number, seed: number): Int32Array => {
  const random = prng(seed)
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) out[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const t = out[i]!
    out[i] = out[j]!
    out[j] = t
  }
  return out
}
