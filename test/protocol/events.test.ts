import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { EngineEventCodec, errorPath } from '../../src/protocol/index.js'

const time = '2026-01-01T00:00:00.000Z'
const paths = (u: unknown): string[] => {
  const r = EngineEventCodec.decode(u)
  return E.isLeft(r) ? [...new Set(r.left.map(errorPath))] : []
}

describe('the event codec', () => {
  it('takes every kind of event the engine sends, a network run event with its own fields', () => {
    const events = [
      { type: 'NODE_READY', time, sessionId: 's', nodeId: 'n', kind: 'bash', state: 'ready' },
      { type: 'OUTPUT_CHUNK', time, sessionId: 's', nodeId: 'n', chunk: 'hi' },
      {
        type: 'STEP_FAILED',
        time,
        sessionId: 's',
        runId: 'r',
        stepId: 'a',
        path: ['a'],
        attempt: 1,
        final: true,
        error: { tag: 'X', message: 'm' },
      },
      {
        type: 'RUN_NODE_RESPAWNED',
        time,
        sessionId: 's',
        runId: 'r',
        path: ['b'],
        nodeId: 'sh',
        kind: 'pty',
      },
      { type: 'ENVELOPE_DELIVERED', time, sessionId: 's', networkId: 'w', envelope: { id: 'e' } },
      { type: 'LAGGED', time, dropped: 3 },
      { type: 'SERVER_SHUTDOWN', time },
    ]
    for (const e of events) expect(EngineEventCodec.decode(e)).toEqual(E.right(e))
  })

  it('refuses an event of no known type, and a known one missing a field at that field', () => {
    expect(EngineEventCodec.is({ type: 'NODE_DREAMING', time })).toBe(false)
    expect(paths({ type: 'LAGGED', time, dropped: 'many' })).toContain('/dropped')
  })
})
