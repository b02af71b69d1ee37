import {
  openChat,
  type Chat,
  type ChatEvent,
  type ChatStore,
  type ChatTurn,
} from '../../chat/index.js'
import {
  encodeConversation,
  encodeConversationPart,
  messages,
  type Conversation,
} from '../../conversation/index.js'
import type { ChatEngineEvent, ChatInfo, ChatTurnInfo, Params } from '../../protocol/index.js'
import { chatEventNames } from '../../protocol/index.js'
import type { Clock } from '../../runtime/index.js'
import type { Session } from '../../session/index.js'
import type { EngineEvent } from '../../protocol/index.js'
import type { Kinds } from '../../interpreters/index.js'
import type { SessionKit } from './SessionKit.js'
import { taggedError } from '../../errors.js'
import { EngineError } from './errors.js'
import { errorShape } from './json.js'
import { creatableKind, graphOf, nodeOf } from './nodes.js'

/**
 * No chat with this id is open or kept.
 *
 * @category engine errors
 */
export class UnknownChat extends taggedError('UnknownChat', 'notFound', EngineError)<{
  readonly chatId: string
}> {
  constructor(chatId: string) {
    super(`there is no chat "${chatId}"`, { chatId, path: '/chatId' })
  }
}

/** What the chats need of the engine (its core). */
export interface ChatHost {
  readonly clock: Clock
  readonly providers: readonly string[]
  readonly kinds: Kinds
  readonly defaultId: string
  kit(sessionId: string | undefined): Promise<SessionKit & { readonly session: Session }>
  publish(event: EngineEvent): void
  now(): string
}

/** How a chat was made, kept in its record so that it opens again the same way. */
interface Made {
  readonly sessionId?: string
  readonly graph?: unknown
  readonly agent?: Readonly<Record<string, unknown>>
  readonly step?: string
  readonly output?: string
}

interface Open {
  readonly chat: Chat
  readonly sessionId: string
  readonly createdAt: string
  running: number
}

/** A turn's result as the protocol answers it. */
export const turnInfo = (chatId: string, t: ChatTurn): ChatTurnInfo => ({
  chatId,
  turnId: t.turnId,
  status: t.status,
  head: t.head.id,
  text: t.text,
  stopReason: t.stopReason,
  usage: t.usage as unknown as Record<string, unknown>,
  apiCalls: t.apiCalls,
  cost: t.cost,
})

/** A chat event as the engine publishes it. */
const engineEvent = (sessionId: string, time: string, e: ChatEvent): ChatEngineEvent => {
  const { type, ...rest } = e
  return Object.freeze({
    ...rest,
    ...(e.type === 'failed' && { error: errorShape(e.error) }),
    ...(e.type === 'started' && e.from !== undefined && { from: e.from.id }),
    ...((e.type === 'completed' || e.type === 'cancelled') && { head: e.head.id }),
    type: chatEventNames[type],
    time,
    sessionId,
  })
}

/**
 * The chats of an engine: each opened over a session's interpreters and
 * nodes, kept in the engine's chat store (its SQLite store, else memory),
 * opened again from there by id with what made it.
 */
export class Chats {
  readonly #open = new Map<string, Open>()
  /** Chats being opened: two asks at once open one. */
  readonly #opening = new Map<string, Promise<Open>>()

  constructor(readonly store: ChatStore) {}

  /** Opens a chat (or answers the one open under that id). */
  async open(core: ChatHost, p: Params<'CHAT_CREATE'>): Promise<ChatInfo> {
    const made: Made = {
      ...(p.sessionId !== undefined && { sessionId: p.sessionId }),
      ...(p.graph !== undefined && { graph: p.graph }),
      ...(p.agent !== undefined && { agent: p.agent }),
      ...(p.step !== undefined && { step: p.step }),
      ...(p.output !== undefined && { output: p.output }),
    }
    const given = p.graph === undefined && p.agent === undefined ? undefined : made
    return this.info(p.chatId, await this.#openOf(core, p.chatId, given))
  }

  /** An open chat, opened from the store when it keeps it. */
  async get(core: ChatHost, chatId: string): Promise<Open> {
    return this.#openOf(core, chatId, undefined, true)
  }

  /** The chat open under `chatId`, else the one being opened, else it opened now. */
  #openOf(
    core: ChatHost,
    chatId: string,
    given: Made | undefined,
    mustExist = false,
  ): Promise<Open> {
    const open = this.#open.get(chatId)
    if (open !== undefined) return Promise.resolve(open)
    let opening = this.#opening.get(chatId)
    if (opening === undefined) {
      opening = this.#make(core, chatId, given, mustExist)
      this.#opening.set(chatId, opening)
      const done = (): void => {
        this.#opening.delete(chatId)
      }
      opening.then(done, done)
    }
    return opening
  }

