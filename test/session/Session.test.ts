import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  defaultInterpreters,
  fallback,
  fn,
  graph,
  makeNode,
  retry,
  run,
  type RunEvent,
  UsageError,
} from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import { Cancelled } from '../../src/runtime/index.js'
import { fakeClock } from '../../src/testing/index.js'
import { createSession } from '../../src/session/createSession.js'
import {
  ExecuteTimeout,
  NameTaken,
  NodeStopped,
  SessionClosed,
  StartFailed,
  UnknownNode,
} from '../../src/session/SessionError.js'
import type { SessionEvent } from '../../src/session/SessionEvent.js'
import { collect, counter, counterInterpreter, type CounterOptions } from './kit.js'

const withCounters = (options: CounterOptions = {}) => {
  const counters = counterInterpreter(options)
  const events: SessionEvent[] = []
  const session = createSession({
    name: 'test',
    interpreters: interpreters(...defaultInterpreters.values(), counters),
    clock: fakeClock({ start: Date.UTC(2025, 0, 1) }),
    onEvent: (e) => events.push(e),
  })
  return { session, counters, events }
}

const brief = (events: readonly SessionEvent[]): string[] =>
  events.map((e) => (e.type === 'lagged' ? `lagged ${e.dropped}` : `${e.type} ${e.name}`))

describe('createSession', () => {
  it('defaults the id to a UUID and the name to the id', () => {
    const s = createSession()
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/)
    expect(s.name).toBe(s.id)
    expect(s.size).toBe(0)
  })

  it('stamps created_at by its clock and freezes tags and metadata', () => {
    const s = createSession({
      id: 's1',
      name: 'review',
      tags: ['ci'],
      metadata: { owner: 'me' },
      clock: fakeClock({ start: 0 }),
    })
    expect(s.info()).toEqual({
      id: 's1',
      name: 'review',
      tags: ['ci'],
      metadata: { owner: 'me' },
      created_at: '1970-01-01T00:00:00.000Z',
      nodes: [],
    })
    expect(Object.isFrozen(s.tags)).toBe(true)
    expect(Object.isFrozen(s.metadata)).toBe(true)
  })

  it('refuses a name that breaks the name rule, and tags that are not strings', () => {
    expect(() => createSession({ name: 'has space' })).toThrow(UsageError)
    expect(() => createSession({ tags: [1] as never })).toThrow(/options\.tags/)
  })

  it('adds the fork interpreter unless a fork kind is given', () => {
    expect(createSession().interpreters.get('fork')?.kind).toBe('fork')
    const mine = { kind: 'fork', execute: () => 'mine' }
    expect(createSession({ interpreters: interpreters(mine) }).interpreters.get('fork')).toBe(mine)
  })
})

