import { mkdir, open } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { taggedError, UsageError } from '../errors.js'
import type { Clock } from '../runtime/Clock.js'
import { systemClock } from '../runtime/Clock.js'
import type { HistoryLocation } from './historyPath.js'
import { historyPathFor } from './historyPath.js'
import type { HistoryFields, HistoryOp } from './HistoryRecord.js'
import { HistoryRecordCodec, historyOps } from './HistoryRecord.js'
import { decodeLine } from './readHistory.js'

export * from './HistoryRecord.js'
export * from './HistoryFilter.js'
export { historyDir, historyPath } from './historyPath.js'
export { nerveHome } from './nerveHome.js'
export type { HistoryLocation } from './historyPath.js'
export { readHistory, streamHistory } from './readHistory.js'
export type {
  CorruptLine,
  HistoryRead,
  HistorySource,
  StreamHistoryOptions,
} from './readHistory.js'

/**
 * A history write that failed (the directory is gone, the disk is full, a
 * field is not JSON): the record was not written. `error` is what was
 * thrown.
 *
 * @category history
 */
export interface HistoryWriteError {
  readonly _tag: 'HistoryWriteError'
  readonly path: string
  readonly op: HistoryOp
  readonly error: unknown
}

/**
 * The file operations a history writer uses; `node:fs/promises` by default.
 * Pass another to write somewhere else, or a failing one in tests.
 *
 * @category history
 */
export interface HistoryFs {
  readonly mkdir: (path: string, options: { recursive: true }) => Promise<unknown>
  readonly open: (path: string, flags: string) => Promise<FileHandle>
}

/**
 * What {@link openHistory} takes: where the file lives, the `clock` that
 * stamps records (`systemClock` by default), `onError`, told of each
 * failed write (by default the first failure of a writer becomes a process
 * warning), and the `fs` to write with.
 *
 * @category history
 */
export interface OpenHistoryOptions extends HistoryLocation {
  readonly clock?: Pick<Clock, 'now'>
  readonly onError?: (error: HistoryWriteError) => void
  readonly fs?: HistoryFs
}

/**
 * Appends records to one node's history file. Appends are queued and
 * written in call order, each record as one line in one write. `append`
 * never rejects: a failed write goes to `onError` and the next append tries
 * again (reopening the file). `close` finishes the queued appends and
 * closes the file; appends after it are reported, not written. One writer
 * per file: two writers on the same file would both number their records.
 *
 * @category history
 */
export interface HistoryWriter {
  readonly path: string
  append(op: HistoryOp, fields?: HistoryFields): Promise<void>
  close(): Promise<void>
}

/**
 * A history file got shorter while it was being read (something else
 * truncated it): `position` is where the bytes ran out.
 *
 * @category history
 */
export class HistoryShrank extends taggedError('HistoryShrank', 'storage')<{
  readonly position: number
}> {
  constructor(position: number) {
    super(`history file shrank while reading at ${position}`, { position })
  }
}

const CHUNK = 64 * 1024

const readFully = async (handle: FileHandle, into: Buffer, position: number): Promise<void> => {
  let done = 0
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done)
    if (bytesRead === 0) throw new HistoryShrank(position + done)
    done += bytesRead
  }
}

const writeFully = async (handle: FileHandle, data: Buffer): Promise<void> => {
  let done = 0
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done)
    done += bytesWritten
  }
}

const seqIn = (line: Buffer): number | undefined => {
  if (line.length === 0) return undefined
  const decoded = decodeLine(line.toString('utf8'))
  return E.isRight(decoded) ? decoded.right.seq : undefined
}

interface Tail {
  /** The seq of the last record that decodes; 0 when there is none. */
  readonly seq: number
  /** The file does not end in `\n` (a torn write): the next record starts a new line. */
  readonly needsNewline: boolean
}

/** Reads `handle` backwards in 64 KiB blocks until the last line that decodes. */
const readTail = async (handle: FileHandle): Promise<Tail> => {
  const { size } = await handle.stat()
  let pos = size
  let rest: Buffer = Buffer.alloc(0) // the start of a line that may begin before `pos`
  let needsNewline: boolean | undefined
  while (pos > 0) {
    const start = Math.max(0, pos - CHUNK)
    const block = Buffer.alloc(pos - start)
    await readFully(handle, block, start)
    needsNewline ??= block[block.length - 1] !== 10
    const data = rest.length === 0 ? block : Buffer.concat([block, rest])
    pos = start
    let end = data.length
    for (;;) {
      const nl = end === 0 ? -1 : data.lastIndexOf(10, end - 1)
      if (nl === -1 && pos > 0) break // the first line may go on in the block before
      const seq = seqIn(data.subarray(nl + 1, end))
      if (seq !== undefined) return { seq, needsNewline }
      if (nl === -1) break
      end = nl
    }
    rest = Buffer.from(data.subarray(0, end))
  }
  return { seq: 0, needsNewline: needsNewline ?? false }
}

