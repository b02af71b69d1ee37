import { describe, expect, it } from 'vitest'
import { connectedPeers, ptyOptions, until, type Peer } from '../kit.js'

const connected = connectedPeers()

const withTerminal = async (): Promise<Peer> => {
  const p = await connected()
  await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
  return p
}

describe('EXECUTE_INPUT', () => {
  it("answers a terminal's parsed response, with its chunks told on the way", async () => {
    const p = await withTerminal()
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', {
      types: ['OUTPUT_CHUNK', 'OUTPUT_PARSED'],
    })
    const answer = await p.ok<{ text: string; isComplete: boolean }>('EXECUTE_INPUT', {
      nodeId: 'term',
      input: 'echo $((6 * 7))',
      parser: 'none',
    })
    expect(answer).toMatchObject({ text: '42', isComplete: true })
    const events = p.events(subscription)
    expect(events.at(-1)).toMatchObject({
      type: 'OUTPUT_PARSED',
      nodeId: 'term',
      output: { text: '42' },
    })
    const chunks = events
      .filter((e) => e.type === 'OUTPUT_CHUNK')
      .map((e) => String((e as { chunk: unknown }).chunk))
    expect(chunks.join('')).toContain('42')
  })

  it("tells every subscriber a long answer's end (truncated) and answers the requester whole", async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('SUBSCRIBE', { types: ['OUTPUT_PARSED'] })
    // 20000 lines of 7 characters and the last one: 140004 characters of stdout.
    const answer = await p.ok<{ stdout: string }>('EXECUTE_INPUT', {
      nodeId: 'sh',
      input: 'seq 100000 119999; echo end',
    })
    expect(answer.stdout).toHaveLength(140_004)
    const told = await p.waitFor((e) => e.type === 'OUTPUT_PARSED')
    const out = (told as { output: { stdout: string; exitCode: number } }).output
    expect(told).toMatchObject({ type: 'OUTPUT_PARSED', truncated: true })
    expect(out.stdout).toBe(answer.stdout.slice(-64 * 1024))
    expect(out.exitCode).toBe(0)
    // A short answer comes whole, unmarked.
    await p.ok('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo hi' })
    const short = await p.waitFor((e) => e.type === 'OUTPUT_PARSED' && e !== told)
    expect(short).toMatchObject({ output: { stdout: 'hi\n' } })
    expect(short).not.toHaveProperty('truncated')
  })

  it('fails with RequestTimeout and the partial output when the answer is late; the terminal stays usable', async () => {
    const p = await withTerminal()
    const late = await p.call('EXECUTE_INPUT', {
      nodeId: 'term',
      input: 'echo started; sleep 5',
      timeout: 300,
    })
    expect(late.error).toMatchObject({
      code: -32006,
      data: { tag: 'RequestTimeout', path: '/timeout', timeoutMs: 300 },
    })
    expect(String(late.error!.data!.partial)).toContain('started')
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'term', input: 'echo again' })).toMatchObject({
      text: 'again',
    })
  })

  it('is cancelled by CANCEL_REQUEST with its id', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('SUBSCRIBE', { nodeId: 'sh' })
    const id = 'slow-1'
    p.raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'EXECUTE_INPUT',
        params: { nodeId: 'sh', input: 'sleep 10' },
      }),
    )
    await p.waitFor((e) => e.type === 'NODE_BUSY')
    await new Promise((r) => setTimeout(r, 100))
    const started = Date.now()
    p.raw(JSON.stringify({ jsonrpc: '2.0', method: 'CANCEL_REQUEST', params: { id } }))
    await until(() => p.sent.some((m) => m.id === id))
    expect(Date.now() - started).toBeLessThan(3000)
    expect(p.sent.find((m) => m.id === id)!.error).toMatchObject({
      code: -32005,
      data: { tag: 'RequestCancelled' },
    })
  })

  it('runs a registered graph and answers its results by step id', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('CREATE_NODE', {
      nodeId: 'flow',
      kind: 'graph',
      options: { graph: { steps: [{ id: 'a', nodeRef: 'sh', input: 'echo from-a' }] } },
    })
    const results = await p.ok<{ a: { stdout: string } }>('EXECUTE_INPUT', {
      nodeId: 'flow',
      input: null,
    })
    expect(results.a.stdout).toBe('from-a\n')
  })

  it('passes on a failing command as ExecutionFailed with the result', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    const r = await p.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo oops >&2; exit 3' })
    expect(r.error).toMatchObject({ code: -32007, data: { tag: 'BashFailed', nodeId: 'sh' } })
    expect(r.error!.data!.result).toMatchObject({ exitCode: 3, stderr: 'oops\n' })
  })
})

