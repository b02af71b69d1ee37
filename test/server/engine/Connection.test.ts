import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '../../../src/server/index.js'
import { peer, testEngine, until, type Peer } from '../kit.js'

const disposals: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((d) => d()))
})

const made = async (options: Parameters<typeof testEngine>[0] = {}) => {
  const m = await testEngine(options)
  disposals.push(m.dispose)
  return m
}

const connected = async (options: Parameters<typeof testEngine>[0] = {}): Promise<Peer> =>
  peer((await made(options)).engine)

/** Sends a raw line and waits for the one reply it gets. */
const replyTo = async (p: Peer, line: string) => {
  const before = p.sent.length
  p.raw(line)
  await until(() => p.sent.length > before)
  return p.sent[before]!
}

describe('a line that is not a call', () => {
  it('that is not JSON gets a parse error with a null id', async () => {
    const p = await connected()
    expect(await replyTo(p, '{"jsonrpc":')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'the line is not JSON', data: { tag: 'ParseError' } },
    })
  })

  it('that is a batch, lacks jsonrpc, or has a bad id, member or method gets invalid request', async () => {
    const p = await connected()
    const lines = [
      '[{"jsonrpc":"2.0","id":1,"method":"PING"}]',
      '{"id":2,"method":"PING"}',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"PING"}',
      '{"jsonrpc":"2.0","id":3,"method":"PING","extra":true}',
      '{"jsonrpc":"2.0","id":4,"method":7}',
      '"PING"',
    ]
    const replies = []
    for (const line of lines) replies.push(await replyTo(p, line))
    expect(replies.map((r) => [r.id, r.error!.code])).toEqual([
      [null, -32600],
      [2, -32600],
      [null, -32600],
      [3, -32600],
      [4, -32600],
      [null, -32600],
    ])
  })

  it('names an unknown method, and invalid params with the path of the first bad value', async () => {
    const p = await connected()
    expect((await p.call('MAKE_COFFEE')).error).toMatchObject({
      code: -32601,
      data: { tag: 'MethodNotFound' },
    })
    const bad = await p.call('EXECUTE_INPUT', { nodeId: 'a', input: 'x', timeout: -5 })
    expect(bad.error).toMatchObject({
      code: -32602,
      data: { tag: 'InvalidParams', path: '/timeout' },
    })
    const typo = await p.call('GET_NODE', { nodeID: 'a' })
    expect(typo.error!.data!.errors).toEqual([
      {
        path: '/nodeID',
        message: '/nodeID: is not a parameter of this command; did you mean "nodeId"?',
      },
      { path: '/nodeId', message: '/nodeId: expected Name, got nothing' },
    ])
    const deep = await p.call('SUBSCRIBE', { types: ['NODE_READY', 'NOPE'] })
    expect(deep.error).toMatchObject({ code: -32602, data: { path: '/types/1' } })
    const array = await p.call('PING', [1])
    expect(array.error).toMatchObject({ code: -32602, data: { path: '' } })
  })

  it('never throws, and each garbage line gets exactly one well-formed error reply', async () => {
    const p = await connected()
    const notACall = fc.oneof(
      fc.string(),
      fc
        .jsonValue()
        .map((v) => JSON.stringify(v))
        .filter((s) => !s.includes('"jsonrpc"')),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
      fc
        .tuple(
          fc.constantFrom(...methods),
          fc.dictionary(fc.string(), fc.jsonValue()),
          fc.integer(),
        )
        .map(([method, params, id]) =>
          JSON.stringify({
            jsonrpc: '2.0',
            id: `g${id}`,
            method,
            params: { ...params, '~garbage~': 1 },
          }),
        ),
      fc
        .tuple(fc.string({ minLength: 1 }), fc.integer())
        .map(([method, id]) =>
          JSON.stringify({ jsonrpc: '2.0', id: `g${id}`, method: `x-${method}` }),
        ),
    )
    await fc.assert(
      fc.asyncProperty(notACall, async (line) => {
        const before = p.sent.length
        expect(() => {
          p.connection.receive(line)
        }).not.toThrow()
        await until(() => p.sent.length > before, 2000)
        await new Promise((r) => setImmediate(r))
        const replies = p.sent.slice(before)
        expect(replies).toHaveLength(1)
        const reply = replies[0]!
        expect(reply.jsonrpc).toBe('2.0')
        expect(typeof reply.error!.code).toBe('number')
        expect(typeof reply.error!.message).toBe('string')
        expect(typeof reply.error!.data!.tag).toBe('string')
        expect(reply.result).toBeUndefined()
      }),
      { numRuns: 300 },
    )
    expect(await p.ok('PING')).toEqual({ pong: true })
  })
})

