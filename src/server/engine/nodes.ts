import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from '../../errors.js'
import { decodeGraph, GraphFileRejected } from '../../graph/index.js'
import type { Kind, Kinds } from '../../interpreters/index.js'
import { errorPath, isUnknownKey, jsonSchemaOf, under } from '../../codec/index.js'
import { optionProblem, type Node, type NodeInfo } from '../../node/index.js'
import type { KindInfo } from '../../protocol/index.js'
import type { Session } from '../../session/index.js'
import { GraphFileInvalid, InvalidOptions, UnknownKind, UnknownProvider } from './errors.js'

/** A graph from a graph-file value, decoded strictly (node ids the file does not describe resolve in the session). */
export const graphOf = (session: Session, file: unknown, at: string, kinds: Kinds) => {
  const decoded = decodeGraph(file, { nodes: session, kinds })
  if (E.isLeft(decoded)) throw new GraphFileInvalid(under(at, decoded.left))
  return decoded.right
}

/**
 * A graph file whose nodes run in `cwd` (`EXECUTE_GRAPH`'s, the caller's
 * directory) when they name none: each node its `nodes` table describes,
 * of a kind that takes a `cwd` option and without one, gets this one.
 */
export const inDir = (file: unknown, cwd: string | undefined, kinds: Kinds): unknown => {
  const nodes = (file as { readonly nodes?: unknown } | null)?.nodes
  if (cwd === undefined || typeof nodes !== 'object' || nodes === null) return file
  const takesCwd = (kind: unknown): boolean => {
    const k = typeof kind === 'string' ? kinds.resolve(kind) : undefined
    const schema = k === undefined ? {} : (jsonSchemaOf(k.options) as { properties?: object })
    return 'cwd' in (schema.properties ?? {})
  }
  const placed = Object.entries(nodes as Record<string, unknown>).map(
    ([id, d]): [string, unknown] => {
      const desc = d as { readonly kind?: unknown; readonly cwd?: unknown } | null
      return [id, desc?.cwd === undefined && takesCwd(desc?.kind) ? { ...desc, cwd } : d]
    },
  )
  return { ...(file as object), nodes: Object.fromEntries(placed) }
}

/** The kind `CREATE_NODE` names (by name or alias); UnknownKind when the engine makes none such. */
export const creatableKind = (kinds: Kinds, word: string): Kind => {
  const kind = kinds.resolve(word)
  if (kind === undefined || !kind.creatable) {
    throw new UnknownKind(
      word,
      [...kinds.values()].filter((k) => k.creatable).map((k) => k.kind),
    )
  }
  return kind
}

/**
 * The node `CREATE_NODE` makes of a kind and its options: decoded with the
 * kind's options codec (InvalidOptions at the first bad option), built by
 * its builder (a UsageError becomes InvalidOptions, a graph file's errors
 * GraphFileInvalid). A node that names a provider the engine lacks is
 * UnknownProvider.
 */
export const nodeOf = (
  session: Session,
  nodeId: string,
  kind: Kind,
  options: Readonly<Record<string, unknown>>,
  kinds: Kinds,
  providers: readonly string[],
): Node => {
  const decoded = kind.options.decode(options)
  if (E.isLeft(decoded)) {
    const e = decoded.left[0]!
    const path = errorPath(e)
    const what = optionProblem(e)
    const where = path === '' || isUnknownKey(e) ? '' : `${path.slice(1)} `
    throw new InvalidOptions(`${kind.kind} node "${nodeId}": ${where}${what}`, `/options${path}`)
  }
  let node: Node
  try {
    node = kind.build(nodeId, decoded.right, { nodes: session, kinds })
  } catch (e) {
    if (e instanceof UsageError) throw new InvalidOptions(e.message)
    if (e instanceof GraphFileRejected)
      throw new GraphFileInvalid(under('/options/graph', e.errors))
    throw e
  }
  const provider = (node as { readonly provider?: unknown }).provider
  if (kind.capabilities.conversation && typeof provider === 'string') {
    if (!providers.includes(provider)) throw new UnknownProvider(provider, providers)
  }
  return node
}

/** What `LIST_KINDS` says of a kind. */
export const kindInfo = (kind: Kind): KindInfo => ({
  kind: kind.kind,
  aliases: kind.aliases,
  summary: kind.summary,
  persistent: kind.persistent,
  creatable: kind.creatable,
  describable: kind.describable,
  capabilities: kind.capabilities,
  options: jsonSchemaOf(kind.options),
})

/** Registers a node under its id and starts it; a node that fails to start is unregistered again. */
export const registerAndStart = async (session: Session, node: Node): Promise<NodeInfo> => {
  session.register(node, node.id)
  try {
    await session.start(node.id)
  } catch (e) {
    session.unregister(node.id)
    throw e
  }
  return infoOf(session, node.id)!
}

/** The info of a registered node. */
export const infoOf = (session: Session, nodeId: string): NodeInfo | undefined =>
  session.listNodes().find((n) => n.id === nodeId)
