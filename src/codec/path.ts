/**
 * Where a decode error is: one path for every boundary, a JSON pointer
 * (RFC 6901) into the value that was decoded (`/nodes/0/options/timeoutMs`;
 * `''` is the value itself). Pure.
 */
import * as t from 'io-ts'

/**
 * A JSON pointer from keys: each key after a `/`, with `~` written `~0`
 * and `/` written `~1`.
 *
 * @category codecs
 * @example
 * import { pointer } from 'nerve-agents/core'
 * import assert from 'assert'
 *
 * assert.strictEqual(pointer(['steps', 3, 'a/b']), '/steps/3/a~1b')
 * assert.strictEqual(pointer([]), '')
 */
export const pointer = (keys: readonly (string | number)[]): string =>
  keys.map((k) => `/${String(k).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

/**
 * Whether the next context entry under a codec is the index of one of its
 * members (a union's or an intersection's), which is no place in the value.
 * A codec that validates with its inner codec's context (exact, readonly,
 * recursive, refinement) is whatever its inner codec is.
 */
const entersMembers = (type: t.Decoder<unknown, unknown>): boolean => {
  if (
    type instanceof t.ExactType ||
    type instanceof t.ReadonlyType ||
    type instanceof t.RefinementType
  )
    return entersMembers((type as { readonly type: t.Mixed }).type)
  if (type instanceof t.RecursiveType) return entersMembers((type as t.RecursiveType<t.Mixed>).type)
  return type instanceof t.UnionType || type instanceof t.IntersectionType
}

/**
 * The keys from the decoded value down to where an io-ts error is: the
 * keys of its context without the root entry and without the member
 * indexes of unions and intersections.
 *
 * @category codecs
 */
export const errorKeys = (e: t.ValidationError): readonly string[] => {
  const keys: string[] = []
  for (let i = 1; i < e.context.length; i++) {
    if (!entersMembers(e.context[i - 1]!.type)) keys.push(e.context[i]!.key)
  }
  return keys
}

/**
 * Where an io-ts error is, as a JSON pointer ({@link errorKeys}). Put the
 * pointer to where the decoded value sits in a larger one in front of it.
 *
 * @category codecs
 * @example
 * import { errorPath } from 'nerve-agents/core'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const codec = t.type({ steps: t.array(t.union([t.string, t.type({ id: t.string })])) })
 * const decoded = codec.decode({ steps: [{ id: 1 }] })
 * assert.ok(decoded._tag === 'Left')
 * assert.deepStrictEqual(decoded.left.map(errorPath), ['/steps/0', '/steps/0/id'])
 */
export const errorPath = (e: t.ValidationError): string => pointer(errorKeys(e))

/**
 * Errors with their paths moved under `prefix` (a JSON pointer to where
 * the decoded value sits in a larger one: a graph file in a command's
 * params).
 *
 * @category codecs
 */
export const under = <E extends { readonly path: string }>(
  prefix: string,
  errors: readonly E[],
): E[] => errors.map((e) => ({ ...e, path: `${prefix}${e.path}` }))

/**
 * What an io-ts error expected: the name of the innermost codec of its
 * context.
 *
 * @category codecs
 */
export const expectedOf = (e: t.ValidationError): string => e.context.at(-1)?.type.name ?? 'a value'

/**
 * A value as an error message shows it: its JSON, cut at 80 characters;
 * `nothing` for `undefined`, the type's name for what JSON cannot hold.
 *
 * @category codecs
 */
export const showValue = (u: unknown): string => {
  if (u === undefined) return 'nothing'
  try {
    const json = JSON.stringify(u) as string | undefined
    if (json === undefined) return typeof u
    return json.length > 80 ? `${json.slice(0, 77)}...` : json
  } catch {
    return typeof u
  }
}
