/**
 * `nerve-agents/store`: where sessions and what their work leaves are kept — one
 * SQLite database (the daemon's default) or files, and moving data between them.
 *
 * @packageDocumentation
 */
export { sqliteStore } from './SqliteStore.js'
export type { GcOptions, GcSummary, SqliteStore, StoredNode, StoreWriter } from './SqliteStore.js'
export { defaultStorePath, openStore } from './openStore.js'
export type { OpenStoreOptions, StoreKind } from './openStore.js'
export { migrations, SCHEMA_VERSION } from './schema.js'
export type { Migration } from './schema.js'
export { isStoreTooNew, StoreTooNew } from './StoreError.js'
export { ArtifactRecordCodec, EnvelopeRecordCodec } from './records.js'
export type { ArtifactRecord, EnvelopeRecord, StoredEnvelope, StoredRun } from './records.js'
export { traceJson, TraceJsonCodec } from './traceJson.js'
export { restoreNodes } from './restore.js'
export type { Restored } from './restore.js'
export type { ErrorJson, StepRecordJson, TraceJson } from './traceJson.js'
export { copySessions, exportStore, importStore, NODES_FORMAT } from './transfer.js'
export type { ExportOptions, TransferSummary } from './transfer.js'
export { loadRecording, RecordingCodec, saveRecording } from './replay/Recording.js'
export type { RecordedCall, RecordedError, RecordedOutcome, Recording } from './replay/Recording.js'
export { record, recorder } from './replay/record.js'
export type { Recorded, Recorder } from './replay/record.js'
export type { SaveRecordingOptions, StoredRecording } from './recordings.js'
export { isReplayDivergence, replay, ReplayDivergence } from './replay/replay.js'
export { replayTape, tapeRecorder, TapeCodec } from './replay/tape.js'
export type { Tape, TapeCall, TapePlayer, TapeRecorder } from './replay/tape.js'
export type { Difference, ReplayOptions } from './replay/replay.js'
