import * as t from 'io-ts'

/**
 * What a node did, as its history records it: `send` (an execute with its
 * parsed response), `send_stream` (a streamed execute), `write` (raw input),
 * `read` (a look at the buffer), `run` (a one-shot command), `interrupt`
 * (Ctrl+C) and `close` (the node stopped).
 *
 * @category history
 */
export type HistoryOp = 'send' | 'send_stream' | 'write' | 'read' | 'run' | 'interrupt' | 'close'

/**
 * Every {@link HistoryOp}, in the order the doc lists them.
 *
 * @category history
 */
export const historyOps: readonly HistoryOp[] = Object.freeze([
  'send',
  'send_stream',
  'write',
  'read',
  'run',
  'interrupt',
  'close',
])

const OpCodec: t.Type<HistoryOp> = t.keyof({
  send: null,
  send_stream: null,
  write: null,
  read: null,
  run: null,
  interrupt: null,
  close: null,
})

const isSeq = (u: unknown): u is number =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 1

const SeqCodec = new t.Type<number>(
  'Seq',
  isSeq,
  (u, c) => (isSeq(u) ? t.success(u) : t.failure(u, c, 'a whole number from 1')),
  t.identity,
)

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/
const isIsoTime = (u: unknown): u is string =>
  typeof u === 'string' && ISO_TIME.test(u) && !Number.isNaN(Date.parse(u))

const IsoTimeCodec = new t.Type<string>(
  'IsoTime',
  isIsoTime,
  (u, c) => (isIsoTime(u) ? t.success(u) : t.failure(u, c, 'an ISO 8601 date-time')),
  t.identity,
)

/**
 * One section of a recorded response: the parser's section, kept as
 * written (`type` is any string, so records from newer parsers still read).
 *
 * @category history
 */
export interface HistorySection {
  readonly type: string
  readonly content: string
  readonly metadata: Readonly<Record<string, string>>
}

/**
 * A recorded parsed response: its sections, its prose and the token count
 * when the program showed one.
 *
 * @category history
 */
export interface HistoryResponse {
  readonly sections: readonly HistorySection[]
  readonly text: string
  readonly tokens?: number
}

const SectionCodec: t.Type<HistorySection> = t.readonly(
  t.type({ type: t.string, content: t.string, metadata: t.readonly(t.record(t.string, t.string)) }),
)

const ResponseCodec: t.Type<HistoryResponse> = t.readonly(
  t.intersection([
    t.type({ sections: t.readonlyArray(SectionCodec), text: t.string }),
    t.partial({ tokens: t.number }),
  ]),
)

/**
 * The fields a record may carry besides its header, all optional: the
 * `input` sent, the parsed `response`, the final `buffer`, the `parser`'s
 * name, a command's `exitCode` (`null` when a signal ended it) and
 * `durationMs`. Any other field is kept as written.
 *
 * @category history
 */
export interface HistoryKnownFields {
  readonly input?: string
  readonly response?: HistoryResponse
  readonly buffer?: string
  readonly parser?: string
  readonly exitCode?: number | null
  readonly durationMs?: number
}

/**
 * What a caller passes to `append`: the known fields plus any others. The
 * header (`seq`, `op`, `time`, `node`) is the writer's to set.
 *
 * @category history
 */
export type HistoryFields = HistoryKnownFields & {
  readonly seq?: never
  readonly op?: never
  readonly time?: never
  readonly node?: never
} & Readonly<Record<string, unknown>>

/**
 * One line of a node's history: `seq` (1, 2, 3, … in the file), `op`,
 * `time` (ISO 8601), `node` (the node's name), the known fields when
 * present, and any other field as written.
 *
 * @category history
 */
export type HistoryRecord = {
  readonly seq: number
  readonly op: HistoryOp
  readonly time: string
  readonly node: string
} & HistoryKnownFields &
  Readonly<Record<string, unknown>>

/**
 * The io-ts codec of a {@link HistoryRecord}: decodes one parsed JSON line
 * (unknown fields kept), encodes to a plain JSON-ready object.
 *
 * @category history
 * @example
 * import { HistoryRecordCodec } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * const line = { seq: 1, op: 'run', time: '2026-01-01T00:00:00.000Z', node: 'sh', exitCode: 0, x: 1 }
 * const decoded = HistoryRecordCodec.decode(line)
 * assert.deepStrictEqual(decoded, { _tag: 'Right', right: line })
 * assert.strictEqual(HistoryRecordCodec.decode({ ...line, seq: 0 })._tag, 'Left')
 */
export const HistoryRecordCodec: t.Type<HistoryRecord, HistoryRecord> = t.intersection([
  t.UnknownRecord,
  t.readonly(t.type({ seq: SeqCodec, op: OpCodec, time: IsoTimeCodec, node: t.string })),
  t.readonly(
    t.partial({
      input: t.string,
      response: ResponseCodec,
      buffer: t.string,
      parser: t.string,
      exitCode: t.union([t.number, t.null]),
      durationMs: t.number,
    }),
  ),
])