describe('register and unregister', () => {
  it('registers a node under its id, in state created, and tells of it', () => {
    const { session, events } = withCounters()
    const one = fn('one', () => 1)
    expect(session.register(one)).toBe(one)
    expect(session.get('one')).toBe(one)
    expect(session.has('one')).toBe(true)
    expect(session.state('one')).toBe('created')
    expect(events).toEqual([
      {
        type: 'created',
        session: session.id,
        name: 'one',
        nodeId: 'one',
        kind: 'function',
        time: '2025-01-01T00:00:00.000Z',
      },
    ])
    expect(Object.isFrozen(events[0])).toBe(true)
  })

  it('registers a node under another name, which listNodes reports as its id', () => {
    const { session } = withCounters()
    session.register(
      fn('one', () => 1),
      'first',
    )
    expect(session.names()).toEqual(['first'])
    expect(session.listNodes()).toEqual([
      { id: 'first', type: 'function', state: 'created', metadata: {} },
    ])
  })

  it('refuses a name it already has with NameTaken, naming it', () => {
    const { session } = withCounters()
    session.register(fn('one', () => 1))
    const error = (() => {
      try {
        session.register(fn('one', () => 2))
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(NameTaken)
    expect(error).toMatchObject({ _tag: 'NameTaken', nodeName: 'one', sessionId: session.id })
    expect(session.size).toBe(1)
  })

  it('refuses a bad name or something that is not a node with a UsageError', () => {
    const { session } = withCounters()
    expect(() =>
      session.register(
        fn('one', () => 1),
        '../x',
      ),
    ).toThrow(UsageError)
    expect(() => session.register({ id: 'x' } as never)).toThrow(/expects a Node/)
  })

  it('unregisters without stopping, forgetting the state cell', async () => {
    const { session, counters, events } = withCounters()
    session.register(counter('c'))
    await session.execute('c', 1)
    expect(session.cell('c').get()).toEqual([1])
    expect(session.unregister('c')).toBe(true)
    expect(session.unregister('c')).toBe(false)
    expect(session.has('c')).toBe(false)
    expect(session.cell('c').get()).toBeUndefined()
    expect(counters.log).not.toContain('stop c')
    expect(events.at(-1)?.type).toBe('removed')
  })
  it('keeps the cell while another name holds a node of the same id', () => {
    const { session } = withCounters()
    const c = counter('c')
    session.register(c)
    session.register(c, 'alias')
    session.cell('c').set(1)
    session.unregister('alias')
    expect(session.cell('c').get()).toBe(1)
    session.unregister('c')
    expect(session.cell('c').get()).toBeUndefined()
  })
})

describe('state cells', () => {
  it('keeps one value per node id', () => {
    const { session } = withCounters()
    session.cell('a').set(1)
    session.cell('b').set(2)
    expect([session.cell('a').get(), session.cell('b').get(), session.cell('c').get()]).toEqual([
      1,
      2,
      undefined,
    ])
  })
})

describe('start', () => {
  it('starts a persistent node through its interpreter: created → starting → ready', async () => {
    const { session, counters, events } = withCounters()
    session.register(counter('c'))
    await session.start('c')
    expect(session.state('c')).toBe('ready')
    expect(counters.log).toEqual(['start c'])
    expect(brief(events)).toEqual(['created c', 'starting c', 'ready c'])
    expect(session.listReadyNodes().map((n) => n.id)).toEqual(['c'])
  })

  it('brings nodes without a start capability straight to ready', async () => {
    const { session } = withCounters()
    session.register(fn('one', () => 1))
    await session.start()
    expect(session.state('one')).toBe('ready')
  })

  it('hands the interpreter the session and a signal', async () => {
    let seen: unknown
    const probe = {
      kind: 'probe',
      start: (_n: unknown, ctx: unknown) => {
        seen = ctx
        return Promise.resolve()
      },
    }
    const session = createSession({ interpreters: interpreters(probe) })
    session.register({ id: 'p', kind: 'probe', persistent: true, metadata: {} })
    await session.start()
    expect(seen).toMatchObject({ session })
    expect((seen as { signal: AbortSignal }).signal).toBeInstanceOf(AbortSignal)
  })

  it('starts the persistent nodes inside registered graphs, nested ones too', async () => {
    const { session, counters } = withCounters()
    const inner = pipe(graph('inner'), addStep({ id: 'b', node: counter('b') }))
    const outer = pipe(
      graph('outer'),
      addStep({ id: 'a', node: counter('a') }),
      addStep({ id: 'nested', node: inner }),
      addStep({ id: 'safe', node: fn('f', () => 0), onError: fallback(counter('c')) }),
    )
    session.register(outer)
    await session.start()
    expect(counters.log.sort()).toEqual(['start a', 'start b', 'start c'])
    expect(session.state('outer')).toBe('ready')
    await session.stop('outer')
    expect(counters.log.filter((l) => l.startsWith('stop')).sort()).toEqual([
      'stop a',
      'stop b',
      'stop c',
    ])
  })

  it('starts a node once when starts overlap', async () => {
    let open: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (open = resolve))
    const { session, counters } = withCounters({ startGate: gate })
    session.register(counter('c'))
    const both = Promise.all([session.start('c'), session.start('c'), session.start()])
    expect(session.state('c')).toBe('starting')
    open()
    await both
    expect(counters.log).toEqual(['start c'])
  })

  it('leaves a node that fails to start stopped, and rejects with StartFailed naming it', async () => {
    const { session, events } = withCounters({ failStart: ['c'] })
    session.register(counter('c'))
    const error = await session.start('c').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StartFailed)
    expect(error).toMatchObject({ nodeName: 'c' })
    expect((error as Error).message).toMatch(/cannot start c/)
    expect((error as Error).cause).toBeInstanceOf(Error)
    expect(session.state('c')).toBe('stopped')
    expect(brief(events)).toEqual(['created c', 'starting c', 'stopped c'])
    await expect(session.start('c')).rejects.toBeInstanceOf(NodeStopped)
  })

  it('names the node inside a graph that fails to start', async () => {
    const { session } = withCounters({ failStart: ['bad'] })
    session.register(pipe(graph('g'), addStep({ id: 's', node: counter('bad') })))
    await expect(session.start('g')).rejects.toMatchObject({ _tag: 'StartFailed', nodeName: 'bad' })
    expect(session.state('g')).toBe('stopped')
  })

  it('rejects an unknown name with UnknownNode', async () => {
    const { session } = withCounters()
    await expect(session.start('nope')).rejects.toMatchObject({
      _tag: 'UnknownNode',
      nodeName: 'nope',
    })
    await expect(session.stop('nope')).rejects.toBeInstanceOf(UnknownNode)
  })
})

describe('stop', () => {
  it('stops a ready node through its interpreter, once however often it is asked', async () => {
    const { session, counters, events } = withCounters()
    session.register(counter('c'))
    await session.start()
    await Promise.all([session.stop('c'), session.stop('c')])
    await session.stop()
    expect(session.state('c')).toBe('stopped')
    expect(counters.log).toEqual(['start c', 'stop c'])
    expect(brief(events)).toEqual(['created c', 'starting c', 'ready c', 'stopped c'])
  })

  it('owes no interpreter stop for a persistent node it never started', async () => {
    const { session, counters } = withCounters()
    session.register(counter('c'))
    await session.stop()
    expect(session.state('c')).toBe('stopped')
    expect(counters.log).toEqual([])
  })

  it('waits for a start in progress, then stops', async () => {
    let open: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (open = resolve))
    const { session, counters, events } = withCounters({ startGate: gate })
    session.register(counter('c'))
    const started = session.start('c')
    const stopped = session.stop('c')
    open()
    await Promise.all([started, stopped])
    expect(session.state('c')).toBe('stopped')
    expect(counters.log).toEqual(['start c', 'stop c'])
    expect(brief(events)).toEqual(['created c', 'starting c', 'stopped c'])
  })
})

