import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { peer, ptyOptions, testEngine, type Peer } from '../kit.js'
import { needsTmux } from '../../interpreters/terminal/needsTmux.js'

const disposals: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((d) => d()))
})

const connected = async (): Promise<{ p: Peer; root: string }> => {
  const made = await testEngine()
  disposals.push(made.dispose)
  return { p: peer(made.engine), root: made.root }
}

describe('a tmux node through the engine', () => {
  needsTmux()
  it('executes in a real tmux pane, reads its screen and stops its session on delete', async () => {
    const { p, root } = await connected()
    const socketPath = join(root, 'tmux.sock')
    await p.ok('CREATE_NODE', {
      nodeId: 'pane',
      kind: 'tmux',
      options: { socketPath, command: 'bash', args: ['--norc', '--noprofile'], env: { PS1: '$ ' } },
    })
    const answer = await p.ok<{ text: string }>('EXECUTE_INPUT', {
      nodeId: 'pane',
      input: 'echo from-tmux',
    })
    expect(answer.text).toContain('from-tmux')
    const { buffer } = await p.ok<{ buffer: string }>('GET_BUFFER', { nodeId: 'pane' })
    expect(buffer).toContain('from-tmux')
    await p.ok('DELETE_NODE', { nodeId: 'pane' })
    const sessions = (): string => {
      try {
        return execFileSync('tmux', ['-S', socketPath, 'list-sessions'], {
          encoding: 'utf8',
          stdio: 'pipe',
        })
      } catch {
        return ''
      }
    }
    expect(sessions()).not.toContain('pane')
  })
})

describe('EXECUTE_INPUT parser', () => {
  it('reads the answer with the parser named in the call', async () => {
    const { p } = await connected()
    await p.ok('CREATE_NODE', { nodeId: 'term', kind: 'pty', options: ptyOptions })
    const unknown = await p.call('EXECUTE_INPUT', {
      nodeId: 'term',
      input: 'echo x',
      parser: 'klingon',
    })
    expect(unknown.error).toMatchObject({
      code: -32602,
      data: { tag: 'UnknownParser', path: '/parser', parser: 'klingon' },
    })
    const ok = await p.ok<{ text: string }>('EXECUTE_INPUT', {
      nodeId: 'term',
      input: 'echo y',
      parser: 'none',
    })
    expect(ok.text).toBe('y')
  })
})
