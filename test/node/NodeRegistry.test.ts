import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { nodeRegistry } from '../../src/node/NodeRegistry.js'
import { fn } from '../../src/node/FunctionNode.js'

describe('nodeRegistry', () => {
  it('finds nodes by id and nothing else', () => {
    const a = fn('a', () => 1)
    const b = fn('b', () => 2)
    const r = nodeRegistry(a, b)
    expect(r.get('a')).toBe(a)
    expect(r.get('b')).toBe(b)
    expect(r.get('c')).toBeUndefined()
    expect(r.get('toString')).toBeUndefined()
  })

  it('accepts the same node twice but not two nodes with one id', () => {
    const a = fn('a', () => 1)
    expect(nodeRegistry(a, a).get('a')).toBe(a)
    expect(() =>
      nodeRegistry(
        a,
        fn('a', () => 2),
      ),
    ).toThrow(UsageError)
    expect(() =>
      nodeRegistry(
        a,
        fn('a', () => 2),
      ),
    ).toThrow(/two different nodes have the id "a"/)
  })
})
