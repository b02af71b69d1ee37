import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
// the name rule alone: loading the protocol must not load the whole core
import { validateName } from '../node/name.js'
import { refined } from './parts.js'

/**
 * A name that follows Nerve's name rule (node and session ids).
 *
 * @category protocol
 */
export const NameCodec: t.Type<string, string> = refined(t.string, 'Name', (s) =>
  E.isRight(validateName(s)),
)
