/**
 * The client decodes every answer with the result codec of its command: a
 * fake daemon that answers something else is caught, with the path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MalformedResult, NerveClient } from '../../src/client/index.js'

let dir: string
let daemon: Server | undefined
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-results-'))
})
afterEach(async () => {
  await new Promise<void>((r) => {
    if (daemon === undefined) r()
    else
      daemon.close(() => {
        r()
      })
  })
  daemon = undefined
  rmSync(dir, { recursive: true, force: true })
})

/** A daemon on a Unix socket that answers each method with the result `answers` gives it. */
const fakeDaemon = async (
  answers: Readonly<Record<string, unknown>>,
  event?: unknown,
): Promise<string> => {
  const path = join(dir, 'fake.sock')
  daemon = createServer((socket) => {
    let buffered = ''
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8')
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        const { id, method } = JSON.parse(line) as { id: number; method: string }
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: answers[method] })}\n`)
        if (method === 'SUBSCRIBE' && event !== undefined) {
          const params = { subscription: 's1', event }
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'EVENT', params })}\n`)
        }
      }
    })
  })
  await new Promise<void>((r) => daemon!.listen(path, r))
  return path
}

describe('a client reading answers', () => {
  it('rejects a malformed answer with a MalformedResult naming the command and the path', async () => {
    const client = await NerveClient.connect(
      await fakeDaemon({
        LIST_NODES: {
          nodes: [
            { id: 'a', type: 'bash', state: 'ready', metadata: {} },
            { id: 'b', type: 'bash', state: 'dreaming', metadata: {} },
          ],
        },
      }),
    )
    try {
      const e = await client.listNodes().catch((x: unknown) => x)
      expect(e).toBeInstanceOf(MalformedResult)
      expect(e).toMatchObject({
        _tag: 'MalformedResult',
        method: 'LIST_NODES',
        path: '/nodes/1/state',
      })
      expect((e as MalformedResult).problems).toEqual([
        '/nodes/1/state: expected NodeState, got "dreaming"',
      ])
      expect(client.connected).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('rejects an answer that is missing a field, at that field', async () => {
    const client = await NerveClient.connect(
      await fakeDaemon({
        SUBSCRIBE: { subscription: 's1' },
        UNSUBSCRIBE: { unsubscribed: true },
        EXECUTE_GRAPH: { run: 'r1' },
      }),
    )
    try {
      await expect(client.runGraph({})).rejects.toMatchObject({
        _tag: 'MalformedResult',
        path: '/runId',
      })
    } finally {
      await client.close()
    }
  })

  it('takes a well-formed answer, fields of a newer daemon included', async () => {
    const client = await NerveClient.connect(
      await fakeDaemon({ PING: { pong: true, version: '9.9.9' } }),
    )
    try {
      expect(await client.ping()).toEqual({ pong: true, version: '9.9.9' })
    } finally {
      await client.close()
    }
  })

  it('hands an event that does not decode to the subscriber as an ERROR event saying where', async () => {
    const client = await NerveClient.connect(
      await fakeDaemon(
        { SUBSCRIBE: { subscription: 's1' }, UNSUBSCRIBE: { unsubscribed: true } },
        { type: 'LAGGED', time: '2026-01-01T00:00:00.000Z', dropped: 'many' },
      ),
    )
    try {
      const sub = await client.subscribe()
      for await (const e of sub) {
        expect(e).toMatchObject({ type: 'ERROR', error: { tag: 'MalformedEvent' } })
        expect(e.type === 'ERROR' && e.error.message).toContain('/dropped')
        break
      }
    } finally {
      await client.close()
    }
  })
})
