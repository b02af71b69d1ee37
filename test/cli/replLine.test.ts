import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { complete, forkName, parseLine } from '../../src/cli/repl/line.js'

describe('a REPL line', () => {
  it('is understood as the command it spells', () => {
    expect(parseLine('  ')).toEqual({ type: 'none' })
    expect(parseLine('@sh echo  hi')).toEqual({ type: 'execute', nodeId: 'sh', input: 'echo  hi' })
    expect(parseLine(':nodes')).toEqual({ type: 'nodes' })
    expect(parseLine(':create sh bash')).toEqual({
      type: 'create',
      nodeId: 'sh',
      kind: 'bash',
      options: {},
    })
    expect(parseLine(':create t pty {"command":"bash"}')).toMatchObject({
      options: { command: 'bash' },
    })
    expect(parseLine(':fork @claude')).toEqual({
      type: 'fork',
      source: 'claude',
      target: undefined,
    })
    expect(parseLine(':fork @claude @experiment')).toEqual({
      type: 'fork',
      source: 'claude',
      target: 'experiment',
    })
    expect(parseLine(':history @sh')).toEqual({ type: 'history', nodeId: 'sh' })
    expect(parseLine(':interrupt @sh')).toEqual({ type: 'interrupt', nodeId: 'sh' })
    expect(parseLine(':graph load g.json')).toEqual({ type: 'graph-load', file: 'g.json' })
    expect(parseLine(':graph run')).toEqual({ type: 'graph-run' })
    expect(parseLine(':quit')).toEqual({ type: 'quit' })
    expect(parseLine(':approvals')).toEqual({ type: 'approvals' })
    expect(parseLine(':approve approval-3 looks right')).toEqual({
      type: 'decide',
      how: 'approve',
      requestId: 'approval-3',
      note: 'looks right',
    })
    expect(parseLine(':deny approval-4')).toEqual({
      type: 'decide',
      how: 'deny',
      requestId: 'approval-4',
      note: undefined,
    })
  })

  it('that means nothing says how to use it', () => {
    const message = (l: string): string => (parseLine(l) as { message: string }).message
    expect(message(':fork')).toBe('Usage: :fork @node [new_name]')
    expect(message(':approve')).toBe('Usage: :approve ID [note]')
    expect(message(':fork sh')).toBe('Specify @node to fork')
    expect(message(':fork %g')).toBe('Graph forking is not supported yet')
    // a kind the daemon does not make is the daemon's answer (UnknownKind), not the parser's
    expect(parseLine(':create sh teapot')).toEqual({
      type: 'create',
      nodeId: 'sh',
      kind: 'teapot',
      options: {},
    })
    expect(message(':create sh bash {oops')).toMatch(/^Options are not JSON/)
    expect(message(':create sh bash [1]')).toBe('Options must be a JSON object')
    expect(message(':history sh')).toBe('Usage: :history @node')
    expect(message(':graph')).toMatch(/^Usage: :graph load FILE/)
    expect(message('@sh')).toBe('Usage: @sh text')
    expect(message('@')).toBe('Usage: @node text')
    expect(message(':')).toBe('Unknown command : (try :help)')
    expect(message(':constructor')).toBe('Unknown command :constructor (try :help)')
    expect(message(':bogus')).toBe('Unknown command :bogus (try :help)')
    expect(message('hello')).toMatch(/^Start with @node/)
  })

  it('never throws, whatever is typed (law)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `:${s}`),
          fc.string().map((s) => `@${s}`),
        ),
        (s) => {
          expect(parseLine(s).type).toBeTypeOf('string')
        },
      ),
    )
  })
})

describe('fork names', () => {
  it('are node_fork_NNNN from the clock, and skip names taken (law)', () => {
    expect(forkName('claude', 1_700_000_123_456, new Set())).toBe('claude_fork_0123')
    fc.assert(
      fc.property(fc.nat(), fc.uniqueArray(fc.nat(9999), { maxLength: 50 }), (now, numbers) => {
        const taken = new Set(numbers.map((n) => `a_fork_${String(n).padStart(4, '0')}`))
        const name = forkName('a', now, taken)
        expect(name).toMatch(/^a_fork_\d{4}$/)
        expect(taken.has(name)).toBe(false)
      }),
    )
  })
})

describe('tab completion', () => {
  const nodes = ['sh', 'shell', 'claude']
  it('completes commands, @node names, graph actions and kinds', () => {
    expect(complete(':no', nodes)).toEqual([[':nodes'], ':no'])
    expect(complete('@sh', nodes)).toEqual([['@sh', '@shell'], '@sh'])
    expect(complete(':fork @c', nodes)).toEqual([['@claude'], '@c'])
    expect(complete(':graph r', nodes)).toEqual([['run'], 'r'])
    expect(complete(':create x t', nodes, ['bash', 'pty', 'tmux'])).toEqual([['tmux'], 't'])
    expect(complete(':create x t', nodes)).toEqual([[], 't'])
    expect(complete('@sh ec', nodes)).toEqual([[], 'ec'])
  })
})
