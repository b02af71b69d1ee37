import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import { errorPath, expectedOf, isUnknownKey, keyHint } from '../../codec/index.js'
import { strict } from './parts.js'

/**
 * What an envelope is: a `handoff` of work, a `message`, an auto node's
 * `tick`, a `done` signal, a `status` update, or an `error` report.
 *
 * @category envelopes
 */
export type EnvelopeKind = 'handoff' | 'message' | 'tick' | 'done' | 'status' | 'error'

/**
 * A reference to an artifact: its type (`plan`, `diff`, `report`, `log`,
 * …) and where it is (`artifact:sha256:…` for the session's artifacts).
 *
 * @category envelopes
 */
export interface ArtifactRef {
  readonly type: string
  readonly ref: string
}

/**
 * What an envelope carries: a message, optional structured data, and
 * references to artifacts.
 *
 * @category envelopes
 */
export interface Payload {
  readonly message: string
  readonly structured?: unknown
  readonly artifacts?: readonly ArtifactRef[]
}

/**
 * What edges carry between nodes. `causedBy` lists the ids of the envelopes
 * that produced this one, so a run's envelopes form a DAG. `time` is the
 * run's clock reading in milliseconds.
 *
 * @category envelopes
 */
export interface Envelope {
  readonly id: string
  readonly kind: EnvelopeKind
  readonly fromNodeId: string
  readonly toNodeId: string
  readonly payload: Payload
  readonly causedBy?: readonly string[]
  readonly time: number
}

const Kind = t.keyof(
  { handoff: null, message: null, tick: null, done: null, status: null, error: null },
  'EnvelopeKind',
)

const ArtifactRefCodec = strict<ArtifactRef>('ArtifactRef', { type: t.string, ref: t.string })

const PayloadCodec = strict<Payload>(
  'Payload',
  { message: t.string },
  { structured: t.unknown, artifacts: t.readonlyArray(ArtifactRefCodec) },
)

/**
 * The strict codec of an envelope, for every boundary (wire, file, a
 * node's structured answer).
 *
 * @category envelopes
 */
export const EnvelopeCodec: t.Type<Envelope> = strict<Envelope>(
  'Envelope',
  {
    id: t.string,
    kind: Kind,
    fromNodeId: t.string,
    toNodeId: t.string,
    payload: PayloadCodec,
    time: t.number,
  },
  { causedBy: t.readonlyArray(t.string) },
)

/**
 * A problem of a decoded envelope, with the JSON pointer of where.
 *
 * @category envelopes
 */
export interface EnvelopeError {
  readonly _tag: 'InvalidEnvelope'
  readonly path: string
  readonly message: string
}

/**
 * Decodes an envelope, collecting every problem with its JSON pointer.
 *
 * @category envelopes
 * @example
 * import { decodeEnvelope } from 'nerve-agents/network'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const ok = decodeEnvelope({ id: 'e1', kind: 'handoff', fromNodeId: 'a', toNodeId: 'b', payload: { message: 'hi' }, time: 0 })
 * assert.ok(E.isRight(ok))
 * const bad = decodeEnvelope({ id: 'e1', kind: 'shout', fromNodeId: 'a', toNodeId: 'b', payload: {}, time: 0 })
 * assert.deepStrictEqual(E.isLeft(bad) && bad.left.map((e) => e.path), ['/kind', '/payload/message'])
 */
export const decodeEnvelope = (u: unknown): E.Either<readonly EnvelopeError[], Envelope> => {
  const r = EnvelopeCodec.decode(u)
  if (E.isRight(r)) return E.right(deepFreezeEnvelope(r.right))
  return E.left(
    r.left.map((e) => {
      const hint = keyHint(e)
      return {
        _tag: 'InvalidEnvelope',
        path: errorPath(e),
        message: isUnknownKey(e)
          ? `is not a known key${hint === undefined ? '' : `; did you mean "${hint}"?`}`
          : e.value === undefined
            ? 'is required'
            : `expected ${expectedOf(e)}`,
      }
    }),
  )
}

const deepFreezeEnvelope = (e: Envelope): Envelope => {
  const p = e.payload
  if (p.artifacts !== undefined) p.artifacts.forEach((a) => Object.freeze(a))
  Object.freeze(p.artifacts)
  Object.freeze(p)
  Object.freeze(e.causedBy)
  return Object.freeze(e)
}

/**
 * A checked, frozen envelope; a bad field is a `UsageError`.
 *
 * @category envelopes
 * @example
 * import { envelope } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const e = envelope({ id: 'e1', kind: 'message', fromNodeId: 'a', toNodeId: 'b', payload: { message: 'hi' }, time: 5 })
 * assert.ok(Object.isFrozen(e.payload))
 */
export const envelope = (fields: Envelope): Envelope => {
  const r = decodeEnvelope(fields)
  if (E.isLeft(r)) {
    const first = r.left[0]!
    throw new UsageError('envelope', `${first.path}: ${first.message}`)
  }
  return r.right
}
