/**
 * What the page knows of the daemon's chats, as signals fed by its events:
 * every chat (`CHAT_LIST`, then `CHAT_CREATED` for one made anywhere), and
 * the turn each is running as it streams — its text, its thinking, its
 * tool calls and their results — until it ends. A view reads the chat
 * again when one of its turns ends (see {@link endings}).
 */
import { batch, signal } from '@preact/signals'
import type { ChatEngineEvent, ChatInfo, EngineEvent } from '../protocol/index.js'
import { textOf } from './ConversationDag.js'

/** A tool call of a turn: asked, then answered. */
export interface ToolRun {
  readonly id: string
  readonly name: string
  readonly input: unknown
  /** The tool's answer (its text), once it came. */
  readonly result: string | undefined
  readonly isError: boolean
}

/** A turn as it runs, or as it failed. */
export interface LiveTurn {
  readonly turnId: string
  readonly command: string
  /** The user message of the turn (absent for a retry). */
  readonly message: string | undefined
  readonly text: string
  readonly thinking: string
  readonly tools: readonly ToolRun[]
  /** The error of a turn that failed. */
  readonly error: string | undefined
  /** Whether it ended: it is shown until the chat is read again ({@link clearEnded}). */
  readonly over: boolean
}

/** Every chat the page knows, by id. */
export const chats = signal<ReadonlyMap<string, ChatInfo>>(new Map())
/** The turn running (or the last that failed) of each chat, by chat id. */
export const turns = signal<ReadonlyMap<string, LiveTurn>>(new Map())
/** How many turns of each chat ended since the page opened: a view reads the chat again when it moves. */
export const endings = signal<ReadonlyMap<string, number>>(new Map())

const withEntry = <V>(m: ReadonlyMap<string, V>, key: string, value: V | undefined) => {
  const next = new Map(m)
  if (value === undefined) next.delete(key)
  else next.set(key, value)
  return next
}

/**
 * Takes the list of chats (the answer of `CHAT_LIST`), keeping a chat an
 * event announced while it was on its way. A turn the page saw start whose
 * chat the list says runs nothing ended while the page fell behind (its
 * last events were dropped): it is over, and the chat is read again.
 */
export const setChats = (list: readonly ChatInfo[]): void => {
  batch(() => {
    const next = new Map(chats.value)
    for (const c of list) next.set(c.chatId, c)
    chats.value = next
    for (const c of list) {
      const t = turns.value.get(c.chatId)
      if (!c.running && t !== undefined && !t.over) {
        turns.value = withEntry(turns.value, c.chatId, { ...t, over: true })
        endings.value = withEntry(endings.value, c.chatId, (endings.value.get(c.chatId) ?? 0) + 1)
      }
    }
  })
}

/** Adds or replaces one chat. */
export const setChat = (info: ChatInfo): void => {
  chats.value = withEntry(chats.value, info.chatId, info)
}

const updateTurn = (e: ChatEngineEvent, f: (t: LiveTurn) => LiveTurn): void => {
  const t = turns.value.get(e.chatId)
  if (t === undefined || t.turnId !== e.turnId) return
  turns.value = withEntry(turns.value, e.chatId, f(t))
}

/** The text of a message's or a tool result's content. */
const said = (content: unknown): string => (typeof content === 'string' ? content : textOf(content))

const ended = (e: ChatEngineEvent, running: boolean, current?: string): void => {
  const known = chats.value.get(e.chatId)
  if (known !== undefined) setChat({ ...known, running, ...(current !== undefined && { current }) })
  endings.value = withEntry(endings.value, e.chatId, (endings.value.get(e.chatId) ?? 0) + 1)
}

/** Forgets a chat's turn that ended and did not fail, once the chat was read again (it shows what the turn said). */
export const clearEnded = (chatId: string): void => {
  const t = turns.value.get(chatId)
  if (t?.over === true && t.error === undefined)
    turns.value = withEntry(turns.value, chatId, undefined)
}

/** Applies one event of the daemon (those of chats; others pass). */
export const applyChatEvent = (event: EngineEvent): void => {
  if (event.type === 'CHAT_CREATED') {
    setChat(event.info)
    return
  }
  if (!event.type.startsWith('CHAT_')) return
  const e = event as ChatEngineEvent
  batch(() => {
    switch (e.type) {
      case 'CHAT_STARTED': {
        const known = chats.value.get(e.chatId)
        if (known !== undefined) setChat({ ...known, running: true })
        turns.value = withEntry(turns.value, e.chatId, {
          turnId: e.turnId,
          command: String(e.command),
          message: e.message === undefined ? undefined : said(e.message),
          text: '',
          thinking: '',
          tools: [],
          error: undefined,
          over: false,
        })
        return
      }
      case 'CHAT_DELTA':
        updateTurn(e, (t) => ({ ...t, text: t.text + String(e.text) }))
        return
      case 'CHAT_THINKING':
        updateTurn(e, (t) => ({ ...t, thinking: t.thinking + String(e.text) }))
        return
      case 'CHAT_TOOL_CALL':
        updateTurn(e, (t) => ({
          ...t,
          tools: [
            ...t.tools,
            {
              id: String(e.id),
              name: String(e.name),
              input: e.input,
              result: undefined,
              isError: false,
            },
          ],
        }))
        return
      case 'CHAT_TOOL_RESULT':
        updateTurn(e, (t) => ({
          ...t,
          tools: t.tools.map((r) =>
            r.id === e.id ? { ...r, result: said(e.content), isError: e.isError === true } : r,
          ),
        }))
        return
      case 'CHAT_FAILED': {
        const error = (e.error as { message?: unknown } | undefined)?.message
        updateTurn(e, (t) => ({
          ...t,
          error: typeof error === 'string' ? error : 'the turn failed',
          over: true,
        }))
        ended(e, false)
        return
      }
      case 'CHAT_COMPLETED':
      case 'CHAT_CANCELLED':
        updateTurn(e, (t) => ({ ...t, over: true }))
        ended(e, false, String(e.head))
        return
      default:
        return
    }
  })
}
