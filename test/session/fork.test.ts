import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  bash,
  defaultInterpreters,
  fn,
  graph,
  type Graph,
  listSteps,
  type Node,
  pty,
  type PtyNode,
  UsageError,
} from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import { ptyInterpreter, type PtyTerminal } from '../../src/interpreters/index.js'
import { fakeClock } from '../../src/testing/index.js'
import { fork, forkGraph } from '../../src/session/fork.js'
import { createSession } from '../../src/session/createSession.js'
import { NameTaken, NotForkable, SessionClosed } from '../../src/session/SessionError.js'
import type { SessionEvent } from '../../src/session/SessionEvent.js'
import { counter, counterInterpreter, type CounterOptions } from './kit.js'

const T0 = Date.UTC(2025, 0, 1)

const withCounters = (options: CounterOptions = {}) => {
  const counters = counterInterpreter(options)
  const events: SessionEvent[] = []
  const session = createSession({
    interpreters: interpreters(...defaultInterpreters.values(), counters),
    clock: fakeClock({ start: T0 }),
    onEvent: (e) => events.push(e),
  })
  return { session, counters, events }
}

describe('fork', () => {
  it('registers the fork under the new name and tells of it with from', async () => {
    const { session, counters, events } = withCounters()
    session.register(counter('a'))
    const copy = await fork(session, 'a', 'b')
    expect(session.get('b')).toBe(copy)
    expect(copy).toMatchObject({
      id: 'b',
      kind: 'counter',
      metadata: { forked_from: 'a', fork_time: '2025-01-01T00:00:00.000Z' },
    })
    expect(counters.log).toEqual(['fork a b'])
    expect(events.at(-1)).toMatchObject({ type: 'forked', name: 'b', nodeId: 'b', from: 'a' })
  })

  it('leaves the fork created when the source was not started, and ready when it was', async () => {
    const { session } = withCounters()
    session.register(counter('a'))
    await fork(session, 'a', 'cold')
    await session.start('a')
    await fork(session, 'a', 'warm')
    expect([session.state('cold'), session.state('warm')]).toEqual(['created', 'ready'])
  })

  it('starts the fork with the state of the source, and then they diverge', async () => {
    const { session } = withCounters()
    session.register(counter('a'))
    await session.execute('a', 1)
    await fork(session, 'a', 'b')
    expect(session.cell('b').get()).toEqual([1])
    await session.execute('b', 2)
    await session.execute('a', 3)
    expect(session.cell('a').get()).toEqual([1, 3])
    expect(session.cell('b').get()).toEqual([1, 2])
  })

  it('rejects an unknown source with UnknownNode', async () => {
    const { session } = withCounters()
    await expect(fork(session, 'nope', 'b')).rejects.toMatchObject({
      _tag: 'UnknownNode',
      nodeName: 'nope',
    })
  })

  it('rejects a taken name with NameTaken before forking', async () => {
    const { session, counters } = withCounters()
    session.register(counter('a'))
    session.register(counter('b'))
    await expect(fork(session, 'a', 'b')).rejects.toBeInstanceOf(NameTaken)
    expect(counters.log).toEqual([])
  })

  it('holds the new name while the fork runs, so a second fork to it is NameTaken', async () => {
    const { session } = withCounters()
    session.register(counter('a'))
    const outcomes = await Promise.allSettled([fork(session, 'a', 'b'), fork(session, 'a', 'b')])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected'])
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(NameTaken)
  })

  it('rejects a kind that cannot fork with NotForkable naming the kind', async () => {
    const { session } = withCounters({ noFork: true })
    session.register(counter('a'))
    session.register(fn('f', () => 1))
    session.register(graph('g'))
    await expect(fork(session, 'a', 'b')).rejects.toMatchObject({
      _tag: 'NotForkable',
      kind: 'counter',
    })
    await expect(fork(session, 'f', 'f2')).rejects.toThrow(/a function node cannot fork/)
    await expect(fork(session, 'g', 'g2')).rejects.toThrow(/use forkGraph/)
    expect(session.names()).toEqual(['a', 'f', 'g'])
  })

  it('refuses a bad new name and a closed session', async () => {
    const { session } = withCounters()
    session.register(counter('a'))
    await expect(fork(session, 'a', 'no way')).rejects.toBeInstanceOf(UsageError)
    await session.close()
    await expect(fork(session, 'a', 'b')).rejects.toBeInstanceOf(SessionClosed)
  })

  it('forks a bash node: the same command under a new name', async () => {
    const session = createSession({ clock: fakeClock({ start: T0 }) })
    session.register(bash('hello', { command: 'echo hello' }))
    await session.execute('hello', null)
    const copy = await fork(session, 'hello', 'hello-2')
    expect(copy).toMatchObject({ command: 'echo hello', metadata: { forked_from: 'hello' } })
    expect(session.state('hello-2')).toBe('ready')
    expect(await session.execute('hello-2', null)).toMatchObject({ stdout: 'hello\n' })
    await expect(fork(session, 'hello', 'h3', { at: 1 })).rejects.toThrow(/cannot fork from/)
    await session.close()
  })

  it('forks a live pty into a fresh process of its own', async () => {
    const terminals = ptyInterpreter({ killGraceMs: 500 })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), terminals),
    })
    let live: PtyTerminal[] = []
    try {
      session.register(
        pty('sh', {
          command: 'bash',
          args: ['--norc', '--noprofile'],
          env: { PS1: '$ ', PROMPT_COMMAND: '' },
        }),
      )
      await session.execute('sh', 'X=source')
      const copy = (await fork(session, 'sh', 'sh-2')) as PtyNode
      expect(copy.command).toBe('bash')
      expect(session.state('sh-2')).toBe('ready')
      live = ['sh', 'sh-2'].map((id) => session.live(id) as PtyTerminal)
      const pids = live.map((t) => t.pid)
      expect(pids[1]).toBeDefined()
      expect(pids[1]).not.toBe(pids[0])
      await session.execute('sh-2', 'X=fork')
      const [a, b] = await Promise.all([
        session.execute('sh', 'echo "[$X]"'),
        session.execute('sh-2', 'echo "[$X]"'),
      ])
      expect((a as { text: string }).text).toContain('[source]')
      expect((b as { text: string }).text).toContain('[fork]')
    } finally {
      await session.close()
    }
    expect(live.map((t) => t.state)).toEqual(['stopped', 'stopped'])
    expect([session.live('sh'), session.live('sh-2')]).toEqual([undefined, undefined])
  })

  it('leaves the fork of a pty never started created, with no process, until it is used', async () => {
    const terminals = ptyInterpreter({ killGraceMs: 500 })
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), terminals),
    })
    try {
      session.register(
        pty('sh', {
          command: 'bash',
          args: ['--norc', '--noprofile'],
          env: { PS1: '$ ', PROMPT_COMMAND: '' },
        }),
      )
      await fork(session, 'sh', 'sh-2')
      expect([session.state('sh'), session.state('sh-2')]).toEqual(['created', 'created'])
      expect(session.live('sh')).toBeUndefined()
      expect(session.live('sh-2')).toBeUndefined()
      await session.start('sh-2')
      expect(session.state('sh-2')).toBe('ready')
      expect((session.live('sh-2') as PtyTerminal).pid).toBeGreaterThan(0)
      expect(session.live('sh')).toBeUndefined()
      const r = await session.execute('sh-2', 'echo "[fork]"')
      expect((r as { text: string }).text).toContain('[fork]')
    } finally {
      await session.close()
    }
    expect(session.live('sh-2')).toBeUndefined()
    expect(session.state('sh-2')).toBe('stopped')
  })

  it('keeps many forks independent: writes through one never change what another sees', async () => {
    type Op =
      | { readonly op: 'fork'; readonly from: number }
      | { readonly op: 'write'; readonly to: number; readonly value: number }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('fork' as const), from: fc.nat() }),
      fc.record({ op: fc.constant('write' as const), to: fc.nat(), value: fc.integer() }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.boolean(), async (ops, viaCell) => {
        const { session } = withCounters()
        session.register(counter('n0'))
        await session.start()
        const model = new Map<string, readonly number[]>([['n0', []]])
        for (const o of ops) {
          const names = [...model.keys()]
          if (o.op === 'fork') {
            const from = names[o.from % names.length]!
            const to = `n${names.length}`
            await fork(session, from, to)
            model.set(to, model.get(from)!)
          } else {
            const to = names[o.to % names.length]!
            const next = [...model.get(to)!, o.value]
            if (viaCell) session.cell(to).set(Object.freeze(next))
            else await session.execute(to, o.value)
            model.set(to, next)
          }
          for (const [name, values] of model) expect(session.cell(name).get()).toEqual(values)
        }
        await session.close()
      }),
      { numRuns: 60 },
    )
  })
})

