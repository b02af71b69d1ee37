import { readFile } from 'node:fs/promises'
import * as E from 'fp-ts/lib/Either.js'
import { decodeNano, stringifyNano } from '../conversation/codec/nano.js'
import { parseJson } from '../conversation/codec/json.js'
import {
  decodeConversation,
  stringifyConversation,
  NERVE_FORMAT,
} from '../conversation/codec/nerve.js'
import { formatDecodeError, type DecodeError } from '../conversation/codec/errors.js'
import type { Conversation } from '../conversation/Entry.js'
import { taggedError, UsageError } from '../errors.js'
import type { LlmState } from '../interpreters/llm/llmInterpreter.js'
import { writeFileAtomic } from '../interpreters/atomicWrite.js'
import type { Session } from './Session.js'
import { UnknownNode } from './SessionError.js'

/**
 * The formats a conversation file may be in: Nerve's own (`nerve`) or
 * nano-agent's JSON (`nano`).
 *
 * @category llm
 */
export type ConversationFormat = 'nerve' | 'nano'

/**
 * A conversation file that could not be read: what was wrong (a decode error
 * with its JSON pointer, or more than one head) and in which file.
 *
 * @category llm
 */
export class ConversationFileError extends taggedError('ConversationFileError', 'storage')<{
  readonly path: string
  readonly error: DecodeError | { readonly _tag: 'NotSingleHead'; readonly count: number }
}> {
  constructor(path: string, error: ConversationFileError['error']) {
    super(
      `${path}: ${
        error._tag === 'NotSingleHead'
          ? `an LLM node needs a conversation with one head, the file has ${error.count}`
          : formatDecodeError(error)
      }`,
      { path, error },
    )
  }
}

const llmNode = (api: string, session: Session, name: string) => {
  const node = session.get(name)
  if (node === undefined) throw new UnknownNode(session.id, name)
  if (node.kind !== 'llm')
    throw new UsageError(api, `node "${name}" is a ${node.kind} node, not llm`)
  return node
}

/**
 * The conversation head of a session's LLM node; undefined before the node
 * has started (or run).
 *
 * @category llm
 */
export const conversationOf = (session: Session, name: string): Conversation | undefined =>
  (session.cell(llmNode('conversationOf', session, name).id).get() as LlmState | undefined)?.head

/**
 * Moves an LLM node's head to `head` — a conversation built or loaded
 * elsewhere. The next execute continues from it.
 *
 * @category llm
 */
export const setConversation = (session: Session, name: string, head: Conversation): void => {
  const node = llmNode('setConversation', session, name)
  session.cell(node.id).set(Object.freeze({ head }) satisfies LlmState)
}

/**
 * Writes an LLM node's conversation to `path`, atomically, in Nerve's
 * format (default) or nano-agent's.
 *
 * @category llm
 */
export const saveConversation = async (
  session: Session,
  name: string,
  path: string,
  format: ConversationFormat = 'nerve',
): Promise<void> => {
  const head = conversationOf(session, name)
  if (head === undefined) {
    throw new UsageError(
      'saveConversation',
      `node "${name}" has no conversation yet: start it first`,
    )
  }
  const doc = {
    heads: [head],
    metadata: { node: name },
    sessionId: session.id,
    createdAt: Math.floor(Date.now() / 1000),
  }
  await writeFileAtomic(path, format === 'nano' ? stringifyNano(doc) : stringifyConversation(doc))
}

/**
 * Reads a conversation file (either format, told apart by its content) and
 * makes it the LLM node's conversation. A bad file throws a
 * {@link ConversationFileError} and leaves the node as it was.
 *
 * @category llm
 */
export const loadConversation = async (
  session: Session,
  name: string,
  path: string,
): Promise<Conversation> => {
  llmNode('loadConversation', session, name)
  const text = await readFile(path, 'utf8')
  const json = parseJson(text)
  const parsed = E.isLeft(json)
    ? json
    : (json.right as { format?: unknown } | null)?.format === NERVE_FORMAT
      ? decodeConversation(json.right)
      : decodeNano(json.right)
  if (E.isLeft(parsed)) throw new ConversationFileError(path, parsed.left)
  const [head, ...rest] = parsed.right.heads
  if (head === undefined || rest.length > 0) {
    throw new ConversationFileError(path, {
      _tag: 'NotSingleHead',
      count: parsed.right.heads.length,
    })
  }
  setConversation(session, name, head)
  return head
}
