/**
 * `nerve-agents/session`: the mutable cell. Sessions (`createSession`, also
 * at the root) and session managers, their errors and events, stores of
 * session records, node history (JSONL) and its readers, forks as graph
 * steps, conversation files of llm nodes, coach and debate loops.
 *
 * @packageDocumentation
 */
export * from './Session.js'
export * from './createSession.js'
export type { SessionExecuteOptions, SessionInfo, SessionOptions } from './SessionOptions.js'
export * from './SessionError.js'
export { DEFAULT_EVENT_BUFFER } from './SessionEvent.js'
export type {
  SessionEvent,
  SessionEventType,
  SessionLagEvent,
  SessionNodeEvent,
} from './SessionEvent.js'
export * from './SessionManager.js'
export * from './SessionStore.js'
export * from './fork.js'
export * from './forkStep.js'
export * from './factories.js'
export * from './patterns.js'
export * from './llmConversation.js'
export * from './history.js'
export * from './terminalHistory.js'
export * from './bashHistory.js'