describe('forkGraph', () => {
  const setup = (options: CounterOptions = {}) => {
    const kit = withCounters(options)
    const { session } = kit
    const shared = session.register(counter('shared'))
    const local = counter('local')
    const plain = fn('plain', (ctx) => ctx.input)
    const inner = pipe(graph('inner'), addStep({ id: 'deep', node: counter('deep') }))
    const g = pipe(
      graph('flow'),
      addStep({ id: 'local', node: local }),
      addStepRef('shared', 'shared'),
      addStep({ id: 'plain', node: plain }),
      addStep({ id: 'nested', node: inner }),
    )
    session.register(g)
    return { ...kit, shared, local, plain, g }
  }

  it('forks every persistent node the graph uses and registers a copy that uses the forks', async () => {
    const { session, counters, g, plain } = setup()
    await session.start()
    const copy = await forkGraph(session, 'flow', 'try-')
    expect(copy.id).toBe('try-flow')
    expect(session.get('try-flow')).toBe(copy)
    expect(copy.metadata).toMatchObject({ forked_from: 'flow' })
    expect(counters.log.filter((l) => l.startsWith('fork')).sort()).toEqual([
      'fork deep try-deep',
      'fork local try-local',
      'fork shared try-shared',
    ])
    expect(session.names()).toEqual(
      expect.arrayContaining(['try-local', 'try-shared', 'try-deep', 'try-flow']),
    )
    const steps = listSteps(copy)
    expect(steps.map((s) => s.node?.id ?? `ref:${s.nodeRef}`)).toEqual([
      'try-local',
      'ref:try-shared',
      'plain',
      'inner',
    ])
    expect(steps[2]!.node).toBe(plain)
    expect(listSteps(steps[3]!.node as Graph)[0]!.node?.id).toBe('try-deep')
    expect(session.state('try-local')).toBe('ready')
    expect(listSteps(g)[0]!.node?.id).toBe('local')
  })

  it('runs the copy on the forks, leaving the sources as they were', async () => {
    const { session } = setup()
    await session.execute('flow', 'before')
    await forkGraph(session, 'flow', 'try-')
    await session.execute('try-flow', 'after')
    for (const id of ['local', 'shared', 'deep']) {
      expect(session.cell(id).get()).toEqual(['before'])
      expect(session.cell(`try-${id}`).get()).toEqual(['before', 'after'])
    }
  })

  it('deep-forks a graph the graph refers to when it uses persistent nodes', async () => {
    const { session } = withCounters()
    session.register(pipe(graph('sub'), addStep({ id: 'c', node: counter('c') })))
    session.register(pipe(graph('top'), addStepRef('call', 'sub')))
    const copy = await forkGraph(session, 'top', 'x-')
    expect(listSteps(copy)[0]!.nodeRef).toBe('x-sub')
    expect(listSteps(session.get('x-sub') as Graph)[0]!.node?.id).toBe('x-c')
  })

  it('forks nothing when a persistent node cannot fork', async () => {
    const { session, counters } = setup({ noFork: true })
    const before = session.names()
    await expect(forkGraph(session, 'flow', 'try-')).rejects.toBeInstanceOf(NotForkable)
    expect(session.names()).toEqual(before)
    expect(counters.log).toEqual([])
  })

  it('forks nothing when a fork name is taken', async () => {
    const { session, counters } = setup()
    session.register(fn('try-deep', () => 0))
    await expect(forkGraph(session, 'flow', 'try-')).rejects.toMatchObject({
      _tag: 'NameTaken',
      nodeName: 'try-deep',
    })
    expect(counters.log).toEqual([])
    expect(session.has('try-flow')).toBe(false)
  })

  it('refuses a node that is not a graph, and a prefix that makes bad names', async () => {
    const { session } = setup()
    await expect(forkGraph(session, 'shared', 'x-')).rejects.toThrow(/not a graph/)
    await expect(forkGraph(session, 'flow', 'bad prefix ')).rejects.toBeInstanceOf(UsageError)
  })

  it('stops the forks it started when one fork fails, and registers none', async () => {
    const failing = {
      kind: 'flaky',
      fork: (_n: Node, id: string) => Promise.reject(new Error(`no fork for ${id}`)),
    }
    const counters = counterInterpreter()
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), counters, failing),
    })
    session.register(
      pipe(
        graph('g'),
        addStep({ id: 'a', node: counter('a') }),
        addStep({ id: 'b', node: { id: 'b', kind: 'flaky', persistent: true, metadata: {} } }),
      ),
    )
    await session.start('g')
    await expect(forkGraph(session, 'g', 'f-')).rejects.toThrow(/no fork for f-b/)
    expect(counters.log).toEqual(['start a', 'fork a f-a', 'start f-a', 'stop f-a'])
    expect(session.names()).toEqual(['g'])
  })
})
