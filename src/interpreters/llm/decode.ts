import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { Message } from '../../conversation/Entry.js'
import { ProviderMalformed } from './ProviderError.js'

const pointer = (context: t.Context): string =>
  context
    .slice(1)
    .map((c) => `/${c.key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('')

/**
 * Decodes a provider's answer (or one streamed event) with `codec`, or
 * throws a {@link ProviderMalformed} naming the JSON pointer of the first
 * bad field, under `at` (the event's place in the stream, `''` for a body).
 *
 * @internal
 */
export const decodeAnswer = <A, O>(
  provider: string,
  codec: t.Type<A, O>,
  value: unknown,
  at = '',
): A => {
  const result = codec.decode(value)
  if (E.isRight(result)) return result.right
  const first = result.left[0]
  const path = first === undefined ? '' : pointer(first.context)
  const got =
    first === undefined
      ? ''
      : `got ${first.value === undefined ? 'nothing' : JSON.stringify(first.value).slice(0, 60)}`
  const expected = first?.context.at(-1)?.type.name ?? codec.name
  throw new ProviderMalformed(provider, `${at}${path}`, `expected ${expected}, ${got}`)
}

/**
 * Parses one streamed event's JSON `data`, or throws a {@link ProviderMalformed} at `at`.
 *
 * @internal
 */
export const parseEvent = (provider: string, data: string, at: string): unknown => {
  try {
    return JSON.parse(data) as unknown
  } catch {
    throw new ProviderMalformed(provider, at, `not JSON: ${data.slice(0, 100)}`)
  }
}

/**
 * Joins runs of messages with the same role into one (their contents as
 * blocks, in order): providers that want roles to alternate accept the
 * result, and a cancelled turn's lone user message does not break the next.
 *
 * @internal
 */
export const alternate = (messages: readonly Message[]): readonly Message[] => {
  const out: Message[] = []
  for (const m of messages) {
    const last = out.at(-1)
    if (last?.role !== m.role) {
      out.push(m)
      continue
    }
    const blocks = (c: Message['content']) =>
      typeof c === 'string' ? [{ type: 'text' as const, text: c }] : c
    out[out.length - 1] = { ...last, content: [...blocks(last.content), ...blocks(m.content)] }
  }
  return out
}

/**
 * The name of each tool use in the messages, by tool use id: what a
 * tool_result needs where the protocol names the function (Gemini).
 *
 * @internal
 */
export const toolNamesById = (messages: readonly Message[]): ReadonlyMap<string, string> => {
  const names = new Map<string, string>()
  for (const m of messages) {
    if (typeof m.content === 'string') continue
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name)
  }
  return names
}

/**
 * `codec` or `null` (compatible servers send `null` for what they do not
 * report). Unlike `t.union`, it adds no member index to error paths.
 *
 * @internal
 */
export const orNull = <A, O>(codec: t.Type<A, O>): t.Type<A | null, O | null> =>
  new t.Type<A | null, O | null, unknown>(
    `${codec.name} | null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  )
