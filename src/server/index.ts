/**
 * The daemon: transports (Unix socket, TCP, HTTP + WebSocket, in-process)
 * in front of an engine.
 *
 * @packageDocumentation
 */
export * from './transport/index.js'