describe('params a client gets wrong', () => {
  it('treat a required key that is absent, or present as undefined, as missing (-32602 at its path)', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    for (const method of ['EXECUTE_INPUT', 'RUN_COMMAND']) {
      for (const params of [{ nodeId: 'sh' }, { nodeId: 'sh', input: undefined }]) {
        const r = await p.call(method, params)
        expect(r.error).toMatchObject({
          code: -32602,
          data: { tag: 'InvalidParams', path: '/input' },
        })
        expect(r.error!.message).toMatch(/\/input: required/)
      }
    }
    expect((await p.call('EXECUTE_GRAPH', {})).error).toMatchObject({
      code: -32602,
      data: { path: '/graph' },
    })
  })

  it('refuses a value nested deeper than the limit at decode, at the path where it goes too deep', async () => {
    const p = await connected()
    const n = 100_000
    const deep = `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`
    const r = await replyTo(
      p,
      `{"jsonrpc":"2.0","id":7,"method":"CREATE_SESSION","params":{"sessionId":"s","metadata":{"x":${deep}}}}`,
    )
    expect(r.id).toBe(7)
    expect(r.error).toMatchObject({ code: -32602, data: { tag: 'InvalidParams' } })
    expect(r.error!.data!.path).toMatch(/^\/metadata\/x(\/a)+$/)
    expect(r.error!.message).toMatch(/nested deeper than 64/)
    let fine: unknown = 1
    for (let i = 0; i < 60; i++) fine = { a: fine }
    expect((await p.call('CREATE_SESSION', { sessionId: 't', metadata: { x: fine } })).error).toBe(
      undefined,
    )
  })
})

describe('requests', () => {
  it('run concurrently and each gets its response by id', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    const slow = p.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'sleep 0.3; echo slow' })
    const fast = p.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo fast' })
    const first = await Promise.race([slow.then(() => 'slow'), fast.then(() => 'fast')])
    expect(first).toBe('fast')
    expect((await slow).result).toMatchObject({ stdout: 'slow\n' })
  })

  it('refuses an id already in flight, and more requests than the limit', async () => {
    const p = await connected({ limits: { maxInFlight: 1 } })
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 'same',
      method: 'EXECUTE_INPUT',
      params: { nodeId: 'sh', input: 'sleep 0.3' },
    })
    p.raw(line)
    const duplicate = await replyTo(p, line)
    expect(duplicate).toMatchObject({
      id: 'same',
      error: { code: -32600, data: { tag: 'DuplicateId' } },
    })
    const over = await replyTo(p, JSON.stringify({ jsonrpc: '2.0', id: 'other', method: 'PING' }))
    expect(over.error).toMatchObject({ code: -32009, data: { tag: 'LimitReached', max: 1 } })
    await until(() => p.sent.filter((m) => m.id === 'same').length === 2)
    expect(await p.ok('PING')).toEqual({ pong: true })
  })

  it('run notifications without answering them', async () => {
    const p = await connected()
    const before = p.sent.length
    p.raw('{"jsonrpc":"2.0","method":"CREATE_NODE","params":{"nodeId":"quiet","kind":"bash"}}')
    await until(() => false, 200).catch(() => undefined)
    expect(p.sent.length).toBe(before)
    expect(await p.ok('GET_NODE', { nodeId: 'quiet' })).toMatchObject({ id: 'quiet' })
  })
})

