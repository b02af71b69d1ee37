export {
  LineReader,
  DEFAULT_MAX_LINE_BYTES,
  LINE_ENDS,
  type LineHandlers,
} from '../../client/LineReader.js'
export { ConnectionSet, DEFAULT_MAX_CONNECTIONS } from './ConnectionSet.js'
export { ServerStartError, TransportCodes, refusalLine } from './ServerError.js'
export {
  generateToken,
  tokenMatches,
  bearerToken,
  checkToken,
  writeTokenFile,
  MIN_TOKEN_LENGTH,
  MIN_TOKEN_BITS,
  tokenBits,
  AUTH_METHOD,
} from './token.js'
export { boundNames, hostAllowed, isLoopback, originAllowed, browserRefusal } from './origin.js'
export { defaultDaemonDir, defaultSocketPath, ensureSocketDir, socketIsLive } from './socketFile.js'
export {
  startServer,
  type BindOptions,
  type PreAuthOptions,
  type ServerOptions,
  type ServerHandle,
} from './startServer.js'
