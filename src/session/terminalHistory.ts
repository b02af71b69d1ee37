import type { ParsedResponse } from '../interpreters/parsers/ParsedResponse.js'
import {
  TerminalExited,
  type ExecuteOptions,
  type Terminal,
} from '../interpreters/terminal/Terminal.js'
import type { Node } from '../node/Node.js'
import { systemClock, type Clock } from '../runtime/Clock.js'
import { openHistory, type HistoryWriteError } from './history.js'
import { historyPathFor } from './historyPath.js'
import type { HistoryFields, HistoryOp, HistoryResponse } from './HistoryRecord.js'

/**
 * Where {@link withHistory} records a terminal's operations: the `server`
 * and `session` names (the node's name is the terminal's node id), the
 * `dir` or `root` (see `historyDir`; default: `history` in Nerve's home), `onError`, told of each failed
 * write (see `openHistory`), and the `clock` that stamps records and times
 * executes.
 *
 * @category history
 */
export interface TerminalHistoryOptions {
  readonly server: string
  readonly session: string
  /** Where histories go (see `historyDir`): the directory itself. */
  readonly dir?: string
  /** Or a project directory, whose `.nerve/history` they go in. */
  readonly root?: string
  readonly onError?: (error: HistoryWriteError) => void
  readonly clock?: Pick<Clock, 'now'>
}

/** The close record keeps at most this much of the final buffer. */
const TAIL_LINES = 20
const TAIL_CHARS = 4000

const responseOf = (r: ParsedResponse): HistoryResponse => ({
  sections: r.sections.map((s) => ({ type: s.type, content: s.content, metadata: s.metadata })),
  text: r.text,
  ...(r.tokens === undefined ? {} : { tokens: r.tokens }),
})

const failureOf = (e: unknown): HistoryFields => {
  const partial = (e as { partial?: unknown } | null)?.partial
  return {
    error: e instanceof Error ? e.message : String(e),
    ...(typeof partial === 'string' ? { partial } : {}),
  }
}

/**
 * Decorates a terminal so that its node's history (`openHistory`, node name
 * = the terminal's node id) records what it does: `send` when an execute
 * settles and `send_stream` when a streamed one does (input, parser name
 * when the execute or the node names one, `durationMs`, and the `response`
 * sections, text and tokens, or the `error` message and the `partial`
 * output), `write` (the data), `read` (only explicit `read`/`readTail`
 * calls, as the number of characters returned), `interrupt`, and `close`
 * when it is stopped or its program is seen to end (the last lines of the
 * buffer, and the `exitCode` when known); then the file is closed. Records
 * are written before the operation's promise settles; a failed write never
 * fails the operation. Every other member (`pid`, `reset`, `focus`,
 * `sessionId`, …) is the terminal's own. A terminal whose `recordsHistory`
 * is `false` (the WezTerm terminal inside a Claude node, whose wrapper
 * records) is returned as it is, so nothing is logged twice. Bad names
 * throw a `UsageError`. Pass `withHistory(options)` as an interpreter's
 * `decorate` option to record every terminal it opens.
 *
 * @category history
 * @example
 * import { pty } from 'nerve-agents'
 * import { openPty } from 'nerve-agents/interpreters'
 * import { readHistory, withHistory } from 'nerve-agents/session'
 * import assert from 'assert'
 * import { mkdtemp } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 *
 * const root = await mkdtemp(join(tmpdir(), 'nerve-'))
 * const bash = pty('sh', { command: 'bash', args: ['--norc'], env: { PS1: '$ ', PROMPT_COMMAND: '' } })
 * const terminal = withHistory({ root, server: 'local', session: 'dev' })(openPty(bash))
 * await terminal.start()
 * await terminal.execute('echo hi')
 * await terminal.stop()
 * const { records } = await readHistory(join(root, '.nerve/history/local/dev/sh.jsonl'))
 * assert.deepStrictEqual(records.map((r) => [r.op, r.input, r.response?.text]), [['send', 'echo hi', 'hi'], ['close', undefined, undefined]])
 */
