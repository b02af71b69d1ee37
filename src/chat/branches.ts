import * as O from 'fp-ts/lib/Option.js'
import {
  assistant,
  messageCount,
  stop,
  user,
  type Content,
  type Conversation,
} from '../conversation/index.js'
import { lowestCommonAncestor } from '../dag/index.js'

/** The text blocks of a content, joined. @internal */
export const textOf = (content: Content): string =>
  typeof content === 'string'
    ? content
    : content.map((b) => (b.type === 'text' ? b.text : '')).join('')

/** Whether a vertex is a message a person wrote (a user message that is not tool results). */
const isAsked = (v: Conversation): boolean =>
  v.data.type === 'message' &&
  v.data.role === 'user' &&
  (typeof v.data.content === 'string' || !v.data.content.some((b) => b.type === 'tool_result'))

/**
 * The user message a head answers: the last message a person wrote at or
 * before `at`, following first parents back (a turn's tool rounds are a
 * few vertices, so this is short). Undefined when there is none.
 *
 * @internal
 */
export const askedAt = (at: Conversation): Conversation | undefined => {
  for (let v: Conversation | undefined = at; v !== undefined; v = v.parents[0]) {
    if (isAsked(v)) return v
  }
  return undefined
}

/**
 * The head that keeps what a turn said when it did not finish: the user
 * message (a new one on `from`, or `from` itself when it is the message
 * answered again), the text so far as an assistant message, and a stop
 * reason (`cancelled`, or `interrupted` for a process that died).
 *
 * @internal
 */
export const keptTurn = (
  from: Conversation | undefined,
  message: Content | undefined,
  text: string,
  reason: string,
): Conversation => {
  const asked = message === undefined ? from! : user(message)(from ?? [])
  return stop(reason)(text === '' ? asked : assistant(text)(asked))
}

/**
 * One branch of a chat: its head, the number of messages on it, the last
 * message asked and the last answer on it (their text), and where it left
 * the branches listed before it (`forkedAt`, a vertex id; absent for the
 * first).
 *
 * @category chat
 */
export interface ChatBranch {
  readonly head: string
  readonly current: boolean
  readonly messages: number
  readonly asked: string
  readonly answer: string
  readonly forkedAt?: string
  /** How many messages the branch shares with the one it left. */
  readonly sharedMessages?: number
}

/**
 * The tree of a chat: its branches, each a head, oldest first.
 *
 * @category chat
 */
export interface ChatBranches {
  readonly chatId: string
  readonly current?: string
  readonly branches: readonly ChatBranch[]
}

/** The text of the last assistant message at or before `at`. */
const answerAt = (at: Conversation): string => {
  for (let v: Conversation | undefined = at; v !== undefined; v = v.parents[0]) {
    if (v.data.type === 'message' && v.data.role === 'assistant') return textOf(v.data.content)
  }
  return ''
}

/**
 * The branches of a chat whose heads are `heads` (oldest first). Each
 * branch after the first names the vertex where it leaves the branches
 * before it: the deepest common ancestor it has with one of them.
 *
 * @internal
 */
export const branchesOf = (
  chatId: string,
  heads: readonly Conversation[],
  current: Conversation | undefined,
): ChatBranches => {
  const branches = heads.map((h, i): ChatBranch => {
    const asked = askedAt(h)
    let fork: Conversation | undefined
    for (let j = 0; j < i; j++) {
      const lca = lowestCommonAncestor(h, heads[j]!)
      if (O.isSome(lca) && (fork === undefined || messageCount(lca.value) > messageCount(fork))) {
        fork = lca.value
      }
    }
    return Object.freeze({
      head: h.id,
      current: h === current,
      messages: messageCount(h),
      asked: asked?.data.type === 'message' ? textOf(asked.data.content) : '',
      answer: answerAt(h),
      ...(fork !== undefined && { forkedAt: fork.id, sharedMessages: messageCount(fork) }),
    })
  })
  return Object.freeze({
    chatId,
    ...(current !== undefined && { current: current.id }),
    branches: Object.freeze(branches),
  })
}
