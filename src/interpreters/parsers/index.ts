export { screenLines, stripAnsi } from './ansi.js'
export { parsedResponse, section } from './ParsedResponse.js'
export type {
  ParsedResponse,
  ParseOptions,
  Parser,
  ResponseSection,
  SectionType,
} from './ParsedResponse.js'
export { screenState } from './ScreenState.js'
export type { ScreenState, ScreenStateTag } from './ScreenState.js'
export { noneParser } from './none.js'
export { claudeParser } from './claude.js'
export { geminiParser } from './gemini.js'
export { codexParser } from './codex.js'
export { getParser, isParserName, parsers, UnknownParser } from './registry.js'
export type { ParserName } from './registry.js'
