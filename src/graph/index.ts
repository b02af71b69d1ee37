export {
  afterAttempts,
  fail,
  fallback,
  fallbackNode,
  mapFallbackNode,
  maxAttempts,
  retry,
  retryDelay,
  skip,
} from './ErrorPolicy.js'
export type {
  ErrorPolicy,
  FailPolicy,
  FallbackPolicy,
  RetryOptions,
  RetryPolicy,
  SkipPolicy,
} from './ErrorPolicy.js'
export { stepInput } from './Step.js'
export type { InputFn, Links, Step, StepInput, StepOptions, StepSpec, StepTarget } from './Step.js'
export { Graph, graph, isGraph } from './Graph.js'
export type { GraphOptions } from './Graph.js'
export { addStep, addStepRef, chain, getStep, listSteps } from './build.js'
export { showGraphError } from './GraphError.js'
export type {
  BothInputs,
  Cycle,
  DuplicateDependency,
  GraphError,
  InvalidNodeRef,
  InvalidStepId,
  InvalidStepOption,
  MissingNode,
  NodeAndNodeRef,
  SelfDependency,
  SelfLink,
  UnknownDependency,
  UnknownLinkTarget,
} from './GraphError.js'
export { compile, executionOrder, validate } from './compile.js'
export type { Adjacency, CompiledGraph } from './compile.js'
export { GraphFileCodec, graphFileSchema } from './GraphFile.js'
export type {
  EdgeFile,
  GraphFile,
  GraphNodeDescription,
  NodeDescription,
  OtherNodeDescription,
  PolicyFile,
  StepFile,
} from './GraphFile.js'
export { showGraphFileError } from './GraphFileError.js'
export type { GraphFileError } from './GraphFileError.js'
export { decodeGraph, graphCodec } from './decodeGraph.js'
export type { DecodeGraphOptions } from './decodeGraph.js'
export { encodeGraph } from './encodeGraph.js'
export { GraphFileRejected, graphNodeKind } from './graphKind.js'
export type { GraphKindOptions } from './graphKind.js'
export { mapNodeRefs, mapNodes } from './mapNodes.js'
