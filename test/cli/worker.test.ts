/**
 * `nerve worker` (the built executable) against a real redis-server: steps
 * of a graph run here go to it and run there, with the functions of its
 * `--functions` module; SIGTERM stops it cleanly; no Redis is one line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addStep, bash, fn, graph, run } from 'nerve-agents'
import { remoteInterpreters } from 'nerve-agents/distributed'
import { freePort, startRedisServer, type RedisServer } from '../distributed/redisServer.js'
import { bin, ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-worker-'))
const functions = join(dir, 'steps.mjs')
let redis: RedisServer

beforeAll(async () => {
  ensureBuilt()
  writeFileSync(
    functions,
    [
      'export const shout = (ctx) => `${String(ctx.input).toUpperCase()} from ${process.pid}`',
      'export const notAFunction = 42',
      "export const stray = () => { void Promise.reject(new Error('nobody awaits this')); return 'left' }",
    ].join('\n'),
  )
  redis = await startRedisServer()
}, 180_000)
afterAll(async () => {
  await redis.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts `nerve worker …`; resolves once it says it is ready. */
const startWorkerProcess = (
  args: readonly string[],
): Promise<{ child: ChildProcess; err: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'worker', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.includes('ready on queue')) resolve({ child, err: () => err })
    })
    child.once('exit', (code) => {
      reject(new Error(`worker exited (${code}): ${err}`))
    })
  })

const exitOf = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) =>
    child.once('exit', (code) => {
      resolve(code)
    }),
  )

describe('nerve worker', () => {
  it('runs the steps sent to its queue: its functions by name, and bash', async () => {
    const w = await startWorkerProcess([
      '--redis',
      redis.url,
      '--queue',
      'cli',
      '--functions',
      functions,
    ])
    expect(w.err()).toMatch(/functions: shout, stray\n/)
    const remote = remoteInterpreters({
      connection: redis.url,
      queue: 'cli',
      kinds: ['function', 'bash'],
    })
    try {
      const g = pipe(
        graph('remote'),
        addStep({ id: 'a', node: fn('shout', () => 'ran here'), input: 'hi' }),
        addStep({ id: 'b', node: bash('sh'), input: 'echo $PPID', dependsOn: ['a'] }),
      )
      const r = await run(g, { interpreters: remote.interpreters })
      expect(r.results.a).toBe(`HI from ${w.child.pid}`)
      expect(r.results.b).toMatchObject({ exitCode: 0 })
      expect(Number((r.results.b as { stdout: string }).stdout.trim())).not.toBe(process.pid)
    } finally {
      await remote.close()
    }
    const exited = exitOf(w.child)
    w.child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(w.err()).toMatch(/nerve worker: stopped/)
  }, 60_000)

  it('outlives an unhandled rejection: it says so on stderr and takes the next step', async () => {
    const w = await startWorkerProcess([
      '--redis',
      redis.url,
      '--queue',
      'stray',
      '--functions',
      functions,
    ])
    const died = exitOf(w.child).then((code) => {
      throw new Error(`worker exited (${code}): ${w.err()}`)
    })
    const remote = remoteInterpreters({
      connection: redis.url,
      queue: 'stray',
      kinds: ['function'],
    })
    try {
      const strayStep = pipe(graph('g'), addStep({ id: 's', node: fn('stray', () => 'here') }))
      const shoutStep = pipe(
        graph('g'),
        addStep({ id: 'a', node: fn('shout', () => 'here'), input: 'hi' }),
      )
      expect(
        (await Promise.race([run(strayStep, { interpreters: remote.interpreters }), died])).results
          .s,
      ).toBe('left')
      expect(
        (await Promise.race([run(shoutStep, { interpreters: remote.interpreters }), died])).results
          .a,
      ).toBe(`HI from ${w.child.pid}`)
      expect(w.err()).toMatch(
        /nerve worker: an unhandled rejection \(the worker goes on\): Error: nobody awaits this/,
      )
    } finally {
      await remote.close()
    }
    const exited = exitOf(w.child)
    w.child.kill('SIGTERM')
    expect(await exited).toBe(0)
  }, 60_000)

  it('fails in one line when Redis is not there, or no Redis is named', async () => {
    const port = await freePort()
    const r = await nerve(['worker', '--redis', `redis://127.0.0.1:${port}`, '--queue', 'q'])
    expect(r.code).toBe(6)
    expect(r.stderr.trim()).toMatch(/^error: RedisUnreachable\b/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    const none = await nerve(['worker', '--queue', 'q'], { NERVE_REDIS_URL: '' })
    expect(none.code).toBe(2)
  }, 60_000)

  it('refuses a functions module that does not load', async () => {
    const worker = (functions: string) =>
      nerve(['worker', '--redis', redis.url, '--queue', 'q', '--functions', join(dir, functions)])
    const r = await worker('missing.mjs')
    expect(r.code).toBe(3) // not found
    expect(r.stderr).toMatch(/^error: FunctionsUnloadable at --functions: cannot load/)
    writeFileSync(join(dir, 'broken.mjs'), 'export const = 1')
    const broken = await worker('broken.mjs')
    expect(broken.code).toBe(2) // invalid input
  })
})
