/**
 * The building blocks of the network's codecs, on the codec kit: strict
 * objects that know the words other tools use for a network file's keys,
 * refinements, and the branch of a union chosen by `type`. Apart from
 * parts.ts so that the trigger kinds, which parts.ts gathers, can use them.
 *
 * @internal
 */
import type * as t from 'io-ts'
import { refined, strict as strictOf, type Props } from '../../codec/index.js'

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
export const strict = <A>(name: string, required: Props, optional: Props = {}): t.Type<A> =>
  strictOf<Props, Props, A>(name, required, optional, { aliases: KEY_ALIASES })

/** The values of `base` that pass `ok`: an error says what was expected by `name`. */
export const refine = <A>(base: t.Type<A>, ok: (a: A) => boolean, name: string): t.Type<A> =>
  refined(base, name, ok)

/**
 * One branch of a union chosen by `type`: a codec, or a function of the
 * value choosing one by more than its type (with the codecs it may choose,
 * for the JSON Schema).
 */
export type Branch<A> =
  | t.Type<A>
  | (((u: Record<string, unknown>) => t.Type<A>) & { readonly schemas?: readonly t.Type<A>[] })
