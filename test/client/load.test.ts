/**
 * Load and failure: many clients at once, a client killed while it reads a
 * stream, a daemon killed while calls are pending.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConnectionError, NerveClient } from '../../src/client/index.js'
import {
  createEngine,
  startServer,
  type Engine,
  type ServerHandle,
} from '../../src/server/index.js'

let dir: string
const cleanup: (() => Promise<void> | void)[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nerve-load-'))
})
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
  rmSync(dir, { recursive: true, force: true })
})

/** An engine whose connections are counted: opened, and closed by their transport. */
const counted = (engine: Engine) => {
  const stats = { open: 0 }
  const wrapped: Engine = {
    connect: (sink, info) => {
      stats.open++
      const c = engine.connect(sink, info)
      let closed = false
      return {
        receive: (l) => {
          c.receive(l)
        },
        drained: () => {
          c.drained()
        },
        close: () => {
          if (!closed) stats.open--
          closed = true
          c.close()
        },
      }
    },
    shutdown: () => engine.shutdown(),
    closed: engine.closed,
  }
  return { engine: wrapped, stats }
}

const daemon = async (engine: Engine = createEngine({ history: false })): Promise<ServerHandle> => {
  const s = await startServer({ engine, socket: join(dir, 'n.sock'), maxConnections: 200 })
  cleanup.push(() => s.close())
  return s
}

describe('load', () => {
  it('answers 100 clients × 100 concurrent requests with no response lost or mismatched', async () => {
    const s = await daemon()
    const admin = await NerveClient.connect(s.socket)
    cleanup.push(() => admin.close())
    for (let n = 0; n < 10; n++) await admin.createNode(`n${n}`, 'bash')
    const clients = await Promise.all(
      Array.from({ length: 100 }, () => NerveClient.connect(s.socket)),
    )
    cleanup.push(() => Promise.all(clients.map((c) => c.close())).then(() => undefined))
    const answers = await Promise.all(
      clients.flatMap((c, i) =>
        Array.from({ length: 100 }, async (_, j) => {
          const nodeId = `n${(i + j) % 10}`
          const info = await c.call('GET_NODE', { nodeId })
          return info.id === nodeId
        }),
      ),
    )
    expect(answers).toHaveLength(10_000)
    expect(answers.every(Boolean)).toBe(true)
  }, 60_000)

  it('frees the connection and subscription of a client killed while it reads a stream', async () => {
    const { engine, stats } = counted(createEngine({ history: false }))
    const s = await daemon(engine)
    const driver = await NerveClient.connect(s.socket)
    cleanup.push(() => driver.close())
    const sh = await driver.createNode('flood', 'bash')
    // A client in its own process: subscribes to the node's output, prints once subscribed, then reads.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('net').connect(${JSON.stringify(s.socket)});
         s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SUBSCRIBE', params: { nodeId: 'flood' } }) + '\\n');
         s.on('data', (d) => { if (String(d).includes('"id":1')) console.log('subscribed') })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    cleanup.push(() => {
      child.kill('SIGKILL')
    })
    await new Promise((r) => child.stdout.once('data', r))
    expect(stats.open).toBe(2)
    const streaming = sh.execute('for i in $(seq 1 40); do echo line $i; sleep 0.02; done')
    await new Promise((r) => setTimeout(r, 100))
    child.kill('SIGKILL')
    await expect.poll(() => stats.open, { timeout: 5000 }).toBe(1)
    expect(await streaming).toMatchObject({ exitCode: 0 })
    expect(await driver.ping()).toEqual({ pong: true })
  })
})

const startDaemonProcess = async (): Promise<{ child: ChildProcess; socket: string }> => {
  const socket = join(dir, 'child.sock')
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '../server/fixtures/daemon.ts'), socket],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  cleanup.push(() => {
    child.kill('SIGKILL')
  })
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve)
    child.once('exit', (code) => {
      reject(new Error(`the daemon exited with ${code}`))
    })
  })
  return { child, socket }
}

describe('a daemon process that dies', () => {
  it('makes every pending call reject with a ConnectionError within 1 s', async () => {
    const { child, socket } = await startDaemonProcess()
    const client = await NerveClient.connect(socket)
    const sh = await client.createNode('sh', 'bash')
    const sub = await client.subscribe({})
    const pending = [sh.execute('sleep 30'), sh.execute('sleep 30'), client.ping()]
    await pending.pop()
    const iterating = (async () => {
      for await (const _ of sub) continue
    })()
    const killed = performance.now()
    child.kill('SIGKILL')
    const results = await Promise.allSettled([...pending, iterating])
    const elapsed = performance.now() - killed
    expect(elapsed).toBeLessThan(1000)
    for (const r of results) {
      expect(r.status).toBe('rejected')
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionError)
    }
    await expect(client.ping()).rejects.toBeInstanceOf(ConnectionError)
  })

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'shuts down on %s: tells subscribers, removes its socket and pid files and exits 0',
    async (signal) => {
      const { child, socket } = await startDaemonProcess()
      const client = await NerveClient.connect(socket)
      const sub = await client.subscribe({})
      const events: string[] = []
      const reading = (async () => {
        for await (const e of sub) events.push(e.type)
      })()
      child.kill(signal)
      const code = await new Promise((r) => child.once('exit', r))
      expect(code).toBe(0)
      await reading
      expect(events).toContain('SERVER_SHUTDOWN')
      const { existsSync } = await import('node:fs')
      expect(existsSync(socket)).toBe(false)
      expect(existsSync(socket.replace(/\.sock$/, '.pid'))).toBe(false)
      await client.close()
    },
  )
})
