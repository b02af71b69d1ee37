import type { BashRun, BashRunHook } from '../interpreters/bash.js'
import type { Clock } from '../runtime/Clock.js'
import { openHistory, type HistoryWriteError, type HistoryWriter } from './history.js'
import { historyPathFor } from './historyPath.js'
import type { HistoryFields } from './HistoryRecord.js'

/**
 * Where {@link bashHistory} records bash runs: the `server` and `session`
 * names (each node's name is its id), `dir` or `root` (see `historyDir`;
 * default: `history` in Nerve's home), `onError`, told of each failed write (see
 * `openHistory`), and the `clock` that stamps records.
 *
 * @category history
 */
export interface BashHistoryOptions {
  readonly server: string
  readonly session: string
  /** Where histories go (see `historyDir`): the directory itself. */
  readonly dir?: string
  /** Or a project directory, whose `.nerve/history` they go in. */
  readonly root?: string
  readonly onError?: (error: HistoryWriteError) => void
  readonly clock?: Pick<Clock, 'now'>
}

/** A run record keeps at most this much of each output stream, from its end. */
const TAIL_CHARS = 4000

/**
 * A {@link BashRunHook} that records each bash command in its node's
 * history (`openHistory`, node name = the node's id): a `run` record with
 * the command as `input`, `exitCode`, `signal`, `interrupted`, `timedOut`,
 * `durationMs` and the last 4000 characters of `stdout` and `stderr`, or the
 * `error` message when bash could not start; an interrupted run is preceded
 * by an `interrupt` record. A node's file is open only while its runs are
 * being recorded (one writer at a time, so `seq` stays in order when runs
 * end together). A failed write never fails the run. Bad names throw a
 * `UsageError`.
 *
 * @category history
 * @example
 * import { bash } from 'nerve-agents'
 * import { bashInterpreterWith } from 'nerve-agents/interpreters'
 * import { bashHistory, readHistory } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const root = await mkdtemp(join(tmpdir(), 'nerve-'))
 * const interpreter = bashInterpreterWith({ onRun: bashHistory({ root, server: 'local', session: 'dev' }) })
 * await interpreter.execute!(bash('hi', { command: 'echo hi' }), { input: undefined, signal: new AbortController().signal } as never)
 * const { records } = await readHistory(join(root, '.nerve/history/local/dev/hi.jsonl'))
 * assert.deepStrictEqual(records.map((r) => [r.op, r.input, r.exitCode, r.stdout]), [['run', 'echo hi', 0, 'hi\n']])
 */
export const bashHistory = (options: BashHistoryOptions): BashRunHook => {
  const where = {
    server: options.server,
    session: options.session,
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.dir === undefined ? {} : { dir: options.dir }),
  }
  historyPathFor('bashHistory', { ...where, node: 'bash' })
  /** The open writer of each node with records being written, and how many runs are writing. */
  const open = new Map<string, { readonly writer: HistoryWriter; users: number }>()

  const record = async (writer: HistoryWriter, run: BashRun): Promise<void> => {
    const fields: HistoryFields = { input: run.command, durationMs: run.durationMs }
    if ('error' in run) {
      const { error } = run
      await writer.append('run', {
        ...fields,
        error: error instanceof Error ? error.message : String(error),
      })
      return
    }
    const r = run.result
    if (r.interrupted) await writer.append('interrupt')
    await writer.append('run', {
      ...fields,
      exitCode: r.exitCode,
      signal: r.signal,
      interrupted: r.interrupted,
      timedOut: r.timedOut,
      stdout: r.stdout.slice(-TAIL_CHARS),
      stderr: r.stderr.slice(-TAIL_CHARS),
    })
  }

  return async (node, run) => {
    let entry = open.get(node.id)
    if (entry === undefined) {
      const writer = openHistory({
        ...where,
        node: node.id,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.onError === undefined ? {} : { onError: options.onError }),
      })
      entry = { writer, users: 0 }
      open.set(node.id, entry)
    }
    entry.users += 1
    try {
      await record(entry.writer, run)
    } finally {
      entry.users -= 1
      // Idle: close the file; the next run reopens it and carries seq on.
      if (entry.users === 0) {
        open.delete(node.id)
        await entry.writer.close()
      }
    }
  }
}
