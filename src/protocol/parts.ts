import * as t from 'io-ts'

type Props = Record<string, t.Mixed>

/** The decoded type of an object with required props `R` and optional props `O`. */
type Struct<R extends Props, O extends Props> = {
  readonly [K in keyof R]: t.TypeOf<R[K]>
} & { readonly [K in keyof O]?: t.TypeOf<O[K]> }

/**
 * A codec of an object with `required` and `optional` keys. Keys it does
 * not list pass through untouched: an answer from a newer daemon that adds
 * a field still decodes (params, which the engine reads, are exact).
 *
 * @internal
 */
// no optional keys: the optional part is empty
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type
export const struct = <R extends Props, O extends Props = Record<never, never>>(
  name: string,
  required: R,
  optional?: O,
): t.Type<Struct<R, O>, Struct<R, O>> =>
  (optional === undefined
    ? t.type(required, name)
    : t.intersection([t.type(required), t.partial(optional)], name)) as unknown as t.Type<
    Struct<R, O>,
    Struct<R, O>
  >

/**
 * A codec of one of the string literals `values`.
 *
 * @internal
 */
export const literals = <const L extends string>(
  name: string,
  values: readonly L[],
): t.Type<L, L> =>
  t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<L, null>, name)

/**
 * A codec of the values of `base` that pass `ok`, named `name`; `schema`
 * is what the check adds to the base's JSON Schema (e.g. `{ minimum: 0 }`).
 *
 * @category protocol
 */
export class RefinedType<A> extends t.Type<A, A> {
  readonly _tag = 'RefinedType' as const
  constructor(
    name: string,
    readonly base: t.Type<A, A>,
    ok: (a: A) => boolean,
    readonly schema: Readonly<Record<string, unknown>>,
  ) {
    super(
      name,
      (u): u is A => base.is(u) && ok(u),
      (u, c) => (base.is(u) && ok(u) ? t.success(u) : t.failure(u, c)),
      (a) => a,
    )
  }
}

/**
 * A codec of the values of `base` that pass `ok` (see {@link RefinedType}).
 *
 * @internal
 */
export const refined = <A>(
  base: t.Type<A, A>,
  name: string,
  ok: (a: A) => boolean,
  schema: Readonly<Record<string, unknown>> = {},
): RefinedType<A> => new RefinedType(name, base, ok, schema)

/**
 * An immer patch of a network value (`EDIT_NETWORK` takes them,
 * `NETWORK_PATCHED` and the live-edit answers carry them).
 *
 * @category protocol
 */
export const PatchCodec = t.exact(
  t.intersection([
    t.type({
      op: t.keyof({ add: null, replace: null, remove: null }),
      path: t.array(t.union([t.string, t.number])),
    }),
    t.partial({ value: t.unknown }),
  ]),
  'Patch',
)

/**
 * An error inside an event or an answer: its tag and message.
 *
 * @category protocol
 */
export const WireErrorShapeCodec = struct('WireErrorShape', { tag: t.string, message: t.string })

/**
 * An error inside an event or an answer: its tag and message.
 *
 * @category protocol
 */
export type WireErrorShape = t.TypeOf<typeof WireErrorShapeCodec>

/**
 * A node's lifecycle state.
 *
 * @category protocol
 */
export const NodeStateCodec = literals('NodeState', [
  'created',
  'starting',
  'ready',
  'busy',
  'stopping',
  'stopped',
])
