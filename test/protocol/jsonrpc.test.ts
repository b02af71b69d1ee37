import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  errorLine,
  notificationLine,
  readMessage,
  requestLine,
  resultLine,
} from '../../src/protocol/index.js'

describe('readMessage', () => {
  it('reads a request, a notification and defaults params to {}', () => {
    expect(
      readMessage('{"jsonrpc":"2.0","id":"a","method":"GET_NODE","params":{"nodeId":"x"}}'),
    ).toEqual({
      _tag: 'Request',
      id: 'a',
      method: 'GET_NODE',
      params: { nodeId: 'x' },
    })
    expect(readMessage('{"jsonrpc":"2.0","method":"CANCEL_REQUEST","params":{"id":1}}')).toEqual({
      _tag: 'Notification',
      method: 'CANCEL_REQUEST',
      params: { id: 1 },
    })
  })

  it('keeps the id of an invalid request when it could read one', () => {
    expect(readMessage('{"jsonrpc":"1.0","id":7,"method":"PING"}')).toMatchObject({
      _tag: 'Invalid',
      id: 7,
      error: { code: -32600 },
    })
    expect(readMessage('{"jsonrpc":"2.0","id":null,"method":"PING"}')).toMatchObject({ id: null })
  })

  it('reads back what requestLine writes, for any id, method and params (law)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.integer()),
        fc.string({ minLength: 1 }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (id, method, params) => {
          const sent: unknown = JSON.parse(JSON.stringify(params)) // as JSON carries it (-0 is 0)
          expect(readMessage(requestLine(id, method, params))).toEqual({
            _tag: 'Request',
            id,
            method,
            params: sent,
          })
        },
      ),
    )
  })

  it('never throws on any string (law)', () => {
    fc.assert(
      fc.property(fc.string(), (line) => {
        const m = readMessage(line)
        expect(['Request', 'Notification', 'Invalid']).toContain(m._tag)
      }),
    )
  })
})

describe('line writers', () => {
  it('write JSON-RPC 2.0 responses and notifications', () => {
    expect(JSON.parse(resultLine(1, { pong: true }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { pong: true },
    })
    expect(JSON.parse(resultLine(2, undefined))).toEqual({ jsonrpc: '2.0', id: 2, result: null })
    expect(JSON.parse(errorLine(null, { code: -32700, message: 'm' }))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'm' },
    })
    expect(JSON.parse(notificationLine('EVENT', { subscription: 's1' }))).toEqual({
      jsonrpc: '2.0',
      method: 'EVENT',
      params: { subscription: 's1' },
    })
  })
})
