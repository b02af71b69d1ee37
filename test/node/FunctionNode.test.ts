import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import type { NodeContext } from '../../src/node/Interpreter.js'
import { fn, functionNode, isFunctionNode } from '../../src/node/FunctionNode.js'
import { makeNode } from '../../src/node/Node.js'

const ctx = (input: unknown): NodeContext => ({ input }) as NodeContext

describe('fn', () => {
  it('builds a frozen, non-persistent function node', async () => {
    const double = fn('double', (c: NodeContext<number>) => c.input * 2)
    expect(double).toMatchObject({
      id: 'double',
      kind: 'function',
      persistent: false,
      metadata: {},
    })
    expect(Object.isFrozen(double)).toBe(true)
    expect(double.fn(ctx(4) as NodeContext<number>)).toBe(8)
    const later = fn('later', (c) => Promise.resolve(c.input))
    await expect(later.fn(ctx('x'))).resolves.toBe('x')
  })

  it('keeps the metadata given', () => {
    expect(fn('f', () => 1, { metadata: { team: 'a' } }).metadata).toEqual({ team: 'a' })
  })

  it('rejects a bad id or a missing function, naming the constructor used', () => {
    expect(() => fn('bad id', () => 1)).toThrow(UsageError)
    expect(() => fn('bad id', () => 1)).toThrow(/^fn\(\): the node id: "bad id"/)
    expect(() => functionNode('', () => 1)).toThrow(/^functionNode\(\)/)
    expect(() => fn('f', 'nope' as never)).toThrow(/the work must be a function, got string/)
  })
})

describe('isFunctionNode', () => {
  it('is true for function nodes only', () => {
    expect(isFunctionNode(fn('f', () => 1))).toBe(true)
    expect(
      isFunctionNode(makeNode({ id: 'b', kind: 'bash', persistent: false, metadata: {} })),
    ).toBe(false)
    expect(
      isFunctionNode(makeNode({ id: 'b', kind: 'function', persistent: false, metadata: {} })),
    ).toBe(false)
  })
})