describe('execute', () => {
  it('answers the result of a node run as a one-step graph', async () => {
    const { session } = withCounters()
    session.register(fn('double', (ctx) => Number(ctx.input) * 2))
    expect(await session.execute('double', 21)).toBe(42)
  })

  it('answers the results of a graph by step id, refs looked up in the session', async () => {
    const { session } = withCounters()
    session.register(fn('double', (ctx) => Number(ctx.input) * 2))
    session.register(
      pipe(
        graph('g'),
        addStepRef('a', 'double'),
        addStep({
          id: 'b',
          node: fn('inc', (ctx) => Number(ctx.upstream.a) + 1),
          dependsOn: ['a'],
        }),
      ),
    )
    expect(await session.execute('g', 5)).toEqual({ a: 10, b: 11 })
  })

  it('starts a created persistent node first, and the nodes a graph refers to', async () => {
    const { session, counters } = withCounters()
    session.register(counter('c'))
    session.register(counter('d'))
    session.register(pipe(graph('g'), addStepRef('use', 'd')))
    expect(await session.execute('c', 'x')).toEqual(['x'])
    await session.execute('g', 'y')
    expect(counters.log).toEqual(['start c', 'execute c', 'start d', 'execute d'])
    expect(session.state('d')).toBe('ready')
  })

  it('is busy while it runs, and ready after, once however many runs overlap', async () => {
    const gates: (() => void)[] = []
    const { session, events } = withCounters({
      executeGate: () => new Promise<void>((resolve) => gates.push(resolve)),
    })
    session.register(counter('c'))
    await session.start()
    const runs = [session.execute('c', 1), session.execute('c', 2)]
    await new Promise((resolve) => setImmediate(resolve))
    expect(session.state('c')).toBe('busy')
    for (const open of gates) open()
    await Promise.all(runs)
    expect(session.state('c')).toBe('ready')
    expect(brief(events).slice(3)).toEqual(['busy c', 'ready c'])
  })

  it('marks a ready persistent node busy while a graph step runs it', async () => {
    const gates: (() => void)[] = []
    const { session } = withCounters({
      executeGate: () => new Promise<void>((resolve) => gates.push(resolve)),
    })
    session.register(counter('c'))
    session.register(pipe(graph('g'), addStepRef('use', 'c')))
    await session.start()
    const done = session.execute('g', 1)
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve))
    expect([session.state('g'), session.state('c')]).toEqual(['busy', 'busy'])
    gates[0]!()
    await done
    expect([session.state('g'), session.state('c')]).toEqual(['ready', 'ready'])
  })

  it('tells busy before each attempt and ready after it, across a retry, in step with the run events', async () => {
    let calls = 0
    const flaky = {
      kind: 'flaky',
      start: () => Promise.resolve(),
      execute: () => {
        if (++calls === 1) throw new Error('once')
        return 'ok'
      },
    }
    const seen: string[] = []
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), flaky),
      onEvent: (e) => seen.push(`${e.type} ${e.name}`),
    })
    session.register(makeNode({ id: 'f', kind: 'flaky', persistent: true, metadata: {} }))
    session.register(
      pipe(graph('g'), addStepRef('use', 'f', { onError: retry({ count: 1, delayMs: 0 }) })),
    )
    await session.start()
    seen.length = 0
    await session.execute('g', null, {
      onEvent: (e) => {
        if (e.type.startsWith('step_')) seen.push(e.type)
      },
    })
    expect(seen).toEqual([
      'busy g',
      'busy f',
      'step_start',
      'ready f',
      'step_error',
      'busy f',
      'step_start',
      'ready f',
      'step_complete',
      'ready g',
    ])
  })

  it('keeps the handle that a persistent node started on, hands it to its steps and to stop', async () => {
    const seen: unknown[] = []
    const stopped: unknown[] = []
    const held = {
      kind: 'held',
      start: (node: { id: string }) => Promise.resolve({ pid: 42, node: node.id }),
      stop: (_node: unknown, ctx: { live: unknown }) => {
        stopped.push(ctx.live)
        return Promise.resolve()
      },
      execute: (_node: unknown, ctx: { live?: unknown }) => {
        seen.push(ctx.live)
        return 'ok'
      },
    }
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), held),
    })
    session.register(makeNode({ id: 'h', kind: 'held', persistent: true, metadata: {} }))
    session.register(fn('f', () => 1))
    expect(session.live('h')).toBeUndefined()
    await session.start()
    const handle = session.live('h')
    expect(handle).toEqual({ pid: 42, node: 'h' })
    expect([session.live('f'), session.live('nope')]).toEqual([undefined, undefined])
    await session.execute('h', null)
    const g = pipe(graph('g'), addStepRef('one', 'h'))
    await run(g, { interpreters: session.interpreters, session })
    expect(seen).toEqual([handle, handle])
    expect(seen[1]).toBe(handle)
    // A wrapper keeping the interpreter's start (a recorder) runs on the session's handle;
    // an interpreter with a start of its own gets a handle its run starts and stops.
    const wrapped = { ...held, execute: held.execute }
    await run(g, { interpreters: interpreters(...defaultInterpreters.values(), wrapped), session })
    const other = { ...held, start: () => Promise.resolve({ pid: 7 }) }
    await run(g, { interpreters: interpreters(...defaultInterpreters.values(), other), session })
    expect(seen.slice(2)).toEqual([handle, { pid: 7 }])
    expect(seen[2]).toBe(handle)
    expect(stopped).toEqual([{ pid: 7 }])
    stopped.length = 0
    await session.stop('h')
    expect(stopped).toEqual([handle])
    expect(stopped[0]).toBe(handle)
    expect(session.live('h')).toBeUndefined()
  })

  it('starts a registered node on the first use by a run, and keeps it up for the runs after', async () => {
    const log: string[] = []
    let n = 0
    const held = {
      kind: 'held',
      start: () => {
        log.push('start')
        return Promise.resolve(++n)
      },
      stop: (_node: unknown, ctx: { live: unknown }) => {
        log.push(`stop ${String(ctx.live)}`)
        return Promise.resolve()
      },
      execute: (_node: unknown, ctx: { live?: unknown }) => {
        log.push(`execute ${String(ctx.live)}`)
        return 'ok'
      },
    }
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), held),
    })
    session.register(makeNode({ id: 'h', kind: 'held', persistent: true, metadata: {} }))
    const g = pipe(
      graph('g'),
      addStepRef('one', 'h'),
      addStepRef('two', 'h', { dependsOn: ['one'] }),
    )
    const states: string[] = []
    const events = session.events()
    const busy = (async () => {
      for await (const e of events) if (e.type !== 'lagged') states.push(e.type)
    })()
    await run(g, { interpreters: session.interpreters, session })
    await run(g, { interpreters: session.interpreters, session })
    expect(log).toEqual(['start', 'execute 1', 'execute 1', 'execute 1', 'execute 1'])
    expect([session.state('h'), session.live('h')]).toEqual(['ready', 1])
    await session.close()
    await busy
    expect(log.at(-1)).toBe('stop 1')
    expect(states.slice(0, 3)).toEqual(['starting', 'ready', 'busy'])
    expect(states.at(-1)).toBe('stopped')
  })

  it('leaves a node that is not registered to the run, which starts it and stops it as it ends', async () => {
    const log: string[] = []
    const held = {
      kind: 'held',
      start: () => Promise.resolve('h'),
      stop: () => {
        log.push('stop')
        return Promise.resolve()
      },
      execute: (_node: unknown, ctx: { live?: unknown }) => ctx.live,
    }
    const session = createSession({
      interpreters: interpreters(...defaultInterpreters.values(), held),
    })
    const inline = makeNode({ id: 'inline', kind: 'held', persistent: true, metadata: {} })
    const g = pipe(graph('g'), addStep({ id: 'one', node: inline }))
    const { results } = await run(g, { interpreters: session.interpreters, session })
    expect([results.one, log, session.has('inline')]).toEqual(['h', ['stop'], false])
    await session.close()
  })

  it("rejects with the node's own error, not the runtime's StepFailed", async () => {
    const { session } = withCounters()
    const boom = new Error('boom')
    session.register(
      fn('bad', () => {
        throw boom
      }),
    )
    await expect(session.execute('bad', null)).rejects.toBe(boom)
    expect(session.state('bad')).toBe('ready')
  })

  it("rejects with the run's error when the run itself stops", async () => {
    const { session } = withCounters()
    session.register(
      fn(
        'slow',
        (ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              reject(ctx.signal.reason as Error)
            })
          }),
      ),
    )
    const controller = new AbortController()
    const done = session.execute('slow', null, { signal: controller.signal })
    controller.abort(new Error('enough'))
    await expect(done).rejects.toBeInstanceOf(Cancelled)
  })

  const waitsForAbort = (id: string) =>
    fn(
      id,
      (ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reject(ctx.signal.reason as Error)
          })
        }),
    )

  it('stops the executes in progress on a node with interrupt, each rejecting with the reason', async () => {
    const { session } = withCounters()
    session.register(waitsForAbort('slow'))
    session.register(fn('other', () => 1))
    expect(session.interrupt('slow', new Error('none running'))).toBe(0)
    const why = new Error('enough')
    const runs = [session.execute('slow', null), session.execute('slow', null)]
    await new Promise((resolve) => setImmediate(resolve))
    expect(session.interrupt('other', why)).toBe(0)
    expect(session.interrupt('slow', why)).toBe(2)
    for (const r of runs) await expect(r).rejects.toBe(why)
    expect(session.state('slow')).toBe('ready')
  })

  it('rejects with ExecuteTimeout past timeoutMs, and the node is ready again', async () => {
    const { session } = withCounters()
    session.register(waitsForAbort('slow'))
    const e = await session.execute('slow', null, { timeoutMs: 20 }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ExecuteTimeout)
    expect(e).toMatchObject({ nodeName: 'slow', timeoutMs: 20 })
    expect(session.state('slow')).toBe('ready')
    expect(
      await session
        .execute('slow', null, { timeoutMs: 20, signal: AbortSignal.abort() })
        .catch((x: unknown) => x),
    ).toBeInstanceOf(Cancelled)
  })

  it('passes run events to onEvent', async () => {
    const { session } = withCounters()
    session.register(fn('one', () => 1))
    const seen: RunEvent['type'][] = []
    await session.execute('one', null, { onEvent: (e) => seen.push(e.type) })
    expect(seen).toEqual(['graph_started', 'step_start', 'step_complete', 'graph_completed'])
  })

  it('refuses a stopped node with NodeStopped and an unknown one with UnknownNode', async () => {
    const { session } = withCounters()
    session.register(counter('c'))
    await session.stop('c')
    await expect(session.execute('c', 1)).rejects.toMatchObject({
      _tag: 'NodeStopped',
      nodeName: 'c',
      state: 'stopped',
    })
    await expect(session.execute('nope', 1)).rejects.toBeInstanceOf(UnknownNode)
  })
})

