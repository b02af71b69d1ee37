import { taggedError } from '../../errors.js'
import { claudeParser } from './claude.js'
import { codexParser } from './codex.js'
import { geminiParser } from './gemini.js'
import { noneParser } from './none.js'
import type { Parser } from './ParsedResponse.js'

/**
 * The parsers shipped with Nerve, by name.
 *
 * @category parsers
 */
export const parsers = Object.freeze({
  none: noneParser,
  claude: claudeParser,
  gemini: geminiParser,
  codex: codexParser,
}) satisfies Readonly<Record<string, Parser>>

/**
 * The name of a shipped parser.
 *
 * @category parsers
 */
export type ParserName = keyof typeof parsers

/**
 * A parser name that {@link getParser} does not know; `known` lists the
 * names it does.
 *
 * @category errors
 */
export class UnknownParser extends taggedError('UnknownParser', 'invalidInput')<{
  readonly parser: string
  readonly known: readonly string[]
}> {
  constructor(parser: string) {
    const known = Object.keys(parsers)
    super(`unknown parser ${JSON.stringify(parser)}: the parsers are ${known.join(', ')}`, {
      parser,
      known: Object.freeze(known),
    })
  }
}

/**
 * Whether `name` names a shipped parser.
 *
 * @category parsers
 */
export const isParserName = (name: string): name is ParserName =>
  Object.prototype.hasOwnProperty.call(parsers, name)

/**
 * The shipped parser called `name`; throws {@link UnknownParser} for any
 * other name (a node's configuration naming a parser that does not exist).
 *
 * @category parsers
 * @example
 * import { getParser, UnknownParser } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * assert.strictEqual(getParser('claude').name, 'claude')
 * assert.throws(() => getParser('aider'), UnknownParser)
 */
export const getParser = (name: string): Parser => {
  if (!isParserName(name)) throw new UnknownParser(name)
  return parsers[name]
}
