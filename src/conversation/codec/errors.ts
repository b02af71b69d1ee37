import type * as t from 'io-ts'
import { errorPath, expectedOf, pointer } from '../../codec/index.js'

/**
 * Why a conversation file could not be read. Every error names where: a JSON
 * pointer into the input (`path`) and, for structural errors, the vertex ids.
 * {@link formatDecodeError} renders one for people.
 *
 * @category errors
 */
export type DecodeError =
  InvalidJson | Invalid | MissingParent | VertexCycle | DuplicateId | UnknownHead | MismatchedId

/** The text is not JSON. @category errors */
export interface InvalidJson {
  readonly _tag: 'InvalidJson'
  /** The parser's message. */
  readonly message: string
}

/** One value of the input that does not have the expected shape. @category errors */
export interface InvalidValue {
  /** JSON pointer to the value, e.g. `/nodes/abc/data/content/2`; `''` for the whole input. */
  readonly path: string
  /** The name of the expected type, e.g. `string` or `TextBlock | ImageBlock`. */
  readonly expected: string
  /** The value found there (`undefined` when missing). */
  readonly actual: unknown
}

/** Values of the input have the wrong shape; all of them are listed. @category errors */
export interface Invalid {
  readonly _tag: 'Invalid'
  readonly errors: readonly InvalidValue[]
}

/** A vertex names a parent that is not in its conversation. @category errors */
export interface MissingParent {
  readonly _tag: 'MissingParent'
  readonly vertex: string
  readonly parent: string
  /** JSON pointer to the parent id. */
  readonly path: string
}

/** Vertices are their own ancestors. @category errors */
export interface VertexCycle {
  readonly _tag: 'Cycle'
  readonly vertex: string
  /** The ids around the cycle, each the parent of the one before, ending with `vertex` again. */
  readonly cycle: readonly string[]
  /** JSON pointer to `vertex`. */
  readonly path: string
}

/** Two vertices of one conversation have the same id. @category errors */
export interface DuplicateId {
  readonly _tag: 'DuplicateId'
  readonly vertex: string
  /** JSON pointer to the second one. */
  readonly path: string
}

/** A head id that is not a vertex of its conversation. @category errors */
export interface UnknownHead {
  readonly _tag: 'UnknownHead'
  readonly id: string
  /** JSON pointer to the head id. */
  readonly path: string
}

/** nano-agent format: a node stored under a key other than its id. @category errors */
export interface MismatchedId {
  readonly _tag: 'MismatchedId'
  readonly key: string
  readonly id: string
  /** JSON pointer to the node. */
  readonly path: string
}

/** Escapes one JSON pointer segment (RFC 6901). @internal */
export const pointerSegment = (key: string): string => pointer([key]).slice(1)

/**
 * Turns io-ts errors into invalid values whose paths start with `prefix`.
 * The first context entry is the decoded root and adds nothing to the path.
 *
 * @internal
 */
export const invalidValues = (errors: t.Errors, prefix: string, out: InvalidValue[]): void => {
  for (const e of errors) {
    out.push({ path: prefix + errorPath(e), expected: expectedOf(e), actual: e.value })
  }
}

/** A short description of a value, safe for any depth or size. */
const describe = (u: unknown): string => {
  if (u === undefined) return 'nothing'
  if (typeof u === 'string') {
    const s = JSON.stringify(u.length > 60 ? `${u.slice(0, 60)}…` : u)
    return `the string ${s}`
  }
  if (Array.isArray(u)) return `an array of ${u.length}`
  if (typeof u === 'object' && u !== null) {
    const keys = Object.keys(u)
    if (keys.length === 0) return 'an empty object'
    const shown = keys.slice(0, 5).map((k) => JSON.stringify(k))
    return `an object with keys ${shown.join(', ')}${keys.length > 5 ? ', …' : ''}`
  }
  switch (typeof u) {
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(u)
    case 'symbol':
      return u.toString()
    case 'function':
      return 'a function'
    default:
      return 'null'
  }
}

const at = (path: string): string => (path === '' ? 'the top' : path)

/**
 * Renders a decode error for people, one line per problem.
 *
 * @category errors
 * @example
 * import { formatDecodeError, parseNano } from 'nerve-agents/core'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const r = parseNano('{"head_ids": [], "nodes": {"a": 1}}')
 * assert.ok(E.isLeft(r))
 * assert.strictEqual(formatDecodeError(r.left), 'invalid input:\n  at /nodes/a: expected NanoNode, found 1')
 */
export const formatDecodeError = (e: DecodeError): string => {
  switch (e._tag) {
    case 'InvalidJson':
      return `invalid JSON: ${e.message}`
    case 'Invalid':
      return [
        'invalid input:',
        ...e.errors.map(
          (v) => `  at ${at(v.path)}: expected ${v.expected}, found ${describe(v.actual)}`,
        ),
      ].join('\n')
    case 'MissingParent':
      return `vertex ${JSON.stringify(e.vertex)} names parent ${JSON.stringify(e.parent)}, which is not in its conversation (at ${at(e.path)})`
    case 'Cycle':
      return `vertices form a cycle: ${e.cycle.map((id) => JSON.stringify(id)).join(' → ')} (at ${at(e.path)})`
    case 'DuplicateId':
      return `vertex id ${JSON.stringify(e.vertex)} is used more than once (again at ${at(e.path)})`
    case 'UnknownHead':
      return `head ${JSON.stringify(e.id)} is not a vertex of its conversation (at ${at(e.path)})`
    case 'MismatchedId':
      return `node under key ${JSON.stringify(e.key)} has id ${JSON.stringify(e.id)} (at ${at(e.path)})`
  }
}