describe('events', () => {
  it('gives each subscriber the events from its subscription on, until the session closes', async () => {
    const { session } = withCounters()
    session.register(counter('early'))
    const first = collect(session.events())
    session.register(counter('c'))
    const second = collect(session.events())
    await session.start('c')
    await session.close()
    expect(brief(await first)).toEqual([
      'created c',
      'starting c',
      'ready c',
      'stopped early',
      'stopped c',
    ])
    expect(brief(await second)).toEqual(['starting c', 'ready c', 'stopped early', 'stopped c'])
  })

  it('unsubscribes a reader that leaves early', async () => {
    const { session } = withCounters()
    const events = session.events()
    session.register(counter('a'))
    session.register(counter('b'))
    for await (const e of events) {
      expect(e).toMatchObject({ type: 'created', name: 'a' })
      break
    }
    expect(await events.next()).toEqual({ done: true, value: undefined })
  })

  it('tells a slow reader how many events it missed, then gives the newest it kept', async () => {
    const { session } = withCounters()
    const events = session.events({ buffer: 3 })
    for (const name of ['a', 'b', 'c', 'd', 'e']) session.register(counter(name))
    const read: SessionEvent[] = []
    for (let i = 0; i < 4; i++) read.push((await events.next()).value as SessionEvent)
    expect(brief(read)).toEqual(['lagged 2', 'created c', 'created d', 'created e'])
    await session.close()
    expect(brief(await collect(events))).toEqual([
      'lagged 2',
      'stopped c',
      'stopped d',
      'stopped e',
    ])
  })

  it('keeps a reader that never reads under a fixed heap while 10⁶ events are published', async () => {
    const session = createSession({ clock: fakeClock({ start: 0 }) })
    const idle = session.events()
    const node = counter('n')
    const heapBefore = process.memoryUsage().heapUsed
    for (let i = 0; i < 500_000; i++) {
      session.register(node)
      session.unregister('n')
    }
    const grown = process.memoryUsage().heapUsed - heapBefore
    // Unbounded, 10⁶ kept events take well over 100 MB; the buffer keeps 1024.
    expect(grown).toBeLessThan(48 * 2 ** 20)
    const first = await idle.next()
    expect(first.value).toMatchObject({ type: 'lagged', dropped: 1_000_000 - 1024 })
    await idle.return?.()
    await session.close()
  })

  it('refuses a buffer that is not a positive integer', () => {
    const { session } = withCounters()
    for (const buffer of [0, -1, 1.5, NaN]) {
      expect(() => session.events({ buffer })).toThrow(/buffer must be a positive integer/)
    }
  })

  it('ends at once for a subscription made after the close', async () => {
    const { session } = withCounters()
    await session.close()
    expect(await collect(session.events())).toEqual([])
  })
})

