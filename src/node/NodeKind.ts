import type * as t from 'io-ts'
import { UsageError } from '../errors.js'
import { requireName } from './name.js'
import type { Node } from './Node.js'
import type { NodeRegistry } from './NodeRegistry.js'

/**
 * What a kind's builder may look at besides the options: where the node's
 * own references resolve (a graph node's steps name nodes of the session)
 * and the kinds those may be of.
 *
 * @category model
 */
export interface BuildContext {
  readonly nodes?: NodeRegistry
  readonly kinds?: NodeKinds
}

/**
 * A node kind that data can describe: its name (and the other words a
 * person may use for it), its options codec (the one its builder checks
 * with) and its builder. A graph file's node, a `CREATE_NODE` call and a
 * stored node of this kind are decoded with `options` (every error with its
 * path) and built with `build`.
 *
 * Its link ports say what its step gives and takes through link edges:
 * `provides` the ports its artifacts serve (a toolset's are `tools`),
 * `accepts` the ports it resolves (an LLM node's `tools`). A file's link
 * edge into a step of a kind that accepts no such port, or from a step of
 * a kind that provides none for it, fails with its path.
 *
 * Build one with {@link nodeKind}; the interpreter side (a factory and
 * capabilities) is added to it in `interpreters/` (`withInterpreter`).
 *
 * @category model
 */
export interface NodeKind<O = unknown> {
  /** The kind's name: what a node of it has as `kind`. */
  readonly kind: string
  /** Other names the faces (`CREATE_NODE`, the CLI, the REPL) take for it; a graph file is told the name. */
  readonly aliases: readonly string[]
  /** One line: what a person picks this kind for (help texts, `LIST_KINDS`). */
  readonly summary: string
  /** Whether its nodes have live state a session owns (persistence: they are saved, and built again from their options). */
  readonly persistent: boolean
  /** Whether `CREATE_NODE` makes nodes of it (and the faces offer it). */
  readonly creatable: boolean
  /** Whether a graph file's `nodes` table may describe one. */
  readonly describable: boolean
  /** Its options: what `build` takes, decoded from data (its JSON Schema is what faces show). */
  readonly options: t.Decoder<unknown, O>
  build(id: string, options: O, context?: BuildContext): Node
  readonly provides: readonly string[]
  readonly accepts: readonly string[]
}

/**
 * What {@link nodeKind} takes: the kind's name, summary, options codec and
 * builder, and what differs from the defaults.
 *
 * @category model
 */
export interface NodeKindSpec<O> {
  readonly kind: string
  readonly summary: string
  readonly options: t.Decoder<unknown, O>
  build(id: string, options: O, context?: BuildContext): Node
  /** Default: none. */
  readonly aliases?: readonly string[]
  /** Default: `false`. */
  readonly persistent?: boolean
  /** Default: `true`. */
  readonly creatable?: boolean
  /** Default: `true`. */
  readonly describable?: boolean
  /** Default: none. */
  readonly provides?: readonly string[]
  /** Default: none. */
  readonly accepts?: readonly string[]
}

const NONE: readonly string[] = Object.freeze([])

/**
 * A frozen {@link NodeKind}: the name and aliases are checked against the
 * name rule (a {@link UsageError} names a bad one).
 *
 * @category constructors
 * @example
 * import { nodeKind } from 'nerve-agents/core'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const counter = nodeKind({
 *   kind: 'counter',
 *   summary: 'counts its executes from start',
 *   options: t.type({ start: t.number }),
 *   build: (id, o) => ({ id, kind: 'counter', persistent: true, metadata: {}, start: o.start }),
 *   persistent: true,
 * })
 * assert.strictEqual(counter.creatable, true)
 * assert.deepStrictEqual(counter.aliases, [])
 */
export const nodeKind = <O>(spec: NodeKindSpec<O>): NodeKind<O> => {
  const api = 'nodeKind'
  requireName(api, 'the kind', spec.kind)
  const aliases = spec.aliases ?? NONE
  for (const a of aliases) requireName(api, `an alias of "${spec.kind}"`, a)
  if (typeof spec.build !== 'function') {
    throw new UsageError(api, `kind "${spec.kind}": build must be a function`)
  }
  return Object.freeze({
    kind: spec.kind,
    aliases: Object.freeze([...aliases]),
    summary: spec.summary,
    persistent: spec.persistent ?? false,
    creatable: spec.creatable ?? true,
    describable: spec.describable ?? true,
    options: spec.options,
    build: (id: string, options: O, context?: BuildContext) => spec.build(id, options, context),
    provides: Object.freeze([...(spec.provides ?? NONE)]),
    accepts: Object.freeze([...(spec.accepts ?? NONE)]),
  })
}

/**
 * Kinds by name, which also finds a kind by one of its aliases
 * (`resolve`). Iterating it (and `keys()`) gives the kinds in the order
 * they were given. Build one with {@link nodeKindsOf}.
 *
 * @category model
 */
export interface NodeKinds<K extends NodeKind = NodeKind> extends ReadonlyMap<string, K> {
  /** The kind with this name or alias. */
  resolve(word: string): K | undefined
  /** The names and aliases a person may type, names first. */
  readonly words: readonly string[]
}

/**
 * A {@link NodeKinds} of the given kinds. A kind named again replaces the
 * earlier one (how an engine's own kinds replace built-in ones); a word that
 * would name two kinds is a {@link UsageError}.
 *
 * @category constructors
 * @example
 * import { nodeKinds, nodeKindsOf } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * const kinds = nodeKindsOf(...nodeKinds.values())
 * assert.strictEqual(kinds.resolve('claude')?.kind, 'claude-wezterm')
 * assert.strictEqual(kinds.get('claude'), undefined)
 */
export const nodeKindsOf = <K extends NodeKind>(...kinds: readonly K[]): NodeKinds<K> => {
  const byName = new Map<string, K>()
  for (const k of kinds) {
    byName.set(k.kind, k) // a replacement keeps the place of the one it replaces
  }
  const byWord = new Map<string, K>(byName)
  for (const k of byName.values()) {
    for (const a of k.aliases) {
      const taken = byWord.get(a)
      if (taken !== undefined && taken !== k) {
        throw new UsageError('nodeKindsOf', `"${a}" names two kinds: ${taken.kind} and ${k.kind}`)
      }
      byWord.set(a, k)
    }
  }
  const words = Object.freeze([...byWord.keys()])
  return Object.freeze(
    Object.assign(byName, {
      resolve: (word: string) => byWord.get(word),
      words,
    }),
  )
}
