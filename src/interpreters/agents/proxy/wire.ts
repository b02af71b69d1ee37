/**
 * Helpers the proxy protocols share: decoding a request body with a path to
 * the bad field, reading an upstream's answer (streamed or JSON) with the
 * provider's own reader. Internal: not exported from the package.
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { sseParser } from '../../llm/http.js'
import type { StreamReader } from '../../llm/httpProvider.js'
import type { ModelResponse } from '../../llm/Provider.js'
import { ProxyRequestInvalid, type AnswerReader, type EncodedResponse } from './ProxyProtocol.js'

/** The JSON pointer of an io-ts context (its first entry is the root). */
export const pointer = (context: t.Context): string =>
  context
    .slice(1)
    .map((c) => `/${c.key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('')

/** `body` decoded by `codec`; throws {@link ProxyRequestInvalid} naming the deepest bad field. */
export const decodeRequest = <A>(
  protocol: string,
  codec: t.Decoder<unknown, A>,
  body: unknown,
): A => {
  const result = codec.decode(body)
  if (E.isRight(result)) return result.right
  const first = [...result.left].sort((a, b) => b.context.length - a.context.length)[0]
  const path = first === undefined ? '' : pointer(first.context)
  const expected = first?.context.at(-1)?.type.name ?? codec.name
  throw new ProxyRequestInvalid(protocol, path, `expected ${expected}`)
}

/** JSON text parsed as an object; throws {@link ProxyRequestInvalid} at `path` otherwise. */
export const parseObject = (
  protocol: string,
  text: string,
  path: string,
): Readonly<Record<string, unknown>> => {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ProxyRequestInvalid(protocol, path, 'expected a JSON object')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProxyRequestInvalid(protocol, path, 'expected a JSON object')
  return value as Record<string, unknown>
}

/** A reader of a whole JSON answer, decoded by `decode` (undefined when it does not decode). */
export const jsonReader = (decode: (json: unknown) => ModelResponse): AnswerReader => {
  let text = ''
  return {
    push: (piece) => {
      text += piece
    },
    result: () => {
      try {
        return decode(JSON.parse(text))
      } catch {
        return undefined
      }
    },
  }
}

/** A reader of a streamed answer: server-sent events fed to a provider's stream reader. */
export const streamAnswerReader = (gather: StreamReader): AnswerReader => {
  let failed = false
  const parser = sseParser((e) => {
    if (failed) return
    try {
      gather.onEvent(e)
    } catch {
      failed = true
    }
  })
  return {
    push: (piece) => {
      parser.push(piece)
    },
    result: () => {
      if (failed) return undefined
      try {
        return gather.result()
      } catch {
        return undefined
      }
    },
  }
}

/** A JSON answer of `status`. */
export const jsonResponse = (status: number, body: unknown): EncodedResponse => ({
  status,
  contentType: 'application/json',
  chunks: [JSON.stringify(body)],
})
