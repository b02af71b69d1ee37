import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A redis-server started for one test run: on a free port, in a temp dir, saving nothing. */
export interface RedisServer {
  readonly port: number
  readonly url: string
  readonly connection: { readonly host: string; readonly port: number }
  stop(): Promise<void>
}

/** Whether `redis-server` is on the PATH. */
export const hasRedisServer = (): boolean =>
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0

/** A port nothing listens on right now (the OS picks it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => {
        resolve(port)
      })
    })
  })

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => {
      resolve(false)
    })
  })

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) =>
        child.once('exit', () => {
          resolve()
        }),
      )

/** Starts a redis-server on a free loopback port in a fresh temp dir, with persistence off. */
export const startRedisServer = async (): Promise<RedisServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'nerve-redis-'))
  const port = await freePort()
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  )
  const deadline = Date.now() + 10_000
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`redis-server did not start on port ${port}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return Object.freeze({
    port,
    url: `redis://127.0.0.1:${port}`,
    connection: Object.freeze({ host: '127.0.0.1', port }),
    async stop() {
      child.kill('SIGTERM')
      await exited(child)
      rmSync(dir, { recursive: true, force: true })
    },
  })
}
