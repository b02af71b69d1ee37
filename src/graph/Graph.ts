import { deepFreeze } from '../dag/freeze.js'
import type { Meta } from '../dag/Vertex.js'
import { UsageError } from '../errors.js'
import { requireName } from '../node/name.js'
import { EMPTY_METADATA, type Node } from '../node/Node.js'
import type { GraphError } from './GraphError.js'
import { isPlain, NO_DEPS, NO_LINKS, plainStep, type PlainStep, type Step } from './Step.js'
import { stepProblems } from './stepProblems.js'

/**
 * The steps behind one or more versions of a graph. Appending to the newest
 * version writes here in place; every version sees only its first `size`
 * steps, so older versions do not change. Appending to an older version
 * copies its prefix first (once).
 *
 * Work that needs only the step and the steps before it is done as each step
 * is added, so `validate` does not redo it: the step's own errors
 * (`problems`, kept only for steps that have some) and its dependencies
 * resolved to indices (`deps`; step `i`'s are at `depStart[i]` to
 * `depStart[i + 1] - 1`, in `dependsOn` order). A dependency on an id not
 * added yet is -1 (its id kept in `waitingIds`) until a step with that id is
 * added, then that step's index: so a version of size `n` must read an index
 * ≥ `n` as "not in this version". A dependency's id is read back with
 * {@link depId}.
 *
 * A {@link PlainStep} is kept as its parts (its id, its node in `entries`
 * with the flag {@link PLAIN}, its dependencies) and gets its Step object on
 * first read, by {@link step}. Nothing else is kept per step or per
 * dependency: each array of 10⁵ entries costs its growth in fresh memory.
 */
class StepBuffer {
  /** The Step of each step, or the node of a plain step not read yet. */
  readonly entries: (Step | Node)[] = []
  readonly ids: string[] = []
  readonly index = new Map<string, number>()
  /** Positions in `deps` waiting for a step id not added yet. */
  readonly pending = new Map<string, number[]>()
  /** The id each waiting position of `deps` waits for. */
  readonly waitingIds = new Map<number, string>()
  readonly problems = new Map<number, readonly GraphError[]>()
  depStart: Int32Array = new Int32Array(16)
  deps: Int32Array = new Int32Array(16)
  flags: Uint8Array = new Uint8Array(16)

  /** Appends `step`; `false`, with nothing changed, when the buffer has its id already. */
  push(step: Step | PlainStep): boolean {
    const i = this.ids.length
    // One map operation both claims the id and tells whether it was taken.
    this.index.set(step.id, i)
    if (this.index.size === i) {
      this.index.set(step.id, this.ids.indexOf(step.id))
      return false
    }
    const dependsOn = step.dependsOn ?? NO_DEPS
    const start = this.depStart[i]!
    const end = start + dependsOn.length
    if (i + 2 > this.depStart.length) {
      this.depStart = grow(this.depStart, i + 2)
      this.flags = grow(this.flags, i + 2)
    }
    if (end > this.deps.length) this.deps = grow(this.deps, end)
    for (let k = start; k < end; k++) {
      const d = dependsOn[k - start]!
      const j = this.index.get(d)
      if (j !== undefined) this.deps[k] = j
      else {
        this.deps[k] = -1
        this.waitingIds.set(k, d)
        const waiting = this.pending.get(d)
        if (waiting === undefined) this.pending.set(d, [k])
        else waiting.push(k)
      }
    }
    this.depStart[i + 1] = end
    // A dependency listed twice resolves to the same index (or waits on the same id).
    let repeats = false
    const deps = this.deps
    for (let a = start + 1; a < end; a++) {
      for (let b = start; b < a; b++) {
        if (deps[a] !== deps[b]) continue
        repeats ||= deps[a]! >= 0 || this.depId(a) === this.depId(b)
      }
    }
    const waiting = this.pending.size === 0 ? undefined : this.pending.get(step.id)
    if (waiting !== undefined) {
      for (const at of waiting) {
        this.deps[at] = i
        this.waitingIds.delete(at)
      }
      this.pending.delete(step.id)
    }
    const plain = isPlain(step)
    this.flags[i] =
      (plain ? PLAIN : step.links === NO_LINKS ? 0 : HAS_LINKS) |
      (step.node instanceof Graph || (!plain && step.onError._tag !== 'fail') ? MAY_NEST : 0)
    const problems = stepProblems(step, i, repeats)
    if (problems !== undefined) this.problems.set(i, problems)
    this.ids.push(step.id)
    this.entries.push(plain ? step.node : step)
    return true
  }

