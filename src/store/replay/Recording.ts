import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { writeFileAtomic } from '../../interpreters/index.js'
import { StoreCorrupt } from '../../session/index.js'
import { decodeProblems } from '../StoreError.js'

/**
 * An error as a recording keeps it: its name and message, and its `_tag`
 * when it is one of Nerve's tagged errors.
 *
 * @category replay
 */
export interface RecordedError {
  readonly name: string
  readonly message: string
  readonly _tag?: string
}

/**
 * What one interpreter call gave back: a value, a thrown error, or nothing
 * yet when the run ended (`pending`: a replay answers when the step is
 * cancelled, with the reason).
 *
 * @category replay
 */
export type RecordedOutcome =
  | { readonly _tag: 'value'; readonly value: unknown }
  | { readonly _tag: 'error'; readonly error: RecordedError }
  | { readonly _tag: 'pending' }

/**
 * One call of an interpreter's `execute`, as recorded: which step and
 * attempt asked (by the step's path from the root graph), what it was
 * given, and what came back. `async` tells whether the call returned a
 * promise, so a replay answers the same way.
 *
 * @category replay
 */
export interface RecordedCall {
  readonly path: readonly string[]
  readonly attempt: number
  readonly kind: string
  readonly nodeId: string
  readonly input: unknown
  readonly async: boolean
  readonly outcome: RecordedOutcome
  /**
   * Its place among the calls in the order they ended (absent while
   * pending, and in recordings made before it was kept): a replay answers
   * in that order, so every clock reading lands on the step it was read for.
   */
  readonly end?: number
}

/**
 * Everything a run's interpreters, clock and random source returned, in
 * the order they returned it: enough to run the same graph again without
 * calling any model, process or clock.
 *
 * @category replay
 */
export interface Recording {
  readonly version: 1
  readonly runId: string
  readonly graphId: string
  readonly input: unknown
  /**
   * Whether the run failed: a step it never reached may start in a replay
   * before the failure stops it; it then waits to be cancelled.
   */
  readonly failed: boolean
  readonly calls: readonly RecordedCall[]
  /** The clock's `now()` readings, in order. */
  readonly clock: readonly number[]
  /** The random source's numbers, in order. */
  readonly random: readonly number[]
}

const RecordedErrorCodec: t.Type<RecordedError> = t.intersection([
  t.type({ name: t.string, message: t.string }),
  t.partial({ _tag: t.string }),
])

const RecordedCallCodec: t.Type<RecordedCall> = t.readonly(
  t.intersection([
    t.type({
      path: t.readonlyArray(t.string),
      attempt: t.number,
      kind: t.string,
      nodeId: t.string,
      input: t.unknown,
      async: t.boolean,
      outcome: t.union([
        t.type({ _tag: t.literal('value'), value: t.unknown }),
        t.type({ _tag: t.literal('error'), error: RecordedErrorCodec }),
        t.type({ _tag: t.literal('pending') }),
      ]),
    }),
    t.partial({ end: t.number }),
  ]),
)

/**
 * The io-ts codec of a {@link Recording} (its JSON form is itself).
 *
 * @category replay
 */
export const RecordingCodec: t.Type<Recording> = t.readonly(
  t.type({
    version: t.literal(1),
    runId: t.string,
    graphId: t.string,
    input: t.unknown,
    failed: t.boolean,
    calls: t.readonlyArray(RecordedCallCodec),
    clock: t.readonlyArray(t.number),
    random: t.readonlyArray(t.number),
  }),
)

/** A value as JSON holds it (`undefined` kept, as an absent field), what JSON cannot hold as its text. @internal */
export const jsonOf = (u: unknown): unknown => {
  if (u === undefined) return undefined
  try {
    const text = JSON.stringify(u) as string | undefined
    return text === undefined ? `[${typeof u}]` : (JSON.parse(text) as unknown)
  } catch {
    return `[${typeof u} that JSON cannot hold]`
  }
}

/**
 * Writes a recording to `file` as JSON, atomically.
 *
 * @category replay
 */
export const saveRecording = async (file: string, recording: Recording): Promise<void> => {
  await writeFileAtomic(file, `${JSON.stringify(RecordingCodec.encode(recording))}\n`)
}

/**
 * Reads back a recording {@link saveRecording} wrote; a file that is not
 * one is a `StoreCorrupt` naming the file and where it went wrong.
 *
 * @category replay
 */
export const loadRecording = (file: string): Recording => {
  const text = readFileSync(file, 'utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new StoreCorrupt(file, [{ pointer: '', message: `not JSON: ${(e as Error).message}` }])
  }
  const decoded = RecordingCodec.decode(json)
  if (E.isLeft(decoded)) {
    const [first, ...rest] = decodeProblems('', decoded.left)
    throw new StoreCorrupt(file, [first ?? { pointer: '', message: 'unreadable' }, ...rest])
  }
  return decoded.right
}
