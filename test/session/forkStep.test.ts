import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  bash,
  defaultInterpreters,
  graph,
  run,
  UsageError,
} from '../../src/index.js'
import { interpreters, nodeRegistry } from '../../src/core.js'
import { StepFailed } from '../../src/runtime/index.js'
import { fakeClock } from '../../src/testing/index.js'
import { forkInterpreter, forkOp, isForkNode } from '../../src/session/forkStep.js'
import { createSession } from '../../src/session/createSession.js'
import { counter, counterInterpreter } from './kit.js'

const withCounters = () => {
  const counters = counterInterpreter()
  const session = createSession({
    interpreters: interpreters(...defaultInterpreters.values(), counters),
    clock: fakeClock({ start: 1234 }),
  })
  return { session, counters }
}

describe('forkOp', () => {
  it('builds a frozen, non-persistent fork node', () => {
    const n = forkOp('branch', { source: 'dev', target: 'dev-{run_id}' })
    expect(n).toEqual({
      id: 'branch',
      kind: 'fork',
      persistent: false,
      metadata: {},
      source: 'dev',
      target: 'dev-{run_id}',
    })
    expect(Object.isFrozen(n)).toBe(true)
    expect(isForkNode(n)).toBe(true)
  })

  it('refuses a source or target that is not a name once filled in', () => {
    expect(() => forkOp('f', { source: 'dev', target: 'dev {run_id}' })).toThrow(
      /target must be a name/,
    )
    expect(() => forkOp('f', { source: '', target: 'x' })).toThrow(UsageError)
    expect(() => forkOp('f', { source: 'dev', target: '{nope}' })).toThrow(UsageError)
  })
})

describe('a fork step in a graph', () => {
  it('forks under the run id, and a later step uses the fork by name', async () => {
    const { session, counters } = withCounters()
    session.register(counter('dev'))
    await session.execute('dev', 'history')
    session.register(
      pipe(
        graph('trial'),
        addStep({ id: 'fork', node: forkOp('fork', { source: 'dev', target: 'dev-{run_id}' }) }),
        addStepRef('use', 'dev-{run_id}', { dependsOn: ['fork'], input: 'try' }),
      ),
    )
    const results = (await session.execute('trial', null)) as {
      fork: { name: string }
      use: readonly unknown[]
    }
    expect(results.fork.name).toMatch(/^dev-[0-9a-f-]{36}$/)
    expect(results.use).toEqual(['history', 'try'])
    expect(session.cell('dev').get()).toEqual(['history'])
    expect(session.get(results.fork.name)?.metadata).toMatchObject({ forked_from: 'dev' })
    expect(counters.log).toContain(`fork dev ${results.fork.name}`)
  })

  it('fills {timestamp} with the start of the run by the session clock', async () => {
    const { session } = withCounters()
    session.register(counter('dev'))
    session.register(
      pipe(
        graph('g'),
        addStep({ id: 'f', node: forkOp('f', { source: 'dev', target: 'dev-at-{timestamp}' }) }),
      ),
    )
    expect(await session.execute('g', null)).toEqual({ f: { name: 'dev-at-1234' } })
    expect(session.has('dev-at-1234')).toBe(true)
  })

  it('forks a bash node that the next step runs', async () => {
    const session = createSession()
    session.register(bash('greet', { command: 'echo "hi $WHO"', env: { WHO: 'fork' } }))
    session.register(
      pipe(
        graph('g'),
        addStep({ id: 'f', node: forkOp('f', { source: 'greet', target: 'greet-{run_id}' }) }),
        addStepRef('run', 'greet-{run_id}', { dependsOn: ['f'] }),
      ),
    )
    const results = (await session.execute('g', null)) as { run: { stdout: string } }
    expect(results.run.stdout).toBe('hi fork\n')
    expect(session.size).toBe(3)
    await session.close()
  })

  it('fails the step, naming the graph to run, when the registry is not a session', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'f', node: forkOp('f', { source: 'a', target: 'b' }) }),
    )
    const error = await run(g, {
      interpreters: interpreters(forkInterpreter),
      session: nodeRegistry(counter('a')),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StepFailed)
    expect((error as StepFailed).cause).toBeInstanceOf(UsageError)
    expect(String((error as StepFailed).cause)).toMatch(/session\.execute/)
  })

  it('forks through any registry that has the fork capability, not only a Session', async () => {
    const asked: [string, string][] = []
    const source = counter('a')
    const g = pipe(
      graph('g'),
      addStep({ id: 'f', node: forkOp('f', { source: 'a', target: 'b-{run_id}' }) }),
    )
    const result = await run(g, {
      interpreters: interpreters(forkInterpreter),
      runId: 'r1',
      session: {
        get: (id) => (id === 'a' ? source : undefined),
        fork: (name, newName) => {
          asked.push([name, newName])
          return Promise.resolve(source)
        },
      },
    })
    expect(result.results).toEqual({ f: { name: 'b-r1' } })
    expect(asked).toEqual([['a', 'b-r1']])
  })

  it('fails the step with NameTaken when the target exists', async () => {
    const { session } = withCounters()
    session.register(counter('dev'))
    session.register(counter('taken'))
    session.register(
      pipe(graph('g'), addStep({ id: 'f', node: forkOp('f', { source: 'dev', target: 'taken' }) })),
    )
    await expect(session.execute('g', null)).rejects.toMatchObject({
      _tag: 'StepFailed',
      cause: { _tag: 'NameTaken', nodeName: 'taken' },
    })
  })
})