  /** Every chat the store keeps (those open among them with their state). */
  async list(core: ChatHost, sessionId: string | undefined): Promise<readonly ChatInfo[]> {
    const out: ChatInfo[] = []
    for (const r of this.store.chats()) {
      const made = r.metadata as Made
      const sid = made.sessionId ?? core.defaultId
      if (sessionId !== undefined && sid !== sessionId) continue
      const open = this.#open.get(r.id)
      out.push(
        open === undefined
          ? {
              chatId: r.id,
              sessionId: sid,
              createdAt: r.createdAt,
              heads: r.heads,
              running: false,
              ...(r.current !== undefined && { current: r.current }),
            }
          : this.info(r.id, open),
      )
    }
    await Promise.resolve()
    return out
  }

  info(chatId: string, open: Open): ChatInfo {
    const { chat } = open
    return {
      chatId,
      sessionId: open.sessionId,
      createdAt: open.createdAt,
      heads: chat.heads.map((h) => h.id),
      running: open.running > 0,
      ...(chat.head !== undefined && { current: chat.head.id }),
      ...(chat.recovered !== undefined && { recovered: chat.recovered.id }),
    }
  }

  /**
   * The messages of a chat's current head, as JSON. Given `since`, a vertex
   * whose messages the asker holds, and when they begin the current head's
   * (it lies on the current branch, first parents back), only those after
   * them, `from` saying how many were left out.
   */
  messages(
    open: Open,
    since?: string,
  ): { readonly messages: readonly unknown[]; readonly from?: number } {
    const head = open.chat.head
    if (head === undefined) return { messages: [] }
    const all = messages(head)
    let v: Conversation | undefined = head
    while (v !== undefined && v.id !== since) v = v.parents[0]
    if (v === undefined) return { messages: all }
    const held = messages(v)
    // A projection shares its entries with its ancestors': the same objects.
    if (held.some((m, i) => all[i] !== m)) return { messages: all }
    return { messages: all.slice(held.length), from: held.length }
  }

  /**
   * A chat's whole tree, every head, in Nerve's conversation file format;
   * given `known` (vertex ids the asker holds with their ancestors), only
   * the vertices it lacks (see `encodeConversationPart`).
   */
  tree(chatId: string, open: Open, known?: readonly string[]): unknown {
    const doc = { heads: open.chat.heads, metadata: { chat: chatId } }
    return known === undefined ? encodeConversation(doc) : encodeConversationPart(doc, known)
  }

  /** Cancels every turn running (the engine shuts down). */
  cancelAll(reason: unknown): void {
    for (const o of this.#open.values()) o.chat.cancel(reason)
  }

  async #make(
    core: ChatHost,
    chatId: string,
    given: Made | undefined,
    mustExist = false,
  ): Promise<Open> {
    const kept = this.store.loadChat(chatId)
    if (kept === undefined && mustExist) throw new UnknownChat(chatId)
    const made: Made = given ?? (kept?.metadata as Made | undefined) ?? {}
    const kit = await core.kit(made.sessionId)
    const session = kit.session
    const base = {
      id: chatId,
      interpreters: kit.registry,
      session,
      store: this.store,
      metadata: made as Readonly<Record<string, unknown>>,
      clock: core.clock,
      onEvent: (e: ChatEvent) => {
        const open = this.#open.get(chatId)
        if (open !== undefined) {
          if (e.type === 'started') open.running++
          else if (e.type === 'completed' || e.type === 'failed' || e.type === 'cancelled')
            open.running--
        }
        core.publish(engineEvent(session.id, core.now(), e))
      },
    }
    const chat =
      made.graph !== undefined
        ? openChat({
            ...base,
            graph: graphOf(session, made.graph, '/graph', core.kinds),
            ...(made.step !== undefined && { agent: made.step }),
            ...(made.output !== undefined && { output: made.output }),
          })
        : openChat({
            ...base,
            agent: nodeOf(
              session,
              chatId,
              creatableKind(core.kinds, 'llm'),
              made.agent ?? {},
              core.kinds,
              core.providers,
            ),
          })
    const open: Open = {
      chat,
      sessionId: session.id,
      createdAt: chat.createdAt,
      running: 0,
    }
    this.#open.set(chatId, open)
    if (kept === undefined) {
      core.publish({
        type: 'CHAT_CREATED',
        time: core.now(),
        sessionId: session.id,
        chatId,
        info: this.info(chatId, open),
      })
    }
    return open
  }
}
