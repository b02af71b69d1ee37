/**
 * Nerve: LLM agent systems out of immutable values.
 *
 * @packageDocumentation
 */
export {
  errorCategories,
  errorCategory,
  errorClasses,
  errorJson,
  errorTag,
  errorText,
  isTagged,
  taggedError,
  UsageError,
  type ErrorCategory,
  type ErrorJson,
  type Tagged,
  type TaggedErrorClass,
} from './errors.js'
export * from './dag/index.js'
export * from './conversation/index.js'
export * from './codec/index.js'
export * from './node/index.js'
export * from './graph/index.js'
export * from './runtime/index.js'
export * from './interpreters/index.js'
export * from './session/index.js'
export * from './network/index.js'
export * from './chat/index.js'