const warnOnce = (): ((error: HistoryWriteError) => void) => {
  let warned = false
  return (e) => {
    if (warned) return
    warned = true
    process.emitWarning(
      `history write to ${e.path} failed: ${String(e.error)}`,
      'NerveHistoryWarning',
    )
  }
}

/**
 * Opens a writer on a node's history file,
 * `<dir>/<server>/<session>/<node>.jsonl` (see `historyPath`). Nothing touches the disk until the first append, which
 * creates the directories, opens the file and carries `seq` on from the
 * last record already there (a torn last line is left behind on its own
 * line). Each record is `{ seq, op, time, node, ...fields }`. Bad names
 * throw a `UsageError`.
 *
 * @category history
 * @example
 * import { openHistory, readHistory } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const where = { root: await mkdtemp(join(tmpdir(), 'nerve-')), server: 'a', session: 'b', node: 'sh' }
 * const first = openHistory(where)
 * await first.append('run', { input: 'true', exitCode: 0, durationMs: 3 })
 * await first.close()
 * const again = openHistory({ ...where, clock: { now: () => 0 } })
 * await again.append('close')
 * await again.close()
 * const { records } = await readHistory(again.path)
 * assert.deepStrictEqual(records[1], { seq: 2, op: 'close', time: '1970-01-01T00:00:00.000Z', node: 'sh' })
 */
export const openHistory = (options: OpenHistoryOptions): HistoryWriter => {
  const path = historyPathFor('openHistory', options)
  const node = options.node
  const clock = options.clock ?? systemClock
  const fs: HistoryFs = options.fs ?? { mkdir, open }
  const onError = options.onError ?? warnOnce()
  let handle: FileHandle | undefined
  let nextSeq = 1
  let needsNewline = false
  let closed = false
  let queue: Promise<void> = Promise.resolve()

  const report = (op: HistoryOp, error: unknown): void => {
    try {
      onError(Object.freeze({ _tag: 'HistoryWriteError', path, op, error }))
    } catch {
      // a throwing onError must not fail the caller either
    }
  }

  const ensureOpen = async (): Promise<FileHandle> => {
    if (handle !== undefined) return handle
    await fs.mkdir(dirname(path), { recursive: true })
    const opened = await fs.open(path, 'a+')
    try {
      const tail = await readTail(opened)
      nextSeq = Math.max(nextSeq, tail.seq + 1)
      needsNewline = tail.needsNewline
    } catch (e) {
      await opened.close().catch(() => undefined)
      throw e
    }
    return (handle = opened)
  }

  const drop = async (): Promise<void> => {
    const h = handle
    handle = undefined
    await h?.close().catch(() => undefined)
  }

  const write = async (op: HistoryOp, fields: HistoryFields | undefined): Promise<void> => {
    try {
      if (closed) throw new UsageError('HistoryWriter.append', `${path} is closed`)
      if (!historyOps.includes(op)) {
        throw new UsageError('HistoryWriter.append', `${JSON.stringify(op)} is not a history op`)
      }
      const { seq: _seq, op: _op, time: _time, node: _node, ...rest } = fields ?? {}
      const h = await ensureOpen()
      const record = { seq: nextSeq, op, time: new Date(clock.now()).toISOString(), node, ...rest }
      const json = JSON.stringify(record)
      if (!HistoryRecordCodec.is(JSON.parse(json))) {
        throw new UsageError(
          'HistoryWriter.append',
          `${json.slice(0, 200)} would not read back as a record`,
        )
      }
      await writeFully(h, Buffer.from(`${needsNewline ? '\n' : ''}${json}\n`, 'utf8'))
      needsNewline = false
      nextSeq += 1
    } catch (error) {
      if (!(error instanceof UsageError)) await drop()
      report(op, error)
    }
  }

  const enqueue = (task: () => Promise<void>): Promise<void> => {
    const next = queue.then(task)
    queue = next
    return next
  }

  return Object.freeze({
    path,
    append: (op: HistoryOp, fields?: HistoryFields) => enqueue(() => write(op, fields)),
    close: () =>
      enqueue(async () => {
        closed = true
        await drop()
      }),
  })
}