  /** The id of the dependency at position `k` of `deps`. */
  depId(k: number): string {
    const j = this.deps[k]!
    return j >= 0 ? this.ids[j]! : this.waitingIds.get(k)!
  }

  /** The Step at `i`, made now if it is a plain step read for the first time. */
  step(i: number): Step {
    const entry = this.entries[i]!
    if ((this.flags[i]! & PLAIN) === 0) return entry as Step
    const from = this.depStart[i]!
    const to = this.depStart[i + 1]!
    const ids: string[] = []
    for (let k = from; k < to; k++) ids.push(this.depId(k))
    const step = plainStep(this.ids[i]!, entry as Node, from === to ? NO_DEPS : Object.freeze(ids))
    this.entries[i] = step
    this.flags[i] = this.flags[i]! & ~PLAIN
    return step
  }
}

/** A step flag: the step has links. @internal */
export const HAS_LINKS = 1
/** A step flag: the step's node or fallback node may be a graph. @internal */
export const MAY_NEST = 2
/** A step flag: a plain step whose Step is not made yet (its entry is its node). */
const PLAIN = 4

const grow = <A extends Int32Array | Uint8Array>(a: A, atLeast: number): A => {
  const b = new (a.constructor as new (n: number) => A)(Math.max(atLeast, a.length * 2))
  b.set(a)
  return b
}

const bufferOf = (steps: readonly Step[]): StepBuffer => {
  const buffer = new StepBuffer()
  for (const s of steps) buffer.push(s)
  return buffer
}

/**
 * What `compile` reads of a graph version.
 *
 * @internal
 */
export interface GraphInternals {
  /** The number of steps of this version. */
  readonly size: number
  /** The step at an index below `size` (made on first read, for a plain step). */
  readonly stepAt: (i: number) => Step
  readonly ids: readonly string[]
  /** The dependency id at a position of `deps`. */
  readonly depId: (k: number) => string
  /** Step flags: {@link HAS_LINKS}, {@link MAY_NEST} (and bits of the graph's own). */
  readonly flags: Uint8Array
  /** The problems of each step that has some, by index. */
  readonly problems: ReadonlyMap<number, readonly GraphError[]>
  readonly depStart: Int32Array
  readonly deps: Int32Array
}

/**
 * Options of {@link graph}.
 *
 * @category graphs
 */
export interface GraphOptions {
  /** At most this many steps run at once: a positive integer or `Infinity` (the default). */
  readonly maxParallel?: number
  readonly metadata?: Meta
}

/**
 * A node whose work is a set of steps, kept in insertion order. Graphs nest:
 * a step's node may be a graph. Build one with {@link graph} and the step
 * builders (`addStep`, `addStepRef`, `chain`); read it with `listSteps`,
 * `getStep`, `validate`, `executionOrder`.
 *
 * A graph is immutable: each builder returns a new graph. Appending is O(1)
 * amortized (versions share storage), so 10⁵ `addStep` calls cost O(10⁵).
 *
 * @category graphs
 */
export class Graph implements Node {
  readonly id: string
  readonly kind = 'graph' as const
  readonly persistent = false as const
  readonly metadata: Meta
  /** At most this many steps run at once (`Infinity`: no limit). */
  readonly maxParallel: number
  readonly #buffer: StepBuffer
  readonly #size: number
  #list: readonly Step[] | undefined

  /** @internal use {@link graph}. */
  constructor(id: string, metadata: Meta, maxParallel: number, buffer: StepBuffer, size: number) {
    this.id = id
    this.metadata = metadata
    this.maxParallel = maxParallel
    this.#buffer = buffer
    this.#size = size
    Object.freeze(this)
  }

