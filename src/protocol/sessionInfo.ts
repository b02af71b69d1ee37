/**
 * A session as the session commands (and `SESSION_CREATED`) carry it.
 */
import * as t from 'io-ts'
import { struct } from './parts.js'

/**
 * A session as `CREATE_SESSION` and `LIST_SESSIONS` answer it (and
 * `SESSION_CREATED` tells it): its id and name, whether it is the engine's
 * default one, when it was made, its tags and how many nodes it holds.
 *
 * @category protocol
 */
export const SessionSummaryCodec = struct('SessionSummary', {
  sessionId: t.string,
  name: t.string,
  default: t.boolean,
  createdAt: t.string,
  tags: t.readonlyArray(t.string),
  nodes: t.number,
})

/**
 * A session as `CREATE_SESSION` and `LIST_SESSIONS` answer it.
 *
 * @category protocol
 */
export type SessionSummary = t.TypeOf<typeof SessionSummaryCodec>
