/**
 * The building blocks of the network's codecs: strict objects (an unknown
 * key is an error naming the key meant), refinements that carry their JSON
 * Schema, and the branch of a union chosen by `type`. Apart from parts.ts
 * so that the trigger kinds, which parts.ts gathers, can use them.
 *
 * @internal
 */
import * as t from 'io-ts'
import { strictStruct } from '../../graph/index.js'
import { jsonSchemaOf, withJsonSchema } from '../../node/index.js'

/** Words other tools use for a network file's keys, and the key they mean here. */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  model: 'provider',
  prompt_template: 'prompt',
  systemPrompt: 'system',
  instructions: 'system',
  source: 'from',
  target: 'to',
  agents: 'nodes',
  links: 'edges',
  connections: 'edges',
}

/** An object with these required and optional keys and no other; every error collected (and its JSON Schema). */
export const strict = strictStruct(KEY_ALIASES)

/** `base` narrowed by `ok`, named (and described in its JSON Schema) `name`. */
export const refine = <A>(base: t.Type<A>, ok: (a: A) => boolean, name: string): t.Type<A> =>
  withJsonSchema(
    new t.Type<A>(
      name,
      (u): u is A => base.is(u) && ok(u),
      (u, c) => {
        const r = base.validate(u, c)
        return r._tag === 'Left' ? r : ok(r.right) ? r : t.failure(u, c)
      },
      t.identity,
    ),
    () => ({ ...jsonSchemaOf(base), description: name }),
  )

/**
 * One branch of a union chosen by `type`: a codec, or a function of the
 * value choosing one by more than its type (with the codecs it may choose,
 * for the JSON Schema).
 */
export type Branch<A> =
  | t.Type<A>
  | (((u: Record<string, unknown>) => t.Type<A>) & { readonly schemas?: readonly t.Type<A>[] })