  /** The number of steps. */
  get size(): number {
    return this.#size
  }

  /** JSON view: the node fields and the steps (function-valued fields drop out). */
  toJSON(): Record<string, unknown> {
    return {
      id: this.id,
      kind: this.kind,
      persistent: this.persistent,
      metadata: this.metadata,
      maxParallel: this.maxParallel,
      steps: Graph.steps(this),
    }
  }

  /** @internal the steps in insertion order, frozen, computed once per version. */
  static steps(g: Graph): readonly Step[] {
    if (g.#list === undefined) {
      const b = g.#buffer
      g.#list = Object.freeze(Array.from({ length: g.#size }, (_, i) => b.step(i)))
    }
    return g.#list
  }

  /** @internal the index of a step, or -1. */
  static indexOf(g: Graph, id: string): number {
    const i = g.#buffer.index.get(id)
    return i !== undefined && i < g.#size ? i : -1
  }

  /** @internal the step at an index (no bounds check beyond the version's size). */
  static stepAt(g: Graph, i: number): Step | undefined {
    return i >= 0 && i < g.#size ? g.#buffer.step(i) : undefined
  }

  /** @internal the steps and what was worked out as they were added. */
  static internals(g: Graph): GraphInternals {
    const b = g.#buffer
    return {
      size: g.#size,
      stepAt: (i) => b.step(i),
      ids: b.ids,
      depId: (k) => b.depId(k),
      flags: b.flags,
      problems: b.problems,
      depStart: b.depStart,
      deps: b.deps,
    }
  }

  /** @internal a new version with `step` appended; throws on a duplicate id. */
  static append(g: Graph, step: Step | PlainStep, api: string): Graph {
    const buffer = g.#buffer.ids.length === g.#size ? g.#buffer : bufferOf(Graph.steps(g))
    if (!buffer.push(step)) {
      throw new UsageError(api, `graph "${g.id}" already has a step "${step.id}"`)
    }
    return new Graph(g.id, g.metadata, g.maxParallel, buffer, g.#size + 1)
  }

  /** @internal a new version with some steps replaced (same ids, same order). */
  static replace(g: Graph, replacements: ReadonlyMap<number, Step>): Graph {
    const steps = Graph.steps(g).slice()
    for (const [i, s] of replacements) steps[i] = s
    return new Graph(g.id, g.metadata, g.maxParallel, bufferOf(steps), g.#size)
  }
}

/**
 * Whether a node (or any value) is a {@link Graph}.
 *
 * @category guards
 */
export const isGraph = (u: unknown): u is Graph => u instanceof Graph

/**
 * Checks a `maxParallel` value: a positive integer or `Infinity`.
 *
 * @internal
 */
export const isMaxParallel = (n: unknown): n is number =>
  typeof n === 'number' && (n === Infinity || (Number.isSafeInteger(n) && n >= 1))

/**
 * An empty graph. The id follows the name rule; `maxParallel` is a positive
 * integer or `Infinity`; otherwise a {@link UsageError}.
 *
 * @category graphs
 * @example
 * import { graph } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const g = graph('review', { maxParallel: 4 })
 * assert.strictEqual(g.kind, 'graph')
 * assert.strictEqual(g.size, 0)
 * assert.throws(() => graph('review', { maxParallel: 0 }), /maxParallel/)
 */
export const graph = (id: string, options?: GraphOptions): Graph => {
  requireName('graph', 'the graph id', id)
  const maxParallel = options?.maxParallel ?? Infinity
  if (!isMaxParallel(maxParallel)) {
    throw new UsageError(
      'graph',
      `options.maxParallel must be a positive integer or Infinity, got ${String(maxParallel)}`,
    )
  }
  const metadata = options?.metadata === undefined ? EMPTY_METADATA : deepFreeze(options.metadata)
  return new Graph(id, metadata, maxParallel, new StepBuffer(), 0)
}
