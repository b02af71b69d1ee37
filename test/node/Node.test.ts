import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { isNode, makeNode } from '../../src/node/Node.js'

describe('makeNode', () => {
  it('returns the description frozen deeply, with its kind fields', () => {
    const env = { PATH: '/bin' }
    const n = makeNode({ id: 'ls', kind: 'bash', persistent: false, metadata: {}, env })
    expect(n.env).toBe(env)
    expect(Object.isFrozen(n)).toBe(true)
    expect(Object.isFrozen(env)).toBe(true)
  })

  it('rejects a bad id or kind with a UsageError naming the value', () => {
    const base = { id: 'ok', kind: 'bash', persistent: false, metadata: {} }
    expect(() => makeNode({ ...base, id: '' })).toThrow(UsageError)
    expect(() => makeNode({ ...base, id: '' })).toThrow(/the node id: "" is not a valid name/)
    expect(() => makeNode({ ...base, kind: 'has space' })).toThrow(/the node kind: "has space"/)
  })

  it('rejects a non-boolean persistent flag and missing metadata', () => {
    const base = { id: 'ok', kind: 'bash', persistent: false, metadata: {} }
    expect(() => makeNode({ ...base, persistent: 'yes' as unknown as boolean })).toThrow(
      /persistent must be a boolean/,
    )
    expect(() => makeNode({ ...base, metadata: null as never })).toThrow(
      /metadata must be an object/,
    )
    expect(() => makeNode(null as never)).toThrow(/must be an object, got null/)
  })

  it('names the calling constructor in its errors', () => {
    expect(() => makeNode({ id: '', kind: 'k', persistent: false, metadata: {} }, 'bash')).toThrow(
      /^bash\(\)/,
    )
  })
})

describe('isNode', () => {
  it('recognises node-shaped values only', () => {
    expect(isNode({ id: 'a', kind: 'k', persistent: true, metadata: {} })).toBe(true)
    expect(isNode({ id: 'a', kind: 'k', persistent: true })).toBe(false)
    expect(isNode({ id: 1, kind: 'k', persistent: true, metadata: {} })).toBe(false)
    expect(isNode(null)).toBe(false)
    expect(isNode('a')).toBe(false)
  })
})
