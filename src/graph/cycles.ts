import type { Cycle } from './GraphError.js'

/**
 * One cycle for each strongly connected component of more than one step
 * among the steps Kahn's algorithm could not order (`remaining[i] > 0`).
 * Tarjan's algorithm with an explicit stack, then a breadth-first search
 * from the component's first step back to itself.
 *
 * @internal
 */
export const cycles = (
  ids: readonly string[],
  remaining: Int32Array,
  offsets: Int32Array,
  targets: Int32Array,
): Cycle[] => {
  const n = remaining.length
  const index = new Int32Array(n).fill(-1)
  const low = new Int32Array(n)
  const component = new Int32Array(n).fill(-1)
  const stack = new Int32Array(n)
  const onStack = new Uint8Array(n)
  const calls = new Int32Array(n)
  const edgeAt = new Int32Array(n)
  let sp = 0
  let cp = 0
  let counter = 0
  const starts: number[] = []
  const visit = (v: number): void => {
    index[v] = low[v] = counter++
    stack[sp++] = v
    onStack[v] = 1
    calls[cp] = v
    edgeAt[cp++] = offsets[v]!
  }
  for (let r = 0; r < n; r++) {
    if (remaining[r] === 0 || index[r] !== -1) continue
    visit(r)
    while (cp > 0) {
      const v = calls[cp - 1]!
      const k = edgeAt[cp - 1]!
      if (k < offsets[v + 1]!) {
        edgeAt[cp - 1] = k + 1
        const w = targets[k]!
        if (remaining[w] === 0) continue
        if (index[w] === -1) visit(w)
        else if (onStack[w] === 1 && index[w]! < low[v]!) low[v] = index[w]!
        continue
      }
      cp--
      if (cp > 0) {
        const u = calls[cp - 1]!
        if (low[v]! < low[u]!) low[u] = low[v]!
      }
      if (low[v] !== index[v]) continue
      let first = n
      let members = 0
      let w: number
      do {
        w = stack[--sp]!
        onStack[w] = 0
        component[w] = v
        if (w < first) first = w
        members++
      } while (w !== v)
      if (members > 1) starts.push(first)
    }
  }
  starts.sort((a, b) => a - b)
  const parent = new Int32Array(n)
  return starts.map((s) => {
    const c = component[s]!
    parent.fill(-1)
    const queue = [s]
    parent[s] = s
    for (let q = 0; q < queue.length; q++) {
      const u = queue[q]!
      for (let k = offsets[u]!; k < offsets[u + 1]!; k++) {
        const w = targets[k]!
        if (component[w] !== c) continue
        if (w === s) {
          const path = [s]
          for (let x = u; x !== s; x = parent[x]!) path.push(x)
          const cycle = [
            ids[s]!,
            ...path
              .slice(1)
              .reverse()
              .map((x) => ids[x]!),
            ids[s]!,
          ]
          return { _tag: 'Cycle', path: [], cycle: Object.freeze(cycle) }
        }
        if (parent[w] === -1) {
          parent[w] = u
          queue.push(w)
        }
      }
    }
    return { _tag: 'Cycle', path: [], cycle: [ids[s]!] } // unreachable: s is in a cycle
  })
}
