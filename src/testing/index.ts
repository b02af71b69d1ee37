/**
 * `nerve/testing`: fast-check arbitraries and deterministic interpreters for
 * testing workflows built with Nerve.
 *
 * @packageDocumentation
 */
export { conversation, conversationHeads } from './conversation.js'
export type { BlockKind, ConversationConstraints } from './conversation.js'
export { graph, hashNode, hashStep, referenceResults } from './graph.js'
export type { GraphConstraints } from './graph.js'
