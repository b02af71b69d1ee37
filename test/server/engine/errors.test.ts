import { describe, expect, it } from 'vitest'
import { ErrorCode, toWireError } from '../../../src/server/index.js'

describe('toWireError', () => {
  it('answers a plain RangeError or TypeError escaping a handler as an internal error, never a domain code', () => {
    for (const e of [
      new RangeError('Maximum call stack size exceeded'),
      new TypeError('x is not a function'),
    ]) {
      expect(toWireError(e)).toMatchObject({
        code: ErrorCode.InternalError,
        data: { tag: e.name },
      })
    }
  })

  it('keeps ExecutionFailed for a tagged failure of a node', () => {
    class BashFailed extends Error {
      readonly _tag = 'BashFailed'
    }
    expect(toWireError(new BashFailed('exit 1')).code).toBe(ErrorCode.ExecutionFailed)
  })
})
