import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import {
  codeName,
  describeError,
  ErrorCode,
  errorPath,
  eventTypes,
  isMethod,
  methods,
  paramsCodecs,
  protocolError,
} from '../../src/protocol/index.js'

const errors = (method: keyof typeof paramsCodecs, params: unknown) => {
  const r = paramsCodecs[method].decode(params)
  return E.isLeft(r) ? r.left.map((e) => [errorPath(e), describeError(e)]) : []
}

describe('the params codecs', () => {
  it('cover every command of the issue, and nothing is a method by accident', () => {
    for (const m of [
      'PING',
      'CREATE_NODE',
      'EXECUTE_INPUT',
      'FORK_NODE',
      'EXECUTE_GRAPH',
      'SHUTDOWN',
    ]) {
      expect(methods).toContain(m)
    }
    expect(isMethod('toString')).toBe(false)
    expect(isMethod('EVENT')).toBe(false)
  })

  it('decode valid params as they are', () => {
    const p = { nodeId: 'sh', input: 'ls', parser: 'none', timeout: 500, sessionId: 'dev' }
    expect(paramsCodecs.EXECUTE_INPUT.decode(p)).toEqual(E.right(p))
    expect(paramsCodecs.FORK_NODE.decode({ sourceId: 'a', targetId: 'b', at: 0 })).toEqual(
      E.right({ sourceId: 'a', targetId: 'b', at: 0 }),
    )
  })

  it('name each bad value by its path: a missing key, a wrong type, a typo, a bad name', () => {
    expect(errors('CREATE_NODE', { kind: 'bash' })).toEqual([
      ['/nodeId', '/nodeId: expected Name, got nothing'],
    ])
    expect(errors('GET_BUFFER', { nodeId: 'a', lines: 1.5 })).toEqual([
      ['/lines', '/lines: expected Count, got 1.5'],
    ])
    expect(errors('PING', { x: 1 })).toEqual([['/x', '/x: is not a parameter of this command']])
    expect(errors('GET_NODE', { nodeId: '../etc' })[0]![0]).toBe('/nodeId')
    expect(errors('GET_HISTORY', { nodeId: 'a', op: ['send', 'nope'] }).map(([p]) => p)).toContain(
      '/op/1',
    )
    expect(errors('PING', 'text')).toEqual([['', 'params: expected PING, got "text"']])
  })

  it('leave an absent optional key out and take an explicit undefined as absent', () => {
    expect(paramsCodecs.LIST_NODES.decode({ sessionId: undefined })).toEqual(E.right({}))
  })
})

describe('errors and events', () => {
  it('give each code a name and rebuild an error reply as a ProtocolError', () => {
    expect(codeName(ErrorCode.InvalidParams)).toBe('InvalidParams')
    expect(codeName(12)).toBe('Error')
    const e = protocolError({
      code: -32602,
      message: 'bad',
      data: { tag: 'InvalidParams', path: '/x' },
    })
    expect([e.tag, e.path, e.code, e.message]).toEqual(['InvalidParams', '/x', -32602, 'bad'])
    expect(protocolError({ code: -32601, message: 'm' }).tag).toBe('MethodNotFound')
  })

  it('list the event types of the issue, LAGGED and SERVER_SHUTDOWN included', () => {
    expect(eventTypes).toEqual(
      expect.arrayContaining([
        'NODE_READY',
        'STEP_COMPLETED',
        'GRAPH_COMPLETED',
        'ERROR',
        'LAGGED',
        'SERVER_SHUTDOWN',
      ]),
    )
  })
})
