/**
 * Bringing a saved session's nodes back: each rebuilt from the description
 * the store kept, by its kind's options codec and builder (a graph by
 * `decodeGraph`), registered under its name, `created`. An LLM node gets
 * its conversation back as its state; a terminal's program starts again on
 * first use, in a fresh process (the old one ended with the daemon).
 */
import * as E from 'fp-ts/lib/Either.js'
import { decodeGraph, showGraphFileError } from '../graph/index.js'
import { nodeKinds, type Node, type NodeKinds } from '../node/index.js'
import type { Session } from '../session/index.js'
import type { SqliteStore, StoredNode } from './SqliteStore.js'

/**
 * What {@link restoreNodes} did: the names it registered again, and those
 * it could not, with why (a function node, whose function a store cannot
 * keep; a kind this process does not know; a description that no longer
 * decodes; a name taken).
 *
 * @category store
 */
export interface Restored {
  readonly restored: readonly string[]
  readonly skipped: readonly { readonly name: string; readonly reason: string }[]
}

/** The node a stored description describes, or why there is none. */
const rebuilt = (stored: StoredNode, session: Session, kinds: NodeKinds): Node | string => {
  const { kind, persistent: _p, id: _id, ...options } = stored.description
  if (stored.kind === 'graph') {
    const file = stored.description.graph
    if (file === undefined) return 'a graph with a step no file can hold (an inputFn)'
    const g = decodeGraph(file, { nodes: session, kinds })
    return E.isRight(g) ? g.right : g.left.map(showGraphFileError).join('; ')
  }
  if (stored.kind === 'function') return 'a function node: its function is not kept in a store'
  const known = kinds.get(String(kind))
  if (known === undefined) return `this process knows no node kind "${String(kind)}"`
  const decoded = known.options.decode(options)
  if (E.isLeft(decoded)) return 'its description no longer decodes as its kind'
  try {
    return known.build(stored.name, decoded.right, { nodes: session, kinds })
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/**
 * Registers in `session` the nodes `store` kept for the session `from`
 * (default: the one with the same id; see the module above), each of its
 * kind in `kinds` (default: the built-in ones); an LLM node's conversation
 * head is read back from the store's shared vertices.
 *
 * @category store
 */
export const restoreNodes = (
  store: SqliteStore,
  session: Session,
  kinds: NodeKinds = nodeKinds,
  from: string = session.id,
): Restored => {
  const restored: string[] = []
  const skipped: { name: string; reason: string }[] = []
  for (const stored of store.nodes(from)) {
    const node = rebuilt(stored, session, kinds)
    if (typeof node === 'string') {
      skipped.push({ name: stored.name, reason: node })
      continue
    }
    if (session.has(stored.name)) {
      skipped.push({ name: stored.name, reason: 'the name is taken' })
      continue
    }
    session.register(node, stored.name)
    const head = stored.head === undefined ? undefined : store.conversation(stored.head)
    if (head !== undefined) session.cell(node.id).set(Object.freeze({ head }))
    restored.push(stored.name)
  }
  return Object.freeze({ restored: Object.freeze(restored), skipped: Object.freeze(skipped) })
}
