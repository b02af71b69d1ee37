import * as t from 'io-ts'
import { literals, refined as kitRefined, RefinedType, type JsonSchema } from '../codec/index.js'

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

export { literals, RefinedType }

/**
 * A codec of the values of `base` that pass `ok` (a refinement of the codec
 * kit), named `name`; `schema` is what the check adds to the base's JSON
 * Schema (e.g. `{ minimum: 0 }`).
 *
 * @internal
 */
export const refined = <A>(
  base: t.Type<A, A>,
  name: string,
  ok: (a: A) => boolean,
  schema: JsonSchema = {},
): RefinedType<A> => kitRefined(base, name, ok, { schema })

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