describe('subscriptions', () => {
  it('filter by node, run and type, and stop at UNSUBSCRIBE', async () => {
    const p = await connected()
    const a = await p.ok<{ subscription: string }>('SUBSCRIBE', { nodeId: 'a' })
    const ready = await p.ok<{ subscription: string }>('SUBSCRIBE', { types: ['NODE_READY'] })
    await p.ok('CREATE_NODE', { nodeId: 'a', kind: 'bash' })
    await p.ok('CREATE_NODE', { nodeId: 'b', kind: 'bash' })
    expect(p.events(a.subscription).map((e) => e.type)).toEqual(['NODE_CREATED', 'NODE_READY'])
    expect(p.events(ready.subscription).map((e) => (e as { nodeId: string }).nodeId)).toEqual([
      'a',
      'b',
    ])
    expect(await p.ok('UNSUBSCRIBE', { subscription: a.subscription })).toEqual({
      unsubscribed: true,
    })
    await p.ok('STOP_NODE', { nodeId: 'a' })
    expect(p.events(a.subscription)).toHaveLength(2)
    expect((await p.call('UNSUBSCRIBE', { subscription: a.subscription })).error).toMatchObject({
      code: -32001,
      data: { tag: 'UnknownSubscription' },
    })
  })

  it('are limited per connection', async () => {
    const p = await connected({ limits: { maxSubscriptions: 2 } })
    await p.ok('SUBSCRIBE')
    await p.ok('SUBSCRIBE')
    expect((await p.call('SUBSCRIBE')).error).toMatchObject({
      code: -32009,
      data: { tag: 'LimitReached', limit: 'subscriptions' },
    })
  })

  it('hold events while the sink is congested, drop the oldest past the buffer, and tell LAGGED first once drained', async () => {
    const { engine } = await made({ limits: { eventBuffer: 3 } })
    let open = true
    const p = peer(engine, () => open)
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      types: ['NODE_CREATED'],
    })
    open = false
    await p.ok('PING') // a response: sent although the sink says it is congested
    for (const id of ['n1', 'n2', 'n3', 'n4', 'n5']) {
      expect(await p.ok('CREATE_NODE', { nodeId: id, kind: 'bash' })).toMatchObject({ id })
    }
    expect(p.events(subscription)).toEqual([])
    open = true
    p.connection.drained()
    const after = p.events(subscription)
    expect(
      after.map((e) =>
        e.type === 'LAGGED' ? `LAGGED ${e.dropped}` : (e as { nodeId: string }).nodeId,
      ),
    ).toEqual(['LAGGED 2', 'n3', 'n4', 'n5'])
  })

  it('end with the connection: a closed connection gets nothing and its requests are cancelled', async () => {
    const { engine } = await made()
    const p = peer(engine)
    const other = peer(engine)
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('SUBSCRIBE')
    await other.ok('SUBSCRIBE', { nodeId: 'sh', types: ['NODE_READY'] })
    p.raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'x',
        method: 'EXECUTE_INPUT',
        params: { nodeId: 'sh', input: 'sleep 5' },
      }),
    )
    await new Promise((r) => setTimeout(r, 150))
    const count = p.sent.length
    const closedAt = Date.now()
    p.connection.close()
    p.connection.receive('{"jsonrpc":"2.0","id":9,"method":"PING"}')
    await other.waitFor((e) => e.type === 'NODE_READY', 3000)
    expect(Date.now() - closedAt).toBeLessThan(3000)
    expect(p.sent.length).toBe(count)
    expect(await other.ok('PING')).toEqual({ pong: true })
  })
})
