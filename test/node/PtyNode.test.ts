import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { bash } from '../../src/node/BashNode.js'
import { forkPty, isPtyNode, pty, type PtyNode, type PtyOptions } from '../../src/node/PtyNode.js'

describe('pty', () => {
  it('builds a frozen, persistent pty node holding its configuration', () => {
    const node = pty('sh', {
      command: 'bash',
      args: ['--norc'],
      cwd: '/tmp',
      env: { PS1: '$ ' },
      cols: 100,
      rows: 30,
      parser: 'none',
      timeoutMs: 5000,
      quietMs: 0,
      metadata: { team: 'a' },
    })
    expect(node).toEqual({
      id: 'sh',
      kind: 'pty',
      persistent: true,
      metadata: { team: 'a' },
      command: 'bash',
      args: ['--norc'],
      cwd: '/tmp',
      env: { PS1: '$ ' },
      cols: 100,
      rows: 30,
      parser: 'none',
      timeoutMs: 5000,
      quietMs: 0,
    })
    expect(Object.isFrozen(node)).toBe(true)
    expect(Object.isFrozen(node.args)).toBe(true)
    expect(Object.isFrozen(node.env)).toBe(true)
  })

  it('leaves out the options not given', () => {
    expect(Object.keys(pty('p', { command: 'python3' }))).toEqual([
      'id',
      'kind',
      'persistent',
      'metadata',
      'command',
    ])
  })

  it('rejects bad options with a UsageError naming the node and the option', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /node "p": command must be a non-blank string, got undefined/],
      [{ command: ' ' }, /command must be a non-blank string/],
      [{ command: 'sh', args: 'x' }, /args must be an array of strings/],
      [{ command: 'sh', args: [1] }, /args\[0\] must be a string, got 1/],
      [{ command: 'sh', cwd: '' }, /cwd must be a non-empty string/],
      [{ command: 'sh', env: { 'A=B': 'x' } }, /env has "A=B", not a variable name/],
      [{ command: 'sh', env: { A: 1 } }, /env\.A must be a string, got 1/],
      [{ command: 'sh', cols: 0 }, /cols must be an integer from 1 to 10000, got 0/],
      [{ command: 'sh', rows: 1.5 }, /rows must be an integer from 1 to 10000/],
      [{ command: 'sh', parser: '' }, /parser must be a parser name/],
      [{ command: 'sh', timeoutMs: 0 }, /timeoutMs must be a positive number/],
      [{ command: 'sh', quietMs: -1 }, /quietMs must be a non-negative number/],
      [{ command: 'sh', colour: true }, /unknown option "colour"/],
      [null, /options must be an object, got null/],
    ]
    for (const [options, message] of cases) {
      expect(() => pty('p', options as PtyOptions)).toThrow(UsageError)
      expect(() => pty('p', options as PtyOptions)).toThrow(message)
    }
  })

  it('rejects an invalid id', () => {
    expect(() => pty('no spaces', { command: 'sh' })).toThrow(UsageError)
  })
})

describe('isPtyNode', () => {
  it('tells pty nodes from other nodes', () => {
    expect(isPtyNode(pty('p', { command: 'sh' }))).toBe(true)
    expect(isPtyNode(bash('b'))).toBe(false)
  })
})

describe('forkPty', () => {
  const sh = pty('sh', { command: 'bash', cwd: '/tmp', env: { A: '1' }, metadata: { team: 'a' } })

  it('copies the configuration under the new id, adding forked_from and fork_time', () => {
    const copy: PtyNode = pipe(sh, forkPty('sh-2', '2025-01-01T00:00:00.000Z'))
    expect(copy).toEqual({
      ...sh,
      id: 'sh-2',
      metadata: { team: 'a', forked_from: 'sh', fork_time: '2025-01-01T00:00:00.000Z' },
    })
    expect(Object.isFrozen(copy)).toBe(true)
  })

  it('rejects a bad id, a bad time or a node of another kind', () => {
    expect(() => forkPty('bad id', 't')(sh)).toThrow(/the new node id/)
    expect(() => forkPty('x', 5 as unknown as string)(sh)).toThrow(/the fork time must be a string/)
    expect(() => forkPty('x', 't')(bash('b') as unknown as PtyNode)).toThrow(/expects a pty node/)
  })
})
