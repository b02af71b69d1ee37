/**
 * What an edit of a network is (a pure function carrying its immer recipe)
 * and what a change is (the next network with its patches and their
 * inverse), and the checks the edit builders share.
 *
 * @internal
 */
import type { Draft, Patch } from 'immer'
import { produce } from 'immer'
import { UsageError } from '../../errors.js'
import { showInvalidName, validateName } from '../../node/index.js'
import type { Network, NetworkNode } from './Network.js'

/**
 * One edit of a network: a pure function from a network to the next one
 * (pipeable), carrying the immer recipe that {@link change} runs to get the
 * edit's patches. An edit that changes nothing returns its input (`===`).
 *
 * @category network builders
 */
export interface NetworkEdit {
  (net: Network): Network
  /** What the edit does, for messages: `addNode("a")`. */
  readonly label: string
  /** @internal the draft recipe. */
  readonly recipe: (draft: Draft<Network>) => void
}

/**
 * An edit as JSON patches: the next network, the patches that lead to it,
 * and the inverse patches that lead back (undo).
 *
 * @category network builders
 */
export interface NetworkChange {
  readonly network: Network
  readonly patches: readonly Patch[]
  readonly inverse: readonly Patch[]
}

export const edit = (label: string, recipe: (draft: Draft<Network>) => void): NetworkEdit => {
  const f = (net: Network): Network => produce(requireNetwork(label, net), recipe)
  return Object.freeze(Object.assign(f, { label, recipe }))
}

export const requireNetwork = (api: string, net: unknown): Network => {
  if ((net as Network | null)?._tag !== 'Network') {
    throw new UsageError(api, `expects a Network, got ${typeof net}`)
  }
  return net as Network
}

export const requireId = (api: string, what: string, id: unknown): string => {
  const v = validateName(id)
  if (v._tag === 'Left') throw new UsageError(api, `${what}: ${showInvalidName(v.left)}`)
  return v.right
}

export const requireNode = (api: string, draft: Draft<Network>, id: string): Draft<NetworkNode> => {
  const node = draft.nodes[id]
  if (node === undefined) {
    throw new UsageError(api, `the network "${draft.id}" has no node "${id}"`)
  }
  return node
}

/** Whether two JSON values are the same. */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