describe('RUN_COMMAND', () => {
  it('accepts at once and tells the answer as OUTPUT_PARSED, or a failure as ERROR', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('SUBSCRIBE', { nodeId: 'sh' })
    expect(await p.ok('RUN_COMMAND', { nodeId: 'sh', input: 'echo fired' })).toEqual({
      accepted: true,
    })
    const parsed = await p.waitFor((e) => e.type === 'OUTPUT_PARSED')
    expect(parsed).toMatchObject({ nodeId: 'sh', output: { stdout: 'fired\n' } })
    await p.ok('RUN_COMMAND', { nodeId: 'sh', input: 'exit 1' })
    const error = await p.waitFor((e) => e.type === 'ERROR')
    expect(error).toMatchObject({ nodeId: 'sh', error: { tag: 'BashFailed' } })
    expect((await p.call('RUN_COMMAND', { nodeId: 'nope', input: 'x' })).error).toMatchObject({
      code: -32001,
      data: { path: '/nodeId' },
    })
  })
})

describe('SEND_INTERRUPT', () => {
  it('sends Ctrl+C to a terminal: the execute in progress fails as interrupted', async () => {
    const p = await withTerminal()
    await p.ok('SUBSCRIBE', { nodeId: 'term' })
    const pending = p.call('EXECUTE_INPUT', { nodeId: 'term', input: 'sleep 10' })
    await p.waitFor((e) => e.type === 'NODE_BUSY')
    await new Promise((r) => setTimeout(r, 100))
    expect(await p.ok('SEND_INTERRUPT', { nodeId: 'term' })).toEqual({ interrupted: true })
    expect((await pending).error).toMatchObject({
      code: -32007,
      data: { tag: 'TerminalInterrupted' },
    })
  })

  it("aborts the engine's executes on another kind, and says whether there was one", async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect(await p.ok('SEND_INTERRUPT', { nodeId: 'sh' })).toEqual({ interrupted: false })
    const pending = p.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'sleep 10' })
    await new Promise((r) => setTimeout(r, 150))
    expect(await p.ok('SEND_INTERRUPT', { nodeId: 'sh' })).toEqual({ interrupted: true })
    expect((await pending).error).toMatchObject({ code: -32005, data: { tag: 'RequestCancelled' } })
  })
})

