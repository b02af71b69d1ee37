import * as t from 'io-ts'
import { didYouMean, objectSchema, withJsonSchema } from '../node/jsonSchema.js'

/** The message of an io-ts error for a key the schema does not know. @internal */
export const UNKNOWN_KEY = 'unknown key'

/** Stands in the context of an unknown key. */
const UnknownKeyDecoder = new t.Type<never>(
  'nothing (unknown key)',
  (_u): _u is never => false,
  (u, c) => t.failure(u, c, UNKNOWN_KEY),
  () => undefined as never,
)

/**
 * A builder of strict objects for a file format whose `aliases` map words
 * other tools use for its keys to the key they mean here. The object has
 * the given required and optional properties and no other: an unknown key
 * is an error (a typo must not pass silently), whose message names the key
 * it most likely meant (`unknown key; did you mean "dependsOn"?`). Every
 * error is collected. Its JSON Schema is made from the same properties.
 *
 * @internal
 */
export const strictStruct =
  (aliases: Readonly<Record<string, string>>) =>
  <A>(name: string, required: t.Props, optional: t.Props = {}): t.Type<A> =>
    withJsonSchema(
      new t.Type<A>(
        name,
        (u): u is A => t.UnknownRecord.is(u),
        (u, c) => {
          if (!t.UnknownRecord.is(u)) return t.failure(u, c)
          const errors: t.ValidationError[] = []
          const out: Record<string, unknown> = {}
          const known = [...Object.keys(required), ...Object.keys(optional)].filter(
            (k) => k !== '$schema',
          )
          for (const key of Object.keys(u)) {
            if (!(key in required) && !(key in optional)) {
              const near = didYouMean(key, known, aliases)
              errors.push({
                value: u[key],
                context: t.appendContext(c, key, UnknownKeyDecoder, u[key]),
                message:
                  near === undefined ? UNKNOWN_KEY : `${UNKNOWN_KEY}; did you mean "${near}"?`,
              })
            }
          }
          const check = (key: string, codec: t.Mixed): void => {
            const result = codec.validate(u[key], t.appendContext(c, key, codec, u[key]))
            if (result._tag === 'Left') errors.push(...result.left)
            else out[key] = result.right
          }
          for (const [key, codec] of Object.entries(required)) check(key, codec)
          for (const [key, codec] of Object.entries(optional))
            if (u[key] !== undefined) check(key, codec)
          return errors.length > 0 ? t.failures(errors) : t.success(out as A)
        },
        t.identity,
      ),
      () => objectSchema(required, optional),
    )
