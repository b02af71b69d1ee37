/**
 * The MCP server: Nerve's commands as tools and node histories as
 * resources, for any MCP client, over stdio or Streamable HTTP.
 *
 * @packageDocumentation
 */
export { createMcpServer, UnknownResource, UnknownTool } from './createMcpServer.js'
export {
  serveMcpHttp,
  serveMcpStdio,
  type McpHttpHandle,
  type McpHttpOptions,
  type McpStdioOptions,
} from './serveMcp.js'
