import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from '../../errors.js'
import { decodeGraph, type GraphFileError } from '../../graph/index.js'
import {
  bash,
  claudeWezterm,
  llm,
  pty,
  tmux,
  wezterm,
  type Node,
  type NodeInfo,
} from '../../node/index.js'
import type { Session } from '../../session/index.js'
import type { CreateKind } from '../../protocol/index.js'
import { GraphFileInvalid, InvalidOptions, UnknownProvider } from './errors.js'

type Options = Readonly<Record<string, unknown>>

/** Graph-file errors with their paths moved under `prefix` (where the file is in `params`). */
export const under = (prefix: string, errors: readonly GraphFileError[]): GraphFileError[] =>
  errors.map((e) => ({ ...e, path: `${prefix}${e.path}` }))

/** A graph from a graph-file value, decoded strictly (node ids the file does not describe resolve in the session). */
export const graphOf = (session: Session, file: unknown, at: string) => {
  const decoded = decodeGraph(file, { nodes: session })
  if (E.isLeft(decoded)) throw new GraphFileInvalid(under(at, decoded.left))
  return decoded.right
}

/** The node `CREATE_NODE` makes of a kind and its options; a constructor's UsageError becomes InvalidOptions. */
export const nodeOf = (
  session: Session,
  nodeId: string,
  kind: CreateKind,
  options: Options,
  providers: readonly string[],
): Node => {
  try {
    switch (kind) {
      case 'bash':
        return bash(nodeId, options)
      case 'pty':
        return pty(nodeId, options as unknown as Parameters<typeof pty>[1])
      case 'tmux':
        return tmux(nodeId, options)
      case 'wezterm':
        return wezterm(nodeId, options)
      case 'claude':
        return claudeWezterm(nodeId, options)
      case 'llm': {
        const node = llm(nodeId, options)
        if (!providers.includes(node.provider)) throw new UnknownProvider(node.provider, providers)
        return node
      }
      case 'graph': {
        const { graph: file, ...rest } = options
        const extra = Object.keys(rest)[0]
        if (extra !== undefined) {
          throw new InvalidOptions(`a graph node takes only options.graph`, `/options/${extra}`)
        }
        if (typeof file !== 'object' || file === null || Array.isArray(file)) {
          throw new InvalidOptions(
            'options.graph must be a graph file (an object)',
            '/options/graph',
          )
        }
        return graphOf(session, { ...file, id: nodeId }, '/options/graph')
      }
    }
  } catch (e) {
    if (e instanceof UsageError) throw new InvalidOptions(e.message)
    throw e
  }
}

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