describe('WRITE_DATA and GET_BUFFER', () => {
  it('writes raw data to a terminal and reads its buffer whole or by its last lines', async () => {
    const p = await withTerminal()
    expect(await p.ok('WRITE_DATA', { nodeId: 'term', data: 'echo one\necho two\n' })).toEqual({
      written: 18,
    })
    let buffer = ''
    await until(() => {
      void p
        .ok<{ buffer: string }>('GET_BUFFER', { nodeId: 'term' })
        .then((r) => (buffer = r.buffer))
      return /two\r?\n[^]*\$ $/.test(buffer)
    })
    expect(buffer).toContain('one')
    const { buffer: tail } = await p.ok<{ buffer: string }>('GET_BUFFER', {
      nodeId: 'term',
      lines: 1,
    })
    expect(tail).toContain('$')
    expect(tail).not.toContain('two')
  })

  it('writes to a fresh program when the one it ran exited (the node is respawned first), and reads the screen it left', async () => {
    const p = await withTerminal()
    await p.ok('SUBSCRIBE', { types: ['NODE_RESPAWNED'] })
    expect((await p.call('EXECUTE_INPUT', { nodeId: 'term', input: 'exit' })).error).toBeDefined()
    // Read, it shows the screen it left; written to, it is a fresh bash.
    const left = await p.ok<{ buffer: string }>('GET_BUFFER', { nodeId: 'term' })
    expect(left.buffer).toContain('exit')
    expect(p.events().filter((e) => e.type === 'NODE_RESPAWNED')).toEqual([])
    expect(await p.ok('WRITE_DATA', { nodeId: 'term', data: 'echo back\n' })).toEqual({
      written: 10,
    })
    let buffer = ''
    await until(() => {
      void p
        .ok<{ buffer: string }>('GET_BUFFER', { nodeId: 'term' })
        .then((r) => (buffer = r.buffer))
      return /back\r?\n[^]*\$ $/.test(buffer)
    })
    await p.waitFor((e) => e.type === 'NODE_RESPAWNED')
  })

  it('refuses a node that is not a terminal, and a stopped terminal', async () => {
    const p = await withTerminal()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    expect((await p.call('GET_BUFFER', { nodeId: 'sh' })).error).toMatchObject({
      code: -32003,
      data: { tag: 'NotATerminal', path: '/nodeId', kind: 'bash' },
    })
    await p.ok('STOP_NODE', { nodeId: 'term' })
    expect((await p.call('WRITE_DATA', { nodeId: 'term', data: 'x' })).error).toMatchObject({
      code: -32004,
      data: { tag: 'NodeStopped' },
    })
  })
})

describe('GET_HISTORY', () => {
  it("reads a node's history with the existing filters and a limit", async () => {
    const p = await withTerminal()
    await p.ok('EXECUTE_INPUT', { nodeId: 'term', input: 'echo a' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'term', input: 'echo b' })
    await p.ok('WRITE_DATA', { nodeId: 'term', data: '\n' })
    const all = await p.ok<{
      records: { seq: number; op: string; input?: string }[]
      corrupt: number
    }>('GET_HISTORY', { nodeId: 'term' })
    expect(all.records.map((r) => r.op)).toEqual(['send_stream', 'send_stream', 'write'])
    expect(all.corrupt).toBe(0)
    const sends = await p.ok<{ records: { input?: string }[] }>('GET_HISTORY', {
      nodeId: 'term',
      op: 'send_stream',
      limit: 1,
    })
    expect(sends.records.map((r) => r.input)).toEqual(['echo b'])
    const from = await p.ok<{ records: { seq: number }[] }>('GET_HISTORY', {
      nodeId: 'term',
      fromSeq: 2,
    })
    expect(from.records.map((r) => r.seq)).toEqual([2, 3])
  })

  it('records bash runs, and refuses a node with neither history nor registration', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('EXECUTE_INPUT', { nodeId: 'sh', input: 'echo logged' })
    const { records } = await p.ok<{ records: { op: string; stdout?: string }[] }>('GET_HISTORY', {
      nodeId: 'sh',
    })
    expect(records).toMatchObject([{ op: 'run', stdout: 'logged\n' }])
    expect((await p.call('GET_HISTORY', { nodeId: 'ghost' })).error).toMatchObject({
      code: -32001,
      data: { tag: 'UnknownNode', path: '/nodeId' },
    })
    expect(
      (await p.call('GET_HISTORY', { nodeId: 'sh', since: 'not a date' })).error,
    ).toMatchObject({
      code: -32602,
    })
  })
})

describe('stopping a node', () => {
  it('ends the commands the engine runs on it, fired and forgotten ones included', async () => {
    const p = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
    await p.ok('SUBSCRIBE', { nodeId: 'sh', types: ['ERROR'] })
    await p.ok('RUN_COMMAND', { nodeId: 'sh', input: 'sleep 30' })
    const pending = p.call('EXECUTE_INPUT', { nodeId: 'sh', input: 'sleep 30' })
    await new Promise((r) => setTimeout(r, 150))
    const started = Date.now()
    await p.ok('STOP_NODE', { nodeId: 'sh' })
    expect((await pending).error).toMatchObject({ code: -32005, data: { tag: 'RequestCancelled' } })
    expect(await p.waitFor((e) => e.type === 'ERROR')).toMatchObject({
      nodeId: 'sh',
      error: { tag: 'RequestCancelled' },
    })
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
