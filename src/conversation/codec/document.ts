import type { Meta } from '../../dag/Vertex.js'
import type { Conversation } from '../Entry.js'

/**
 * A conversation file's content, whatever its format: the heads of the
 * conversation (one, or several for parallel branches), free-form metadata
 * and, when the file has them, nano-agent's session id and creation time.
 * Decoders return it frozen; encoders take it.
 *
 * @category codecs
 * @example
 * import { empty, user } from 'nerve-agents'
 * import { type ConversationDocument, encodeConversation } from 'nerve-agents/core'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const doc: ConversationDocument = { heads: [pipe(empty, user('hi'))], metadata: { project: 'demo' } }
 * assert.strictEqual(encodeConversation(doc).vertices.length, 1)
 */
export interface ConversationDocument {
  /** The heads, in order; every vertex of the file is an ancestor of one of them. */
  readonly heads: readonly Conversation[]
  /** The file's metadata (`{}` when it has none). */
  readonly metadata: Meta
  /** nano-agent's `session_id`. */
  readonly sessionId?: string
  /** nano-agent's `created_at`: seconds since the Unix epoch. */
  readonly createdAt?: number
}
