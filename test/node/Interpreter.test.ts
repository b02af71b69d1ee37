import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { fn, type FunctionNode } from '../../src/node/FunctionNode.js'
import {
  type ChunkStream,
  type Interpreter,
  interpreters,
  type NodeContext,
} from '../../src/node/Interpreter.js'

const functions: Interpreter<FunctionNode> = {
  kind: 'function',
  execute: (node, ctx) => node.fn(ctx),
}

describe('interpreters', () => {
  it('keys interpreters by kind', () => {
    const streams: Interpreter = {
      kind: 'stream',
      async *executeStream(): ChunkStream<string> {
        yield 'a'
        await Promise.resolve()
        return 'done'
      },
    }
    const r = interpreters(functions, streams)
    expect(r.get('function')).toBe(functions)
    expect(r.get('stream')).toBe(streams)
    expect([...r.keys()]).toEqual(['function', 'stream'])
  })

  it('rejects two interpreters for one kind and bad kinds', () => {
    expect(() => interpreters(functions, { kind: 'function' })).toThrow(UsageError)
    expect(() => interpreters(functions, { kind: 'function' })).toThrow(
      /two interpreters for kind "function"/,
    )
    expect(() => interpreters({ kind: '' })).toThrow(
      /the kind of argument 0: "" is not a valid name/,
    )
    expect(() => interpreters(null as never)).toThrow(/argument 0 is not an interpreter/)
  })

  it('lets a stream return the result after its chunks', async () => {
    const stream: Interpreter = {
      kind: 'count',
      async *executeStream() {
        yield 1
        yield 2
        await Promise.resolve()
        return 3
      },
    }
    const it = stream.executeStream!(
      fn('n', () => 0),
      {} as NodeContext,
    )[Symbol.asyncIterator]()
    const seen: unknown[] = []
    for (let r = await it.next(); ; r = await it.next()) {
      seen.push(r.value)
      if (r.done === true) break
    }
    expect(seen).toEqual([1, 2, 3])
  })
})
