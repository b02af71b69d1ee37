import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { bash, forkBash, isBashNode } from '../../src/node/BashNode.js'
import { fn } from '../../src/node/FunctionNode.js'

describe('bash', () => {
  it('builds a frozen, non-persistent bash node holding its configuration', () => {
    const node = bash('list', {
      command: 'ls -1',
      cwd: '/tmp',
      env: { LC_ALL: 'C' },
      timeoutMs: 500,
      allowFailure: true,
      maxOutputBytes: 100,
      metadata: { team: 'a' },
    })
    expect(node).toEqual({
      id: 'list',
      kind: 'bash',
      persistent: false,
      metadata: { team: 'a' },
      command: 'ls -1',
      cwd: '/tmp',
      env: { LC_ALL: 'C' },
      timeoutMs: 500,
      allowFailure: true,
      maxOutputBytes: 100,
    })
    expect(Object.isFrozen(node)).toBe(true)
    expect(Object.isFrozen(node.env)).toBe(true)
  })

  it('leaves out the options not given', () => {
    expect(Object.keys(bash('b'))).toEqual(['id', 'kind', 'persistent', 'metadata'])
  })

  it('rejects bad options with a UsageError naming the node and the option', () => {
    const cases: [unknown, RegExp][] = [
      [{ command: '  ' }, /node "b": command must be a non-blank string/],
      [{ cwd: 3 }, /cwd must be a non-empty string/],
      [{ env: { A: 1 } }, /env\.A must be a string, got 1/],
      [{ env: { 'A=B': 'x' } }, /env has "A=B", not a variable name/],
      [{ timeoutMs: 0 }, /timeoutMs must be a positive number/],
      [{ timeoutMs: Infinity }, /timeoutMs must be a positive number/],
      [{ allowFailure: 'yes' }, /allowFailure must be a boolean/],
      [{ maxOutputBytes: 1.5 }, /maxOutputBytes must be a non-negative integer/],
      [{ shell: 'zsh' }, /unknown option "shell"/],
      [null, /options must be an object, got null/],
    ]
    for (const [options, message] of cases) {
      expect(() => bash('b', options as never)).toThrow(UsageError)
      expect(() => bash('b', options as never)).toThrow(message)
    }
    expect(() => bash('not ok')).toThrow(/^bash\(\): the node id/)
  })
})

describe('isBashNode', () => {
  it('is true for bash nodes only', () => {
    expect(isBashNode(bash('b'))).toBe(true)
    expect(isBashNode(fn('f', () => 1))).toBe(false)
  })
})

describe('forkBash', () => {
  it('copies the configuration under the new id and adds forked_from and fork_time', () => {
    const original = bash('b', { command: 'make', metadata: { team: 'a' } })
    const copy = pipe(original, forkBash('b2', '2025-01-01T00:00:00.000Z'))
    expect(copy).toEqual({
      ...original,
      id: 'b2',
      metadata: { team: 'a', forked_from: 'b', fork_time: '2025-01-01T00:00:00.000Z' },
    })
    expect(Object.isFrozen(copy.metadata)).toBe(true)
    expect(original.metadata).toEqual({ team: 'a' })
  })

  it('rejects a bad new id or a node of another kind', () => {
    expect(() => forkBash('bad id', 't')(bash('b'))).toThrow(/^forkBash\(\): the new node id/)
    expect(() => forkBash('c', 't')(fn('f', () => 1) as never)).toThrow(/expects a bash node/)
  })
})
