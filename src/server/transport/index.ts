export { LineReader, DEFAULT_MAX_LINE_BYTES, type LineHandlers } from './LineReader.js'
export { ConnectionSet, DEFAULT_MAX_CONNECTIONS } from './ConnectionSet.js'
export { ServerStartError, TransportCodes, refusalLine } from './ServerError.js'
export { generateToken, tokenMatches, bearerToken, AUTH_METHOD } from './token.js'
export { defaultDaemonDir, defaultSocketPath, socketIsLive } from './socketFile.js'
export {
  startServer,
  isLoopback,
  type BindOptions,
  type ServerOptions,
  type ServerHandle,
} from './startServer.js'
