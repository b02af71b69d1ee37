import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createMcpServer } from '../../../src/mcp/index.js'
import { standaloneClient, type ChatEngineEvent } from '../../../src/server/index.js'
import { sqliteStore } from '../../../src/store/index.js'
import { scriptedProvider, toolUse } from '../../../src/testing/index.js'
import { coderGraph } from '../../chat/fixtures/coderGraph.js'
import { peer, testEngine } from '../kit.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-chat-engine-'))
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const collect = async (events: AsyncIterable<ChatEngineEvent>) => {
  const out: ChatEngineEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

describe('chats on the engine', () => {
  it('answer through the SDK with CHAT_* events, and branch on the same path', async () => {
    const client = await standaloneClient({ history: false })
    const chat = await client.chat('c1', { agent: { provider: 'echo' } })
    const first = await chat.send('hello')
    const events = await collect(first.events())
    const done = await first.result()
    expect(done).toMatchObject({ chatId: 'c1', status: 'completed', text: 'echo: hello' })
    expect(events.map((e) => e.type)).toEqual([
      'CHAT_STARTED',
      'CHAT_DELTA',
      'CHAT_USAGE',
      'CHAT_COMPLETED',
    ])
    expect(events[1]).toMatchObject({ text: 'echo: hello', sessionId: 'default', chatId: 'c1' })
    const edited = await (await chat.edit('hi again')).result()
    expect(edited.text).toBe('echo: hi again')
    const tree = await chat.branches()
    expect(tree.branches.map((b) => [b.asked, b.current])).toEqual([
      ['hello', false],
      ['hi again', true],
    ])
    expect((await chat.switch(done.head)).current).toBe(done.head)
    const info = await chat.info()
    expect(info.messages).toHaveLength(2)
    expect((await client.call('CHAT_LIST', {})).chats.map((c) => c.chatId)).toEqual(['c1'])
    await expect(client.call('CHAT_SEND', { chatId: 'nope', message: 'x' })).rejects.toMatchObject({
      tag: 'UnknownChat',
    })
    const empty = await chat.send('')
    await expect(empty.result()).rejects.toThrow(/non-empty string/)
    expect(await collect(empty.events())).toEqual([])
    await client.close()
  })

  it('tell tool calls as they run, from a graph file with a linked toolset', async () => {
    const model = scriptedProvider([[toolUse('glob', { pattern: '*.md' })], 'Found them.'])
    const client = await standaloneClient({ history: false, providers: { scripted: model } })
    const graph = coderGraph(dir, { provider: 'scripted' })
    const chat = await client.chat('g1', { graph })
    const turn = await chat.send('which docs?')
    const types = (await collect(turn.events())).map((e) => e.type)
    expect(types).toEqual([
      'CHAT_STARTED',
      'CHAT_TOOL_CALL',
      'CHAT_TOOL_RESULT',
      'CHAT_DELTA',
      'CHAT_USAGE',
      'CHAT_COMPLETED',
    ])
    expect((await turn.result()).text).toBe('Found them.')
    await client.close()
  })

  it('announce a new chat to every connection (CHAT_CREATED), once, and answer its whole tree when asked', async () => {
    const { engine, dispose } = await testEngine()
    try {
      const [maker, watcher] = [peer(engine), peer(engine)]
      await watcher.ok('SUBSCRIBE', { types: ['CHAT_CREATED'] })
      await maker.ok('CHAT_CREATE', { chatId: 'seen', agent: { provider: 'echo' } })
      const created = await watcher.waitFor((e) => e.type === 'CHAT_CREATED')
      expect(created).toMatchObject({
        sessionId: 'default',
        chatId: 'seen',
        info: { chatId: 'seen', sessionId: 'default', heads: [], running: false },
      })
      // Opened again, or used, it is not new; two creates at once make one chat.
      await maker.ok('CHAT_CREATE', { chatId: 'seen' })
      await Promise.all([
        maker.ok('CHAT_CREATE', { chatId: 'twice', agent: { provider: 'echo' } }),
        watcher.ok('CHAT_CREATE', { chatId: 'twice', agent: { provider: 'echo' } }),
      ])
      await maker.ok('CHAT_SEND', { chatId: 'twice', message: 'x' })
      expect(
        watcher.events().filter((e) => e.type === 'CHAT_CREATED' && e.chatId === 'twice'),
      ).toHaveLength(1)
      const first = await maker.ok<{ head: string }>('CHAT_SEND', { chatId: 'seen', message: 'a' })
      const retried = await maker.ok<{ head: string }>('CHAT_EDIT', {
        chatId: 'seen',
        message: 'b',
      })
      expect(watcher.events().filter((e) => e.type === 'CHAT_CREATED')).toHaveLength(2)

      const plain = await maker.ok<Record<string, unknown>>('CHAT_GET', { chatId: 'seen' })
      expect(plain).not.toHaveProperty('conversation')
      const { conversation } = await maker.ok<{
        conversation: { heads: string[]; vertices: { id: string; data: { content?: unknown } }[] }
      }>('CHAT_GET', { chatId: 'seen', tree: true })
      expect(conversation.heads).toEqual([first.head, retried.head])
      const said = conversation.vertices.map((v) => v.data.content)
      expect(said).toEqual(expect.arrayContaining(['a', 'b']))
    } finally {
      await dispose()
    }
  })

  it('keep chats in the SQLite store across engines', async () => {
    const path = join(dir, 'nerve.db')
    const one = await standaloneClient({ history: false, store: sqliteStore(path) })
    const chat = await one.chat('kept', { agent: { provider: 'echo', system: 'Be kind.' } })
    await (await chat.send('one')).result()
    const retried = await (await chat.edit('uno')).result()
    await one.close()
    const two = await standaloneClient({ history: false, store: sqliteStore(path) })
    const again = await two.chat('kept')
    const info = await again.info()
    expect(info.current).toBe(retried.head)
    expect(info.heads).toHaveLength(2)
    expect((await (await again.send('two')).result()).text).toBe('echo: two')
    await two.close()
  })

  it('send a reader only what it lacks: the vertices and messages of the turns since it read', async () => {
    type Tree = { heads: string[]; vertices: { id: string; data: { content?: unknown } }[] }
    const client = await standaloneClient({ history: false })
    const chat = await client.chat('part', { agent: { provider: 'echo' } })
    await (await chat.send('one')).result()
    await (await chat.send('two')).result()
    const read = await chat.info({ tree: true })
    const held = read.conversation as Tree
    const turn = await (await chat.send('three')).result()

    const next = await chat.info({ tree: true, known: held.heads, since: read.current! })
    const whole = await chat.info({ tree: true })
    const all = (whole.conversation as Tree).vertices
    const part = next.conversation as Tree
    expect(part.heads).toEqual([turn.head])
    const heldIds = new Set(held.vertices.map((v) => v.id))
    // The turn's vertices alone, in the order the whole tree has them.
    expect(part.vertices).toEqual(all.filter((v) => !heldIds.has(v.id)))
    expect(part.vertices.map((v) => v.data.content)).toContain('three')
    expect(held.vertices.length + part.vertices.length).toBe(all.length)
    expect(next.messagesFrom).toBe(4)
    expect(next.messages).toEqual(whole.messages.slice(4))
    expect(whole.messages).toHaveLength(6)

    // A sibling branch: only its own vertices, and its messages whole (they do not begin with those held).
    const edited = await (await chat.edit('tres')).result()
    const after = await chat.info({ tree: true, known: next.heads, since: turn.head })
    const branch = after.conversation as Tree
    expect(branch.heads).toEqual([turn.head, edited.head])
    expect(branch.vertices.map((v) => v.data.content)).toContain('tres')
    expect(branch.vertices.map((v) => v.data.content)).not.toContain('two')
    expect(after.messagesFrom).toBeUndefined()
    expect(after.messages).toHaveLength(6)

    // Ids the chat lacks are passed over: everything is sent.
    const blind = await chat.info({ tree: true, known: ['nope'], since: 'nope' })
    expect((blind.conversation as Tree).vertices).toHaveLength(all.length + branch.vertices.length)
    expect(blind.messagesFrom).toBeUndefined()
    await expect(
      client.call('CHAT_GET', { chatId: 'part', known: 'x' } as never),
    ).rejects.toMatchObject({ tag: 'InvalidParams', path: '/known' })
    await client.close()
  })

  it('are MCP tools, generated from the command codecs', async () => {
    const nerve = await standaloneClient({ history: false })
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair()
    await createMcpServer(nerve).connect(serverSide)
    const mcp = new Client({ name: 'test', version: '1.0.0' })
    await mcp.connect(clientSide)
    const names = (await mcp.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['nerve_chat_create', 'nerve_chat_send']))
    const text = async (name: string, args: Record<string, unknown>) => {
      const r = await mcp.callTool({ name, arguments: args })
      return JSON.parse((r.content as { text: string }[])[0]!.text) as Record<string, unknown>
    }
    await text('nerve_chat_create', { chatId: 'm', agent: { provider: 'echo' } })
    expect(await text('nerve_chat_send', { chatId: 'm', message: 'yo' })).toMatchObject({
      text: 'echo: yo',
    })
    expect(await text('nerve_chat_retry', { chatId: 'm' })).toMatchObject({ text: 'echo: yo' })
    const tree = await text('nerve_chat_branches', { chatId: 'm' })
    expect(tree.branches).toHaveLength(1) // the echo answers the same: one vertex, not a copy
    await mcp.close()
    await nerve.close()
  })
})
