import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  EngineEventCodec,
  errorPath,
  paramsCodecs,
  resultCodecs,
} from '../../src/protocol/index.js'

const time = '2026-01-01T00:00:00.000Z'
const request = {
  id: 'approval-1',
  nodeId: 'cl',
  sessionId: 'default',
  action: 'Bash',
  target: 'echo hi > a.txt',
  command: 'echo hi > a.txt',
  reason: 'the agent asks before Bash runs',
  options: ['Yes', 'No'],
  time: 0,
}
const paths = (r: E.Either<readonly { context: unknown }[], unknown>): string[] =>
  E.isLeft(r) ? r.left.map((e) => errorPath(e as never)) : []

describe('the approval codecs', () => {
  it('name a request by its id alone, and still take the network form', () => {
    for (const p of [
      { requestId: 'approval-1' },
      { requestId: 'approval-1', networkId: 'team', by: 'ana', note: 'ok' },
      { requestId: 'approval-1', arguments: { path: 'b.txt' } },
    ]) {
      expect(paramsCodecs.APPROVE.decode(p)).toEqual(E.right(p))
    }
    expect(paths(paramsCodecs.DENY.decode({ networkId: 'team' }))).toEqual(['/requestId'])
    expect(paths(paramsCodecs.DENY.decode({ requestId: 'a', arguments: {} }))).toEqual([
      '/arguments',
    ])
  })

  it('take an approval event outside a network, and a network one with its network', () => {
    const events = [
      { type: 'APPROVAL_REQUESTED', time, sessionId: 'default', nodeId: 'cl', request },
      {
        type: 'APPROVAL_DECIDED',
        time,
        sessionId: 'default',
        nodeId: 'cl',
        decision: { request, decision: 'approved', by: 'policy', time: 1 },
      },
      {
        type: 'APPROVAL_REQUESTED',
        time,
        sessionId: 'default',
        networkId: 'team',
        request: { ...request, runId: 'team' },
      },
    ]
    for (const e of events) expect(EngineEventCodec.decode(e)).toEqual(E.right(e))
    expect(EngineEventCodec.is({ type: 'APPROVAL_REQUESTED', time, sessionId: 's' })).toBe(false)
  })

  it('decode what LIST_APPROVALS answers', () => {
    expect(resultCodecs.LIST_APPROVALS.decode({ pending: [request] })).toEqual(
      E.right({ pending: [request] }),
    )
    expect(
      paths(resultCodecs.LIST_APPROVALS.decode({ pending: [{ ...request, risk: 'extreme' }] })),
    ).toEqual(['/pending/0/risk'])
  })
})