export const withHistory =
  (options: TerminalHistoryOptions) =>
  <T extends Terminal>(terminal: T, node?: Node): T => {
    if ((terminal as { recordsHistory?: unknown }).recordsHistory === false) return terminal
    const location = {
      server: options.server,
      session: options.session,
      node: terminal.nodeId,
      ...(options.root === undefined ? {} : { root: options.root }),
      ...(options.dir === undefined ? {} : { dir: options.dir }),
      ...(options.dir === undefined ? {} : { dir: options.dir }),
    }
    historyPathFor('withHistory', location)
    const clock = options.clock ?? systemClock
    const writer = openHistory({
      ...location,
      clock,
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    })
    const nodeParser = (node as { parser?: unknown } | undefined)?.parser
    let closed = false
    let exitCode: number | null | undefined

    const parserOf = (o: ExecuteOptions | undefined): HistoryFields => {
      const name = typeof o?.parser === 'string' ? o.parser : (o?.parser?.name ?? nodeParser)
      return typeof name === 'string' ? { parser: name } : {}
    }

    const tail = (): HistoryFields => {
      try {
        return { buffer: terminal.readTail(TAIL_LINES).slice(-TAIL_CHARS) }
      } catch {
        return {} // a pane that is gone has no text left
      }
    }

    const close = async (buffer: HistoryFields): Promise<void> => {
      closed = true
      await writer.append('close', { ...buffer, ...(exitCode === undefined ? {} : { exitCode }) })
      await writer.close()
    }

    /** Records `op`, then a close when the operation found the program gone. */
    const record = async (op: HistoryOp, fields: HistoryFields, error?: unknown): Promise<void> => {
      if (error instanceof TerminalExited) exitCode = error.exitCode
      await writer.append(op, fields)
      if (!closed && terminal.state === 'stopped') await close(tail())
    }

    const timed = <R>(
      op: HistoryOp,
      fields: HistoryFields,
      run: () => Promise<R>,
      result: (r: R) => HistoryFields,
    ): Promise<R> => {
      const start = clock.now()
      return run().then(
        async (r) => {
          await record(op, { ...fields, durationMs: clock.now() - start, ...result(r) })
          return r
        },
        async (e: unknown) => {
          await record(op, { ...fields, durationMs: clock.now() - start, ...failureOf(e) }, e)
          throw e
        },
      )
    }

    async function* executeStream(
      input: string,
      o?: ExecuteOptions,
    ): AsyncGenerator<string, ParsedResponse, undefined> {
      const start = clock.now()
      const fields = (): HistoryFields => ({
        input,
        ...parserOf(o),
        durationMs: clock.now() - start,
      })
      let settled = false
      try {
        const r = yield* terminal.executeStream(input, o)
        settled = true
        await record('send_stream', { ...fields(), response: responseOf(r) })
        return r
      } catch (e) {
        settled = true
        await record('send_stream', { ...fields(), ...failureOf(e) }, e)
        throw e
      } finally {
        if (!settled) await record('send_stream', { ...fields(), error: 'abandoned by the reader' })
      }
    }

    const readOp = (fields: HistoryFields, text: string): string => {
      if (!closed) void writer.append('read', { ...fields, chars: text.length })
      return text
    }

    const overrides: Readonly<Record<string | symbol, unknown>> = {
      execute: (input: string, o?: ExecuteOptions) =>
        timed(
          'send',
          { input, ...parserOf(o) },
          () => terminal.execute(input, o),
          (r) => ({ response: responseOf(r) }),
        ),
      executeStream,
      write: (data: string) =>
        timed(
          'write',
          { data },
          () => terminal.write(data),
          () => ({}),
        ),
      read: () => readOp({}, terminal.read()),
      readTail: (lines: number) => readOp({ lines }, terminal.readTail(lines)),
      interrupt: () =>
        timed(
          'interrupt',
          {},
          () => terminal.interrupt(),
          () => ({}),
        ),
      stop: async (): Promise<void> => {
        if (closed || terminal.state === 'created') return terminal.stop()
        closed = true
        const buffer = tail()
        try {
          await terminal.stop()
        } finally {
          await close(buffer)
        }
      },
    }

    return new Proxy(terminal, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop]
        const value: unknown = Reflect.get(target, prop, target)
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value
      },
    })
  }
