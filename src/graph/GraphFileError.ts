import type * as t from 'io-ts'
import {
  keyHint,
  pointer,
  shapeErrors,
  showJson as show,
  showShapeError,
  whereIn,
  type ShapeError,
} from '../codec/index.js'

export { pointer }

/**
 * What is wrong with a graph file. `path` is a JSON pointer into the file
 * (`/steps/3/dependsOn/0`; `''` is the whole file).
 *
 * - `WrongType`: a value of the wrong type (`expected` names the type).
 * - `MissingKey`: a required key is absent.
 * - `UnknownKey`: a key the format does not have (a typo, usually), with the
 *   known key it most likely meant as `hint` when one is close.
 * - `InvalidName`: an id, kind, handle or parser that breaks the name rule.
 * - `DuplicateId`: a step id used twice in one graph.
 * - `UnknownNode`: a node reference found neither in `nodes` nor in the registry.
 * - `UnknownStep`: a dependency or edge end that is not a step of the graph.
 * - `MissingChannelMetadata`: an edge without `channel`, or a link without `handle`.
 * - `FunctionNodeInFile`: a `function` node in the `nodes` table.
 * - `InvalidValue`: any other bad value (a negative retry count, both
 *   `node` and `nodeRef`, a self-dependency, …), with the reason.
 * - `CycleInFile`: steps (or nested graphs) that depend on each other in a
 *   circle, listed as `cycle` and ending where it starts.
 *
 * @category graph files
 */
export type GraphFileError =
  | ShapeError
  | {
      readonly _tag: 'InvalidName'
      readonly path: string
      readonly name: unknown
      readonly reason: string
    }
  | { readonly _tag: 'DuplicateId'; readonly path: string; readonly id: string }
  | { readonly _tag: 'UnknownNode'; readonly path: string; readonly ref: string }
  | { readonly _tag: 'UnknownStep'; readonly path: string; readonly stepId: string }
  | {
      readonly _tag: 'MissingChannelMetadata'
      readonly path: string
      readonly field: 'channel' | 'handle'
    }
  | { readonly _tag: 'FunctionNodeInFile'; readonly path: string; readonly id: string }
  | { readonly _tag: 'InvalidValue'; readonly path: string; readonly reason: string }
  | { readonly _tag: 'CycleInFile'; readonly path: string; readonly cycle: readonly string[] }

/** The `UnknownKey` an io-ts error of a strict object is, at `path`, with its hint. @internal */
export const unknownKey = (path: string, e: t.ValidationError): GraphFileError => {
  const hint = keyHint(e)
  return hint === undefined ? { _tag: 'UnknownKey', path } : { _tag: 'UnknownKey', path, hint }
}

/**
 * io-ts errors as {@link GraphFileError}s, with `prefix` (a JSON pointer) in
 * front of their paths.
 *
 * @internal
 */
export const fromValidationErrors = (errors: t.Errors, prefix = ''): readonly GraphFileError[] =>
  shapeErrors(errors, prefix)

/**
 * Renders a {@link GraphFileError} as one line: the path, then what is wrong.
 *
 * @category graph files
 * @example
 * import { showGraphFileError } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(
 *   showGraphFileError({ _tag: 'UnknownStep', path: '/steps/3/dependsOn/0', stepId: 'x' }),
 *   '/steps/3/dependsOn/0: "x" is not a step of this graph',
 * )
 */
export const showGraphFileError = (e: GraphFileError): string => {
  const at = whereIn(e.path)
  switch (e._tag) {
    case 'WrongType':
    case 'MissingKey':
    case 'UnknownKey':
      return showShapeError(e)
    case 'InvalidName':
      return `${at}: ${show(e.name)} is not a valid name: it ${e.reason}`
    case 'DuplicateId':
      return `${at}: the id "${e.id}" is already used`
    case 'UnknownNode':
      return `${at}: no node "${e.ref}" in the file's nodes or the registry`
    case 'UnknownStep':
      return `${at}: "${e.stepId}" is not a step of this graph`
    case 'MissingChannelMetadata':
      return e.field === 'channel'
        ? `${at}: an edge needs a channel, "flow" or "link"`
        : `${at}: a link edge needs a handle`
    case 'FunctionNodeInFile':
      return `${at}: node "${e.id}" is a function node, which a file cannot hold; pass it in the registry`
    case 'InvalidValue':
      return `${at}: ${e.reason}`
    case 'CycleInFile':
      return `${at}: dependency cycle ${e.cycle.map((s) => JSON.stringify(s)).join(' → ')}`
  }
}