describe('info and close', () => {
  it('reports the nodes with their states, as JSON', async () => {
    const { session } = withCounters()
    session.register(counter('c'))
    session.register(fn('f', () => 1))
    await session.start('c')
    const json = JSON.parse(JSON.stringify(session)) as unknown
    expect(json).toEqual({
      id: session.id,
      name: 'test',
      tags: [],
      metadata: {},
      created_at: '2025-01-01T00:00:00.000Z',
      nodes: [
        { id: 'c', type: 'counter', state: 'ready', metadata: {} },
        { id: 'f', type: 'function', state: 'created', metadata: {} },
      ],
    })
  })

  it('stops everything on close, then refuses to register, start or execute', async () => {
    const { session, counters } = withCounters()
    session.register(counter('c'))
    session.register(pipe(graph('g'), addStep({ id: 's', node: counter('inside') })))
    await session.start()
    await Promise.all([session.close(), session.close()])
    expect(counters.log.filter((l) => l.startsWith('stop')).sort()).toEqual([
      'stop c',
      'stop inside',
    ])
    expect(session.closed).toBe(true)
    expect(() => session.register(counter('d'))).toThrow(SessionClosed)
    await expect(session.execute('c', 1)).rejects.toBeInstanceOf(SessionClosed)
    await expect(session.start()).rejects.toBeInstanceOf(SessionClosed)
  })
})
