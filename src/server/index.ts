/**
 * The daemon: the protocol, the engine, and the transports in front of it
 * (Unix socket, TCP, HTTP + WebSocket, in-process).
 *
 * @packageDocumentation
 */
export * from '../protocol/index.js'
export * from './engine/index.js'
export * from './transport/index.js'
