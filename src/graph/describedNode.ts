import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { EMPTY_METADATA, makeNode, type Node } from '../node/Node.js'
import type { NodeKinds } from '../node/NodeKind.js'
import { errorKeys, isUnknownKey, pointer } from '../codec/index.js'
import { optionProblem } from '../node/options.js'
import { kindHint, type OtherNodeDescription } from './GraphFile.js'
import { unknownKey, type GraphFileError } from './GraphFileError.js'

/**
 * A node of the file's table that is not a graph: a kind of `kinds` decoded
 * with its options codec and built with its builder (errors go to `errors`,
 * with their paths under `at`); any other kind as it is described.
 *
 * @internal
 */
export const describedNode = (
  id: string,
  desc: OtherNodeDescription,
  at: string,
  errors: GraphFileError[],
  kinds: NodeKinds,
): Node | undefined => {
  const { kind, persistent, id: _id, ...options } = desc
  const found = kinds.get(kind)
  const known = found?.describable === true ? found : undefined
  if (known === undefined) {
    // a kind one typo (or another tool's word) away from a known one is that one, misspelt
    const meant = kindHint(kind, kinds)
    if (meant !== undefined) {
      errors.push({
        _tag: 'InvalidValue',
        path: `${at}/kind`,
        reason: `"${kind}" is not a node kind; did you mean "${meant}"?`,
      })
      return undefined
    }
    return makeNode({
      ...desc,
      id,
      kind,
      persistent: persistent ?? false,
      metadata: desc.metadata ?? EMPTY_METADATA,
    })
  }
  if (persistent !== undefined && persistent !== known.persistent) {
    errors.push({
      _tag: 'InvalidValue',
      path: `${at}/persistent`,
      reason: `a ${kind} node is ${known.persistent ? '' : 'not '}persistent`,
    })
    return undefined
  }
  const decoded = known.options.decode(options)
  if (E.isLeft(decoded)) {
    for (const e of decoded.left) errors.push(optionError(at, e))
    return undefined
  }
  try {
    return known.build(id, decoded.right)
  } catch (e) {
    errors.push({
      _tag: 'InvalidValue',
      path: at,
      reason: e instanceof Error ? e.message : String(e),
    })
    return undefined
  }
}

/** An error of a node kind's options codec as a file error under the node's path. */
const optionError = (at: string, e: t.ValidationError): GraphFileError => {
  const keys = errorKeys(e)
  const path = at + pointer(keys)
  if (isUnknownKey(e)) return unknownKey(path, e)
  if (e.value === undefined && keys.length > 0) return { _tag: 'MissingKey', path }
  return { _tag: 'InvalidValue', path, reason: optionProblem(e) }
}
