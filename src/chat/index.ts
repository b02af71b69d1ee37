/**
 * Chats over the runtime: a head of a conversation DAG plus a graph that
 * answers a message; branch commands as forks of the DAG.
 *
 * @packageDocumentation
 */
export { openChat } from './Chat.js'
export type { AtOptions, Chat, ChatOptions, ChatTurn, TurnOptions } from './Chat.js'
export type { ChatCommand, ChatEvent, ChatEventType } from './ChatEvent.js'
export { chatRecord, memoryChatStore } from './ChatStore.js'
export type { ChatRecord, ChatState, ChatStore, PartialAnswer } from './ChatStore.js'
export { CHAT_AGENT, CHAT_START, chatGraph, chatTarget } from './chatGraph.js'
export type { ChatTarget } from './chatGraph.js'
export type { ChatBranch, ChatBranches } from './branches.js'
