import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

/**
 * Small io-ts combinators for the conversation codecs. They differ from io-ts'
 * own in two ways that matter here: error contexts only ever append the JSON
 * key of the value being looked at (so every error maps to a JSON pointer;
 * `t.intersection` and `t.union` add member indices), and decoding copies an
 * object or array only when one of its parts changed.
 *
 * @internal
 */

/** @internal */
export type JsonRecord = Readonly<Record<string, unknown>>

/**
 * The decoding half of a codec, covariant in its type, so that codecs of
 * different members fit one lookup table.
 *
 * @internal
 */
export interface Decoding<A> {
  readonly is: (u: unknown) => u is A
  readonly validate: (u: unknown, c: t.Context) => t.Validation<A>
}

/** Whether a value is a non-null, non-array object. @internal */
export const isRecord = (u: unknown): u is JsonRecord =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/** A vertex id on the wire: a non-empty string. @internal */
export const VertexId = new t.Type<string, string, unknown>(
  'VertexId',
  (u): u is string => typeof u === 'string' && u !== '',
  (u, c) => (typeof u === 'string' && u !== '' ? t.success(u) : t.failure(u, c)),
  t.identity,
)

/** Whether a value is an array of vertex ids; a loop, no closure. @internal */
export const isIdArray = (u: unknown): u is readonly string[] => {
  if (!Array.isArray(u)) return false
  for (let i = 0; i < u.length; i++) {
    const x: unknown = u[i]
    if (typeof x !== 'string' || x === '') return false
  }
  return true
}

/** An array of vertex ids. @internal */
export const VertexIds = t.readonlyArray(VertexId, 'Array<VertexId>')

type Props = Readonly<Record<string, t.Mixed>>

/** The decoded type of a struct: required props, then optional ones. @internal */
export type StructOf<R extends Props, P extends Props> = {
  readonly [K in keyof R]: t.TypeOf<R[K]>
} & { readonly [K in keyof P]?: t.TypeOf<P[K]> }

/** The encoded type of a struct. @internal */
export type StructOutOf<R extends Props, P extends Props> = {
  readonly [K in keyof R]: t.OutputOf<R[K]>
} & { readonly [K in keyof P]?: t.OutputOf<P[K]> }

/**
 * An object with required and optional properties. Unknown properties are
 * kept as they are. Decoding and encoding copy the object only when a
 * property changed.
 *
 * @internal
 */
export const struct = <
  R extends Props,
  // eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- no optional props by default
  P extends Props = Record<never, t.Mixed>,
>(
  name: string,
  required: R,
  optional?: P,
): t.Type<StructOf<R, P>, StructOutOf<R, P>> => {
  const fields: { key: string; codec: t.Mixed; optional: boolean }[] = []
  for (const key of Object.keys(required))
    fields.push({ key, codec: required[key]!, optional: false })
  if (optional !== undefined) {
    for (const key of Object.keys(optional))
      fields.push({ key, codec: optional[key]!, optional: true })
  }
  const n = fields.length
  const identity = fields.every((f) => f.codec.encode === t.identity)
  return new t.Type<StructOf<R, P>, StructOutOf<R, P>, unknown>(
    name,
    (u): u is StructOf<R, P> => {
      if (!isRecord(u)) return false
      for (let i = 0; i < n; i++) {
        const f = fields[i]!
        const v = u[f.key]
        if (v === undefined ? !f.optional : !f.codec.is(v)) return false
      }
      return true
    },
    (u, c) => {
      if (!isRecord(u)) return t.failure(u, c)
      let out: Record<string, unknown> | undefined
      const errors: t.ValidationError[] = []
      for (let i = 0; i < n; i++) {
        const f = fields[i]!
        const v = u[f.key]
        if (v === undefined && f.optional) continue
        const r = f.codec.validate(v, t.appendContext(c, f.key, f.codec, v))
        if (E.isLeft(r)) {
          for (const e of r.left) errors.push(e)
        } else if (r.right !== v) {
          out ??= { ...u }
          out[f.key] = r.right
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success((out ?? u) as StructOf<R, P>)
    },
    identity
      ? t.identity
      : (a) => {
          let out: Record<string, unknown> | undefined
          const src = a as Record<string, unknown>
          for (let i = 0; i < n; i++) {
            const f = fields[i]!
            const v = src[f.key]
            if (v === undefined || f.codec.encode === t.identity) continue
            const w: unknown = f.codec.encode(v)
            if (w !== v) {
              out ??= { ...src }
              out[f.key] = w
            }
          }
          return (out ?? src) as StructOutOf<R, P>
        },
  )
}

/**
 * A union of objects told apart by their `type` property: the decoder looks at
 * the tag and runs that one member, instead of trying every member as
 * `t.union` does. An unknown tag fails with the union's name as expected.
 *
 * @internal
 */
export const tagged = <M extends t.Mixed>(
  name: string,
  members: Readonly<Record<string, M>>,
): t.Type<t.TypeOf<M>, t.OutputOf<M>> => {
  const byTag = new Map<string, M>(Object.entries(members))
  const memberOf = (u: unknown): M | undefined =>
    isRecord(u) && typeof u.type === 'string' ? byTag.get(u.type) : undefined
  return new t.Type<t.TypeOf<M>, t.OutputOf<M>, unknown>(
    name,
    (u): u is t.TypeOf<M> => memberOf(u)?.is(u) ?? false,
    (u, c) => {
      const m = memberOf(u)
      return m === undefined ? t.failure(u, c) : (m.validate(u, c) as t.Validation<t.TypeOf<M>>)
    },
    (a) => memberOf(a)!.encode(a) as t.OutputOf<M>,
  )
}

/**
 * A string, or an array of items (content and tool result content). The
 * array is copied only when an item changed, when decoding and encoding.
 *
 * @internal
 */
export const stringOrArray = <A, O>(
  name: string,
  item: t.Type<A, O>,
): t.Type<string | readonly A[], string | readonly O[]> =>
  new t.Type<string | readonly A[], string | readonly O[], unknown>(
    name,
    (u): u is string | readonly A[] => {
      if (typeof u === 'string') return true
      if (!Array.isArray(u)) return false
      for (let i = 0; i < u.length; i++) if (!item.is(u[i])) return false
      return true
    },
    (u, c) => {
      if (typeof u === 'string') return t.success(u)
      if (!Array.isArray(u)) return t.failure(u, c)
      const xs: readonly unknown[] = u
      let out: unknown[] | undefined
      const errors: t.ValidationError[] = []
      for (let i = 0; i < xs.length; i++) {
        const x = xs[i]
        const r = item.validate(x, t.appendContext(c, String(i), item, x))
        if (E.isLeft(r)) {
          for (const e of r.left) errors.push(e)
        } else if (r.right !== x) {
          out ??= xs.slice()
          out[i] = r.right
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success((out ?? xs) as readonly A[])
    },
    item.encode === t.identity
      ? (t.identity as (a: string | readonly A[]) => string | readonly O[])
      : (a) => {
          if (typeof a === 'string') return a
          let out: O[] | undefined
          for (let i = 0; i < a.length; i++) {
            const x = a[i]!
            const w = item.encode(x)
            if ((w as unknown) !== x) {
              out ??= a.slice() as unknown as O[]
              out[i] = w
            }
          }
          return out ?? (a as unknown as readonly O[])
        },
  )
