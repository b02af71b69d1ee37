/**
 * What a transport needs of an engine: open a connection with a sink for the
 * lines it sends, feed it the lines that arrive, tell it when the peer's
 * buffer drained and when the peer went away. The engine (server/engine)
 * implements it; a transport never looks inside a line except to find its
 * end.
 */

/**
 * Where an engine connection writes: one JSON-RPC message, serialised,
 * without the newline. `false` means the transport is congested; the
 * connection then holds further events in bounded buffers until
 * {@link EngineConnection.drained} is called. Responses are never dropped.
 *
 * @category server
 */
export interface ConnectionSink {
  send(line: string): boolean
}

/**
 * One peer's connection to an engine.
 *
 * @category server
 */
export interface EngineConnection {
  /** One NDJSON line in (no newline). Never throws; every request gets exactly one response line. */
  receive(line: string): void
  /** The transport can take more lines again after `send` returned `false`. */
  drained(): void
  /** The peer went away: drop its subscriptions, abort its in-flight requests. */
  close(): void
}

/**
 * The part of an engine a transport uses.
 *
 * @category server
 */
export interface Connectable {
  connect(sink: ConnectionSink, info?: { readonly transport: string }): EngineConnection
  shutdown(): Promise<void>
  readonly closed: Promise<void>
}
