import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import {
  createEngine,
  type Engine,
  type EngineConnection,
  type EngineEvent,
  type EngineOptions,
} from '../../src/server/index.js'

/** A parsed line the engine sent. */
export type Sent = Record<string, unknown> & {
  readonly id?: string | number | null
  readonly result?: unknown
  readonly error?: { code: number; message: string; data?: Record<string, unknown> }
  readonly method?: string
  readonly params?: { subscription: string; event: EngineEvent }
}

/** A peer of an engine in the same process: what it sent, and calls that wait for their answer by id. */
export interface Peer {
  readonly connection: EngineConnection
  readonly sent: Sent[]
  /** Sends a request and resolves with its response (result or error). */
  call(method: string, params?: unknown): Promise<Sent>
  /** The result of a call; throws with the error message when it failed. */
  ok<T = unknown>(method: string, params?: unknown): Promise<T>
  /** The events received, optionally of one subscription. */
  events(subscription?: string): EngineEvent[]
  /** Waits until an event passes `test`. */
  waitFor(test: (e: EngineEvent) => boolean, timeoutMs?: number): Promise<EngineEvent>
  /** Sends a raw line and resolves with the next reply to id `id` (or null id). */
  raw(line: string): void
}

const BASH_PTY = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
}

export const ptyOptions = BASH_PTY

/** Waits until `test` holds, polling each few ms (the answers arrive asynchronously). */
export const until = async (test: () => boolean, timeoutMs = 5000): Promise<void> => {
  const end = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 2))
  }
}

let nextId = 1

/** Connects a peer; `send` decides what the sink answers (true: keep going). */
export const peer = (engine: Engine, send: (line: string) => boolean = () => true): Peer => {
  const sent: Sent[] = []
  const connection = engine.connect({
    send: (line) => {
      sent.push(JSON.parse(line) as Sent)
      return send(line)
    },
  })
  const call = async (method: string, params: unknown = {}): Promise<Sent> => {
    const id = nextId++
    connection.receive(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    let reply: Sent | undefined
    await until(() => (reply = sent.find((m) => m.id === id)) !== undefined, 15_000)
    return reply!
  }
  const events = (subscription?: string) =>
    sent
      .filter(
        (m) =>
          m.method === 'EVENT' &&
          (subscription === undefined || m.params!.subscription === subscription),
      )
      .map((m) => m.params!.event)
  return {
    connection,
    sent,
    call,
    async ok<T>(method: string, params?: unknown): Promise<T> {
      const r = await call(method, params)
      if (r.error !== undefined) throw new Error(`${method}: ${r.error.message}`)
      return r.result as T
    },
    events,
    async waitFor(test, timeoutMs = 5000) {
      let found: EngineEvent | undefined
      await until(() => (found = events().find(test)) !== undefined, timeoutMs)
      return found!
    },
    raw: (line) => {
      connection.receive(line)
    },
  }
}

/** An engine writing history under a fresh temp directory, and its cleanup. */
export const testEngine = async (
  options: EngineOptions = {},
): Promise<{ engine: Engine; root: string; dispose: () => Promise<void> }> => {
  const root = await mkdtemp(join(tmpdir(), 'nerve-engine-'))
  const engine = createEngine({ env: {}, history: { root, server: 'test' }, ...options })
  return {
    engine,
    root,
    dispose: async () => {
      await engine.shutdown()
      await rm(root, { recursive: true, force: true })
    },
  }
}

/**
 * `connected()` of a test file: a peer of a fresh test engine, shut down
 * after the test that made it. Call once, at the top of the file.
 */
export const connectedPeers = (options?: EngineOptions): (() => Promise<Peer>) => {
  const disposals: (() => Promise<void>)[] = []
  afterEach(async () => {
    await Promise.all(disposals.splice(0).map((d) => d()))
  })
  return async () => {
    const made = await testEngine(options)
    disposals.push(made.dispose)
    return peer(made.engine)
  }
}
