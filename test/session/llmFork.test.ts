import { pipe } from 'fp-ts/lib/function.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  addStepRef,
  createSession,
  fork,
  forkGraph,
  graph,
  type Graph,
  llm,
  llmInterpreter,
  messages,
} from 'nerve-agents'
import { interpreters } from 'nerve-agents/core'
import { conversationOf, forkOp, NameTaken, type SessionEvent } from 'nerve-agents/session'
import { fakeClock, scriptedProvider } from 'nerve-agents/testing'

const setup = () => {
  const model = scriptedProvider([(r) => `seen ${r.messages.length}`], { loop: true })
  const session = createSession({
    clock: fakeClock({ start: Date.UTC(2026, 10, 22) }),
    interpreters: interpreters(llmInterpreter({ providers: model })),
  })
  session.register(llm('dev', { system: 'You help.' }))
  return { session, model }
}

const count = (s: ReturnType<typeof setup>['session'], name: string) =>
  messages(conversationOf(s, name)!).length

describe('forking an LLM node in a session', () => {
  it('registers a copy sharing the head, with the fork metadata, and tells of it', async () => {
    const { session } = setup()
    await session.execute('dev', 'hello')
    const events: SessionEvent[] = []
    const listening = (async () => {
      for await (const e of session.events()) events.push(e)
    })()
    const copy = await fork(session, 'dev', 'dev-2')
    expect(copy.metadata).toEqual({
      forked_from: 'dev',
      fork_time: '2026-11-22T00:00:00.000Z',
      fork_message_count: 2,
    })
    expect(conversationOf(session, 'dev-2')).toBe(conversationOf(session, 'dev'))
    expect(session.state('dev-2')).toBe('ready')
    await session.close()
    await listening
    expect(events[0]).toMatchObject({ type: 'forked', name: 'dev-2', from: 'dev' })
  })

  it('forks from an earlier message, and refuses a name in use', async () => {
    const { session } = setup()
    await session.execute('dev', 'one')
    await session.execute('dev', 'two')
    await fork(session, 'dev', 'early', { at: 2 })
    expect(await session.execute('early', 'again')).toBe('seen 3')
    await expect(fork(session, 'dev', 'early')).rejects.toBeInstanceOf(NameTaken)
    await session.close()
  })

  it('lets a graph fork a node under {run_id} and use the fork by name', async () => {
    const { session } = setup()
    await session.execute('dev', 'base')
    session.register(
      pipe(
        graph('trial'),
        addStep({
          id: 'branch',
          node: forkOp('branch', { source: 'dev', target: 'dev-{run_id}' }),
        }),
        addStepRef('ask', 'dev-{run_id}', { dependsOn: ['branch'], input: 'in the branch' }),
      ),
    )
    const results = (await session.execute('trial', null)) as {
      branch: { name: string }
      ask: string
    }
    expect(results.ask).toBe('seen 3')
    expect(count(session, results.branch.name)).toBe(4)
    expect(count(session, 'dev')).toBe(2)
    await session.close()
  })

  it('deep-forks a graph: every LLM node it uses gets its own copy', async () => {
    const { session } = setup()
    session.register(llm('critic'))
    const g = session.register<Graph>(
      pipe(
        graph('review'),
        addStepRef('draft', 'dev', { input: 'draft it' }),
        addStepRef('judge', 'critic', { dependsOn: ['draft'], input: 'judge it' }),
      ),
    )
    await session.execute('review', null)
    const copy = await forkGraph(session, 'review', 'b-')
    expect(copy.id).toBe('b-review')
    await session.execute('b-review', null)
    expect(count(session, 'b-dev')).toBe(4)
    expect(count(session, 'b-critic')).toBe(4)
    expect(count(session, 'dev')).toBe(2)
    expect(g.id).toBe('review')
    await session.close()
  })

  it('keeps forks independent: executing on one never changes what another sees', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 15 }),
        async (ops) => {
          const { session } = setup()
          await session.start('dev')
          const names = ['dev']
          const expected = new Map([['dev', 0]])
          for (const [pick, isFork] of ops) {
            const name = names[pick % names.length]!
            if (isFork) {
              const copy = `n${names.length}`
              await fork(session, name, copy)
              names.push(copy)
              expected.set(copy, expected.get(name)!)
            } else {
              await session.execute(name, 'more')
              expected.set(name, expected.get(name)! + 2)
            }
          }
          const ok = names.every((n) => count(session, n) === expected.get(n))
          await session.close()
          return ok
        },
      ),
      { numRuns: 50 },
    )
  })
})
