import { open } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { errorPath, expectedOf } from '../codec/index.js'
import { deepFreeze } from '../dag/freeze.js'
import type { HistoryFilter } from './HistoryFilter.js'
import { historyPredicate } from './HistoryFilter.js'
import type { HistoryLocation } from './historyPath.js'
import { historyPathFor } from './historyPath.js'
import type { HistoryRecord } from './HistoryRecord.js'
import { HistoryRecordCodec } from './HistoryRecord.js'

/**
 * A line of a history file that is not a record (not JSON, or JSON that
 * the codec rejects), with its 1-based line number; it was skipped. `text`
 * is the line, cut to 200 characters.
 *
 * @category history
 */
export interface CorruptLine {
  readonly _tag: 'CorruptLine'
  readonly path: string
  readonly line: number
  readonly reason: string
  readonly text: string
}

/**
 * What {@link readHistory} found: the records that passed the filter, in
 * file order; the corrupt lines it skipped; and `tornLine`, the number of
 * the last line when it was cut short (a crash mid-write) and so skipped.
 *
 * @category history
 */
export interface HistoryRead {
  readonly records: readonly HistoryRecord[]
  readonly problems: readonly CorruptLine[]
  readonly tornLine?: number
}

/**
 * A history file: its path, or where it lives (see `historyPath`).
 *
 * @category history
 */
export type HistorySource = string | HistoryLocation

/** One line of a file, without its `\n`; `terminated` is false for a last line with no `\n`. */
interface RawLine {
  readonly line: number
  readonly text: string
  readonly terminated: boolean
}

const CHUNK = 64 * 1024

const openForReading = async (path: string): Promise<FileHandle | undefined> => {
  try {
    return await open(path, 'r')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
}

/** The lines of `path` in order, read in 64 KiB chunks; none when the file does not exist. */
async function* rawLines(path: string): AsyncGenerator<RawLine> {
  const handle = await openForReading(path)
  if (handle === undefined) return
  try {
    const chunk = Buffer.allocUnsafe(CHUNK)
    let pending: Buffer[] = [] // the start of the current line, copied out of `chunk`
    let line = 0
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, null)
      if (bytesRead === 0) break
      const data = chunk.subarray(0, bytesRead)
      let start = 0
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
        const piece = data.subarray(start, nl)
        const text =
          pending.length === 0
            ? piece.toString('utf8')
            : Buffer.concat([...pending, piece]).toString('utf8')
        pending = []
        start = nl + 1
        yield { line: ++line, text, terminated: true }
      }
      if (start < bytesRead) pending.push(Buffer.from(data.subarray(start)))
    }
    if (pending.length > 0) {
      yield { line: line + 1, text: Buffer.concat(pending).toString('utf8'), terminated: false }
    }
  } finally {
    await handle.close()
  }
}

const describeErrors = (errors: t.Errors): string =>
  errors
    .slice(0, 3)
    .map((e) => {
      const path = errorPath(e)
      return `${path === '' ? 'the record' : path}: ${e.message ?? `expected ${expectedOf(e)}`}`
    })
    .join('; ')

type Decoded = E.Either<string, HistoryRecord>

/** Decodes one line's text: a record, or why it is not one. @internal */
export const decodeLine = (text: string): Decoded => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return E.left(`not JSON: ${(e as Error).message}`)
  }
  const decoded = HistoryRecordCodec.decode(json)
  return E.isRight(decoded)
    ? E.right(deepFreeze(decoded.right))
    : E.left(describeErrors(decoded.left))
}

type Scanned =
  | { readonly _tag: 'Record'; readonly record: HistoryRecord }
  | CorruptLine
  | { readonly _tag: 'Torn'; readonly line: number }

async function* scan(path: string): AsyncGenerator<Scanned> {
  for await (const raw of rawLines(path)) {
    if (raw.text.trim() === '') continue
    const decoded = decodeLine(raw.text)
    if (E.isRight(decoded)) yield { _tag: 'Record', record: decoded.right }
    else if (!raw.terminated) yield { _tag: 'Torn', line: raw.line }
    else {
      const text = raw.text.length > 200 ? `${raw.text.slice(0, 200)}…` : raw.text
      yield { _tag: 'CorruptLine', path, line: raw.line, reason: decoded.left, text }
    }
  }
}

const pathOf = (api: string, source: HistorySource): string =>
  typeof source === 'string' ? source : historyPathFor(api, source)

/**
 * What {@link streamHistory} takes besides the filter: `onProblem`, told
 * of each corrupt line as it is skipped.
 *
 * @category history
 */
export interface StreamHistoryOptions {
  readonly onProblem?: (problem: CorruptLine) => void
}

/**
 * The records of a history file that pass `filter`, one at a time, reading
 * the file in 64 KiB chunks, so a file of any size streams in constant
 * memory. A missing file has no records. A torn last line is skipped; a
 * corrupt line is skipped and passed to `onProblem`. A bad filter or bad
 * names throw a `UsageError` at once.
 *
 * @category history
 */
export const streamHistory = (
  source: HistorySource,
  filter?: HistoryFilter,
  options?: StreamHistoryOptions,
): AsyncIterable<HistoryRecord> => {
  const path = pathOf('streamHistory', source)
  const keep = historyPredicate('streamHistory', filter)
  return {
    async *[Symbol.asyncIterator]() {
      for await (const item of scan(path)) {
        if (item._tag === 'Record') {
          if (keep(item.record)) yield item.record
        } else if (item._tag === 'CorruptLine') options?.onProblem?.(item)
      }
    },
  }
}

/**
 * Reads a node's history: the records that pass `filter` (see
 * {@link HistoryFilter}), the corrupt lines skipped, and the torn last
 * line if any. A missing file reads as empty; other read errors reject.
 * For big files, {@link streamHistory} reads in constant memory.
 *
 * @category history
 * @example
 * import { openHistory, readHistory } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const root = await mkdtemp(join(tmpdir(), 'nerve-'))
 * const where = { root, server: 'local', session: 'dev', node: 'shell' }
 * const history = openHistory(where)
 * await history.append('send', { input: 'echo hi', parser: 'none' })
 * await history.append('interrupt')
 * await history.close()
 * const { records, problems } = await readHistory(where, { op: 'send' })
 * assert.deepStrictEqual(records.map((r) => [r.seq, r.input]), [[1, 'echo hi']])
 * assert.deepStrictEqual(problems, [])
 */
export const readHistory = async (
  source: HistorySource,
  filter?: HistoryFilter,
): Promise<HistoryRead> => {
  const path = pathOf('readHistory', source)
  const keep = historyPredicate('readHistory', filter)
  const records: HistoryRecord[] = []
  const problems: CorruptLine[] = []
  let tornLine: number | undefined
  for await (const item of scan(path)) {
    if (item._tag === 'Record') {
      if (keep(item.record)) records.push(item.record)
    } else if (item._tag === 'CorruptLine') problems.push(Object.freeze(item))
    else tornLine = item.line
  }
  return Object.freeze({
    records: Object.freeze(records),
    problems: Object.freeze(problems),
    ...(tornLine === undefined ? {} : { tornLine }),
  })
}
