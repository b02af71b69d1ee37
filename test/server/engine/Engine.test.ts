import { afterEach, describe, expect, it } from 'vitest'
import { peer, testEngine } from '../kit.js'

const disposals: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((d) => d()))
})

const engine = async (...args: Parameters<typeof testEngine>) => {
  const made = await testEngine(...args)
  disposals.push(made.dispose)
  return made
}

describe('an engine connection', () => {
  it('answers PING with pong, by the request id', async () => {
    const { engine: e } = await engine()
    const p = peer(e)
    expect(await p.call('PING')).toMatchObject({ jsonrpc: '2.0', result: { pong: true } })
  })

  it('creates a bash node, executes a command on it, and tells a subscriber what happened', async () => {
    const { engine: e } = await engine()
    const p = peer(e)
    const { subscription } = await p.ok<{ subscription: string }>('SUBSCRIBE', { nodeId: 'sh' })
    expect(await p.ok('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })).toEqual({
      id: 'sh',
      type: 'bash',
      state: 'ready',
      metadata: {},
    })
    const answer = await p.ok<{ stdout: string; exitCode: number }>('EXECUTE_INPUT', {
      nodeId: 'sh',
      input: 'echo hi',
    })
    expect(answer).toMatchObject({ stdout: 'hi\n', exitCode: 0 })
    const types = p.events(subscription).map((ev) => ev.type)
    expect(types).toEqual([
      'NODE_CREATED',
      'NODE_READY',
      'NODE_BUSY',
      'OUTPUT_CHUNK',
      'NODE_READY',
      'OUTPUT_PARSED',
    ])
  })
})
