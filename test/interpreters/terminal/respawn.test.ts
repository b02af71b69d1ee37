import { pipe } from 'fp-ts/lib/function.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  pty,
  run,
  type RunEvent,
  skip,
} from '../../../src/index.js'
import { interpreters } from '../../../src/core.js'
import {
  ptyInterpreter,
  type ParsedResponse,
  type Terminal,
  TerminalExited,
} from '../../../src/interpreters/index.js'
import { LiveHandles } from '../../../src/runtime/index.js'
import { createSession } from '../../../src/session/createSession.js'
import type { Session } from '../../../src/session/Session.js'
import type { SessionEvent } from '../../../src/session/SessionEvent.js'
import { BASH, running } from './processes.js'

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()))
})

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e,
  )

const textOf = (r: unknown): string => (r as ParsedResponse).text

/** A session stepping pty nodes with a real bash, closed after the test. */
const session = (): { readonly s: Session; readonly events: SessionEvent[] } => {
  const events: SessionEvent[] = []
  const s = createSession({
    interpreters: interpreters(...defaultInterpreters.values(), ptyInterpreter()),
    onEvent: (e) => events.push(e),
  })
  cleanups.push(() => s.close())
  return { s, events }
}

/** Resolves when `pid` is gone. */
const gone = async (pid: number): Promise<void> => {
  while (running(pid)) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('a terminal node whose program exited respawns on its next execute', () => {
  it('in a session: `exit` typed in fails that execute, the next one runs on a fresh bash, told as respawned', async () => {
    const { s, events } = session()
    s.register(pty('sh', BASH))
    const first = Number(textOf(await s.execute('sh', 'echo $$')))
    const exited = await rejection(s.execute('sh', 'exit 4'))
    expect(exited).toBeInstanceOf(TerminalExited)
    expect((exited as TerminalExited).exitCode).toBe(4)
    const second = Number(textOf(await s.execute('sh', 'echo $$')))
    expect(second).not.toBe(first)
    expect(running(second)).toBe(true)
    expect((s.live('sh') as Terminal).state).not.toBe('stopped')
    expect(s.state('sh')).toBe('ready')
    expect(events.filter((e) => e.type === 'respawned').map((e) => 'name' in e && e.name)).toEqual([
      'sh',
    ])
    // The fresh one is kept: the execute after it runs on the same bash.
    expect(Number(textOf(await s.execute('sh', 'echo $$')))).toBe(second)
  })

  it('in a session: a killed program is replaced once, however many executes ask at the same time', async () => {
    const { s, events } = session()
    s.register(pty('sh', BASH))
    const first = Number(textOf(await s.execute('sh', 'echo $$')))
    process.kill(first, 'SIGKILL')
    await gone(first)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const pids = (await Promise.all([s.execute('sh', 'echo $$'), s.execute('sh', 'echo $$')])).map(
      (r) => Number(textOf(r)),
    )
    expect(pids[0]).toBe(pids[1])
    expect(pids[0]).not.toBe(first)
    expect(events.filter((e) => e.type === 'respawned')).toHaveLength(1)
  })

  it('in a session: a graph step on a node the session holds runs on a fresh bash after the last one exited', async () => {
    const { s } = session()
    const sh = pty('sh', BASH)
    s.register(sh)
    s.register(
      pipe(
        graph('g'),
        addStep({ id: 'quit', node: sh, input: 'exit', onError: skip('gone') }),
        addStep({ id: 'after', node: sh, input: 'echo back', dependsOn: ['quit'] }),
      ),
    )
    const results = (await s.execute('g', null)) as Record<string, unknown>
    expect(results.quit).toBe('gone')
    expect(textOf(results.after)).toBe('back')
  })

  it("in a run's own table: a step after one that typed `exit` runs on a fresh bash", async () => {
    const sh = pty('sh', BASH)
    const g = pipe(
      graph('g'),
      addStep({ id: 'pid', node: sh, input: 'echo $$' }),
      addStep({ id: 'quit', node: sh, input: 'exit', onError: skip('gone'), dependsOn: ['pid'] }),
      addStep({ id: 'after', node: sh, input: 'echo $$', dependsOn: ['quit'] }),
    )
    const events: RunEvent[] = []
    const { results } = await run(g, {
      interpreters: interpreters(...defaultInterpreters.values(), ptyInterpreter()),
      onEvent: (e) => events.push(e),
    })
    expect(results.quit).toBe('gone')
    const [before, after] = [Number(textOf(results.pid)), Number(textOf(results.after))]
    expect(after).not.toBe(before)
    // Told once, for the step that needed the fresh one, between its start and its end.
    const told = events.filter((e) => e.type === 'node_respawned')
    expect(told).toMatchObject([{ path: ['after'], nodeId: 'sh', kind: 'pty' }])
    const at = (type: string) =>
      events.findIndex((e) => e.type === type && 'stepId' in e && e.stepId === 'after')
    const respawnAt = events.indexOf(told[0]!)
    expect(at('step_start')).toBeLessThan(respawnAt)
    expect(respawnAt).toBeLessThan(at('step_complete'))
    // The run stops the fresh one as it ends.
    expect(running(after)).toBe(false)
  })

  it('in a table given to runs (as a network keeps its terminals): the next run respawns, and onRespawn is told', async () => {
    const respawned: string[] = []
    const handles = new LiveHandles({ onRespawn: (node) => respawned.push(node.id) })
    cleanups.push(() => handles.stopAll())
    const registry = interpreters(...defaultInterpreters.values(), ptyInterpreter())
    const sh = pty('sh', BASH)
    const told: string[] = []
    const once = (input: string) =>
      run(addStep({ id: 'x', node: sh, input })(graph('g')), {
        interpreters: registry,
        handles,
        onEvent: (e) => {
          if (e.type === 'node_respawned') told.push(`${e.path.join('/')} ${e.nodeId}`)
        },
      })
    const first = Number(textOf((await once('echo $$')).results.x))
    expect(await rejection(once('exit'))).toBeDefined()
    const second = Number(textOf((await once('echo $$')).results.x))
    expect(second).not.toBe(first)
    expect(running(second)).toBe(true)
    expect(respawned).toEqual(['sh'])
    expect(told).toEqual(['x sh'])
  })
})
