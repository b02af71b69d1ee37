/**
 * `nerve-agents/network`: live agent networks. The network value and its
 * edits (also at the root), network files and their codec, envelopes and
 * their log, rendering; the run (`startNetwork`, also at the root) with its
 * inboxes, file locks, artifacts, providers, policies and errors.
 *
 * @packageDocumentation
 */
export * from './model/Network.js'
export type {
  Alarm,
  AllTrigger,
  AnyTrigger,
  ManualTrigger,
  ScheduledTrigger,
  TriggerKind,
} from './model/triggers/index.js'
export * from './model/AgentRole.js'
export * from './model/edit.js'
export * from './model/nodeSpec.js'
export * from './model/nodeEdits.js'
export * from './model/edgeEdits.js'
export * from './model/subnetworkEdits.js'
export * from './model/NetworkFile.js'
export * from './model/Envelope.js'
export * from './model/EnvelopeLog.js'
export * from './model/renderEnvelopes.js'
export * from './run/Inbox.js'
export * from './run/NetworkError.js'
export * from './run/FileLocks.js'
export * from './run/ArtifactStore.js'
export * from './run/policy.js'
export * from './run/providers.js'
export { saysDone } from './run/firing.js'
export type { NetworkEvent } from './run/NetworkEvent.js'
export * from './run/NetworkRun.js'
