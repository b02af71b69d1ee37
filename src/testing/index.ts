/**
 * `nerve-agents/testing`: fast-check arbitraries and deterministic interpreters for
 * testing workflows built with Nerve.
 *
 * @packageDocumentation
 */
export { conversation, conversationHeads } from './conversation.js'
export type { BlockKind, ConversationConstraints } from './conversation.js'
export { graph, hashNode, hashStep, referenceResults } from './graph.js'
export type { GraphConstraints } from './graph.js'
export { fakeClock } from './clock.js'
export type { FakeClock, FakeClockOptions } from './clock.js'
export { failure, scripted, scriptedNode, succeed } from './scripted.js'
export type {
  Outcome,
  ScriptedCall,
  ScriptedInterpreter,
  ScriptedOptions,
  SucceedOptions,
} from './scripted.js'
export { scriptedProvider, ScriptExhausted, text, toolUse } from './scriptedProvider.js'
export type {
  ScriptedProvider,
  ScriptedProviderOptions,
  ScriptedReply,
  ScriptedTurn,
} from './scriptedProvider.js'
export { agentNetwork, networkEdit, seededSchedule } from './network.js'
export type { NetworkConstraints } from './network.js'
