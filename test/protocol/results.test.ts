import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { describeError, errorPath, methods, resultCodecs } from '../../src/protocol/index.js'

const failures = (method: keyof typeof resultCodecs, u: unknown): string[] => {
  const r = resultCodecs[method].decode(u)
  return E.isLeft(r) ? r.left.map(errorPath) : []
}

describe('the result codecs', () => {
  it('have one codec for every command', () => {
    expect(Object.keys(resultCodecs).sort()).toEqual([...methods].sort())
  })

  it('take a well-formed answer as it is, extra fields included', () => {
    const run = {
      runId: 'r1',
      sessionId: 'default',
      graphId: 'g',
      state: 'completed',
      startedAt: '2026-01-01T00:00:00.000Z',
      trace: {
        runId: 'r1',
        graphId: 'g',
        status: 'completed',
        durationMs: 1,
        steps: [],
      },
      addedLater: 1,
    }
    expect(resultCodecs.GET_RUN.decode(run)).toEqual(E.right(run))
  })

  it('reject a malformed answer at the path where it differs', () => {
    expect(failures('PING', { pong: false })).toEqual(['/pong'])
    expect(
      failures('LIST_NODES', {
        nodes: [
          { id: 'a', type: 'bash', state: 'ready', metadata: {} },
          { id: 'b', type: 'bash', state: 'asleep', metadata: {} },
        ],
      }),
    ).toEqual(['/nodes/1/state'])
    const step = {
      id: 's',
      stepId: 's',
      path: ['s'],
      nodeId: 'n',
      kind: 'function',
      status: 'completed',
      output: 1,
      attempts: 1,
      durationMs: 1,
      tokens: 0,
      cost: 0,
      parents: [],
      nested: { runId: 'r', graphId: 'g', status: 'completed', durationMs: 1, steps: [{}] },
    }
    const trace = { runId: 'r', graphId: 'g', status: 'completed', durationMs: 1, steps: [step] }
    expect(
      failures('GET_RUN', {
        runId: 'r',
        sessionId: 'default',
        graphId: 'g',
        state: 'completed',
        startedAt: 'x',
        trace,
      }),
    ).toContain('/trace/steps/0/nested/steps/0/id')
  })

  it('say what was expected and what came', () => {
    const r = resultCodecs.WRITE_DATA.decode({ written: 'all' })
    expect(E.isLeft(r) && r.left.map(describeError)).toEqual([
      '/written: expected number, got "all"',
    ])
  })
})
