/**
 * `nerve mcp`: the MCP server, over stdio (what MCP clients spawn) or
 * Streamable HTTP. It drives the daemon named by `--socket`/`--url` (or
 * their variables) when one is named or running, else an engine of its own.
 */
import { NerveClient } from '../../client/index.js'
import { serveMcpHttp, serveMcpStdio } from '../../mcp/index.js'
import { socketIsLive } from '../../client/index.js'
import { connect, CliError, print, socketOf, urlOf, type GlobalOptions } from '../context.js'

interface McpOptions extends GlobalOptions {
  readonly http?: string
}

/** The daemon when one is named or listening on the default socket, else in-process. */
const client = async (o: GlobalOptions): Promise<NerveClient> =>
  urlOf(o) !== undefined || o.socket !== undefined || (await socketIsLive(socketOf(o)))
    ? connect(o)
    : (await import('../../server/index.js')).standaloneClient()

const hostPort = (s: string): { host: string; port: number } => {
  const m = /^(.+):(\d+)$/.exec(s)
  if (m === null)
    throw new CliError(
      'BadAddress',
      `--http must be HOST:PORT, got ${s}`,
      undefined,
      'invalidInput',
    )
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) }
}

export const mcp = async (o: McpOptions): Promise<void> => {
  const c = await client(o)
  try {
    if (o.http === undefined) {
      await serveMcpStdio(c)
      return
    }
    const token = o.token ?? process.env.NERVE_TOKEN
    const server = await serveMcpHttp(c, {
      ...hostPort(o.http),
      ...(token !== undefined && { token }),
    })
    // The token itself is never printed: it is in the owner-only file, or the caller gave it.
    // With --json, stdout gets one line for a program; people read stderr.
    print(
      o,
      { url: server.url, ...(server.tokenFile !== undefined && { tokenFile: server.tokenFile }) },
      () => '',
    )
    process.stderr.write(
      `nerve mcp: serving ${server.url}\n${
        server.tokenFile !== undefined
          ? `nerve mcp: clients send Authorization: Bearer <the token in ${server.tokenFile}> (removed when this server stops)\n`
          : ''
      }`,
    )
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await server.close()
  } finally {
    await c.close()
  }
}
