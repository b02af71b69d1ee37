/**
 * What a command loads before it speaks: `nerve node list` against a
 * daemon loads the command tree, the client and the protocol — bundled —
 * and none of the engine, its native addons or the optional packages.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type ServerHandle } from '../../src/server/index.js'
import { bin, testDir } from './run.js'

const dir = testDir('start')
const socket = join(dir, 'nerve.sock')
let server: ServerHandle
beforeAll(async () => {
  server = await startServer({
    engineOptions: { history: false },
    socket,
    pidFile: false,
  })
})
afterAll(async () => {
  await server.close()
})

/** A resolve hook (it runs on the loader's thread) that appends each module's URL to a file. */
const hooks = `
import { appendFileSync } from 'node:fs'
let file
export const initialize = (data) => { file = data.file }
export const resolve = async (specifier, context, next) => {
  const r = await next(specifier, context)
  appendFileSync(file, r.url + '\\n')
  return r
}`
const register = `
import { register } from 'node:module'
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)}, {
  data: { file: process.env.LOADED_FILE },
})`

/** Runs `nerve ...args` and resolves with its stdout and the URLs of every module it loaded. */
const loading = (args: readonly string[]): Promise<{ stdout: string; urls: string[] }> => {
  const file = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`)
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, bin, ...args],
      { env: { ...process.env, LOADED_FILE: file }, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.on('error', reject)
    child.on('close', () => {
      resolve({ stdout, urls: readFileSync(file, 'utf8').trim().split('\n') })
    })
  })
}

describe('a command start', () => {
  it('node list loads the bundled command, client and protocol: no package, engine or native addon', async () => {
    const { stdout, urls } = await loading(['node', 'list', '--json', '--socket', socket])
    expect(JSON.parse(stdout)).toEqual({ nodes: [] })
    expect(urls.filter((u) => u.includes('/node_modules/'))).toEqual([])
    const files = urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u))
    expect(files.every((f) => f.includes('/dist/cli/'))).toBe(true)
    // the engine (and the sessions, interpreters and store under it) is in none of them
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toContain('createEngine')
  }, 30_000)
})
