import { turnInfo } from '../chats.js'
import type { Commands } from './context.js'

type ChatMethods =
  | 'CHAT_CREATE'
  | 'CHAT_GET'
  | 'CHAT_LIST'
  | 'CHAT_SEND'
  | 'CHAT_CONTINUE'
  | 'CHAT_RETRY'
  | 'CHAT_EDIT'
  | 'CHAT_BRANCHES'
  | 'CHAT_SWITCH'
  | 'CHAT_CANCEL'

/**
 * Chats: each turn runs the chat's graph on the engine and answers when it
 * ends (cancelling the request cancels the turn); its `CHAT_*` events go to
 * subscribers as it runs.
 */
export const chatCommands: Commands<ChatMethods> = {
  CHAT_CREATE: (p, { core }) => core.chats.open(core, p),

  CHAT_GET: async (p, { core }) => {
    const open = await core.chats.get(core, p.chatId)
    const { messages, from } = core.chats.messages(open, p.since)
    return {
      ...core.chats.info(p.chatId, open),
      messages,
      ...(from !== undefined && { messagesFrom: from }),
      ...(p.tree === true && { conversation: core.chats.tree(p.chatId, open, p.known) }),
    }
  },

  CHAT_LIST: async (p, { core }) => ({ chats: await core.chats.list(core, p.sessionId) }),

  CHAT_SEND: async (p, { core, signal }) => {
    const { chat } = await core.chats.get(core, p.chatId)
    return turnInfo(p.chatId, await chat.send(p.message as never, { signal }))
  },

  CHAT_CONTINUE: async (p, { core, signal }) => {
    const { chat } = await core.chats.get(core, p.chatId)
    return turnInfo(p.chatId, await chat.continue(p.at, p.message as never, { signal }))
  },

  CHAT_RETRY: async (p, { core, signal }) => {
    const { chat } = await core.chats.get(core, p.chatId)
    return turnInfo(p.chatId, await chat.retry({ signal, ...(p.at !== undefined && { at: p.at }) }))
  },

  CHAT_EDIT: async (p, { core, signal }) => {
    const { chat } = await core.chats.get(core, p.chatId)
    return turnInfo(
      p.chatId,
      await chat.edit(p.message as never, { signal, ...(p.at !== undefined && { at: p.at }) }),
    )
  },

  CHAT_BRANCHES: async (p, { core }) => (await core.chats.get(core, p.chatId)).chat.branches(),

  CHAT_SWITCH: async (p, { core }) => {
    const open = await core.chats.get(core, p.chatId)
    open.chat.switch(p.head)
    return core.chats.info(p.chatId, open)
  },

  CHAT_CANCEL: async (p, { core }) => ({
    cancelled: (await core.chats.get(core, p.chatId)).chat.cancel(),
  }),
}
