/**
 * Commands that read files and need no daemon: `extract` (a CLI agent's
 * answer split into sections) and `view` (a conversation file as HTML).
 */
import * as E from 'fp-ts/lib/Either.js'
import { readFile } from 'node:fs/promises'
import {
  decodeConversation,
  decodeNano,
  formatDecodeError,
  NERVE_FORMAT,
  renderHtml,
} from '../../conversation/index.js'
import { getParser, isParserName, parsers, writeFileAtomic } from '../../interpreters/index.js'
import { CliError, fileCategory, print, type GlobalOptions } from '../context.js'

/** Reads a file, or standard input for `-` or no file. */
export const readInput = async (file: string | undefined): Promise<string> => {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = []
    for await (const c of process.stdin) chunks.push(c as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return await readFile(file, 'utf8')
  } catch (e) {
    throw new CliError(
      'FileUnreadable',
      `cannot read ${file}: ${(e as Error).message}`,
      undefined,
      fileCategory(e),
    )
  }
}

/** Reads and parses a JSON file; a syntax error names the file. */
export const readJson = async (file: string): Promise<unknown> => {
  const text = await readInput(file)
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    throw new CliError(
      'InvalidJson',
      `${file} is not JSON: ${(e as Error).message}`,
      undefined,
      'invalidInput',
    )
  }
}

/** `nerve extract [--parser P] [FILE|-]`. */
export const extract = async (
  file: string | undefined,
  o: GlobalOptions & { readonly parser?: string },
): Promise<void> => {
  const name = o.parser ?? 'claude'
  if (!isParserName(name)) {
    throw new CliError(
      'UnknownParser',
      `no parser "${name}": one of ${Object.keys(parsers).join(', ')}`,
      '--parser',
      'invalidInput',
    )
  }
  const parsed = getParser(name).parse(await readInput(file))
  print(o, parsed, (p) =>
    p.sections
      .map((s) => (p.sections.length > 1 ? `## ${s.type}\n${s.content}` : s.content))
      .join('\n\n'),
  )
}

/** `nerve view FILE [-o OUT]`: a conversation file (ours or nano-agent's) or a run's trace as one HTML page. */
export const view = async (
  file: string,
  o: GlobalOptions & { readonly output?: string },
): Promise<void> => {
  const json = await readJson(file)
  const { traceHtml, traceIn } = await import('../trace.js')
  const trace = traceIn(json)
  if (trace !== undefined) return write(traceHtml(trace), o)
  const isNerve =
    typeof json === 'object' &&
    json !== null &&
    (json as { format?: unknown }).format === NERVE_FORMAT
  const decoded = isNerve ? decodeConversation(json) : decodeNano(json)
  if (E.isLeft(decoded)) {
    throw new CliError(
      decoded.left._tag,
      `${file} is not a conversation (Nerve or nano-agent JSON) or a run's trace: ${formatDecodeError(decoded.left)}`,
      undefined,
      'invalidInput',
    )
  }
  await write(renderHtml(decoded.right.heads, { title: file }), o)
}

/** Writes a page to `-o FILE` (atomically), or to stdout. */
const write = async (
  html: string,
  o: GlobalOptions & { readonly output?: string },
): Promise<void> => {
  if (o.output === undefined) {
    process.stdout.write(html)
    return
  }
  await writeFileAtomic(o.output, html)
  print(o, { written: o.output }, () => `Wrote ${o.output}`)
}
