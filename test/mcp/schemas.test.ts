/**
 * The MCP tools' input schemas are the JSON Schemas of the engine's params
 * codecs: one spelling of each command.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NerveClient } from '../../src/client/index.js'
import { createMcpServer } from '../../src/mcp/index.js'
import { builtinKinds } from '../../src/interpreters/index.js'
import { jsonSchemaOf, paramsCodecs } from '../../src/protocol/index.js'
import { standaloneClient } from '../../src/server/index.js'

let nerve: NerveClient
let mcp: Client
beforeAll(async () => {
  nerve = await standaloneClient({ history: false })
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair()
  await createMcpServer(nerve).connect(serverSide)
  mcp = new Client({ name: 'test', version: '1.0.0' })
  await mcp.connect(clientSide)
})
afterAll(async () => {
  await mcp.close()
  await nerve.close()
})

const props = (codec: (typeof paramsCodecs)[keyof typeof paramsCodecs]) =>
  (jsonSchemaOf(codec) as { properties: Record<string, unknown> }).properties

describe('the MCP tool schemas', () => {
  it("are the JSON Schemas of the commands' params codecs, with a description added", async () => {
    const { tools } = await mcp.listTools()
    const execute = tools.find((t) => t.name === 'nerve_execute')!.inputSchema
    const codec = props(paramsCodecs.EXECUTE_INPUT)
    for (const [key, schema] of Object.entries(execute.properties ?? {})) {
      const { description, ...rest } = schema as { description?: string }
      const { description: _, ...own } = codec[key] as { description?: string }
      expect(rest).toEqual(own)
      expect(description).toEqual(expect.any(String))
    }
    expect(execute.properties?.timeout).toMatchObject({ type: 'number', exclusiveMinimum: 0 })
    expect(execute.additionalProperties).toBe(false)
  })

  it("offer the engine's creatable node kinds, and no list of parsers of their own", async () => {
    const { tools } = await mcp.listTools()
    const create = tools.find((t) => t.name === 'nerve_create_node')!.inputSchema
    expect((create.properties?.kind as { enum: string[] }).enum).toEqual(
      [...builtinKinds.values()].filter((k) => k.creatable).map((k) => k.kind),
    )
    const execute = tools.find((t) => t.name === 'nerve_execute')!.inputSchema
    expect(execute.properties?.parser).toEqual({
      type: 'string',
      description: 'the parser, by name',
    })
  })

  it('answer an argument the codec refuses with isError at its path', async () => {
    const r = await mcp.callTool({
      name: 'nerve_execute',
      arguments: { nodeId: 'x', input: 'true', timeout: -1 },
    })
    expect(r.isError).toBe(true)
    expect((r.content as { text: string }[])[0]!.text).toMatch(/^InvalidParams at \/timeout/)
  })
})
