/**
 * A conversation file's vertices (Nerve's file format, as `GET_CONVERSATION`
 * and `CHAT_GET { tree }` answer it) as the page reads them.
 */

/** A vertex of a conversation file. */
export interface VertexJson {
  readonly id: string
  readonly parents: readonly string[]
  readonly data: {
    readonly type: string
    readonly role?: string
    readonly content?: unknown
    /** A stop reason's. */
    readonly reason?: string
  }
}

/** The vertices of a conversation file (none when it holds none). */
export const verticesOf = (conversation: unknown): readonly VertexJson[] =>
  (conversation as { vertices?: readonly VertexJson[] } | null)?.vertices ?? []
