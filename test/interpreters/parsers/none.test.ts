import { describe, expect, it } from 'vitest'
import { noneParser } from '../../../src/interpreters/parsers/none.js'
import { fixture } from './fixture.js'

const bash = fixture('bash.txt')
const python = fixture('python.txt')

describe('noneParser.isReady', () => {
  it('is true when the last non-empty line ends in a shell or REPL prompt', () => {
    for (const prompt of ['$ ', '$', 'root@box:/# ', 'host% ', '> ', '>>> ', '~/proj ❯ ', '~ ❯']) {
      expect(noneParser.isReady(`output\r\n${prompt}`), prompt).toBe(true)
    }
    expect(noneParser.isReady('out\r\n$ \r\n\r\n')).toBe(true)
  })

  it('is false while a command is still writing or a statement goes on', () => {
    expect(noneParser.isReady('$ sleep 1\r\n')).toBe(false)
    expect(noneParser.isReady('downloading  45%\rdownloading  60')).toBe(false)
    expect(noneParser.isReady('>>> for i in x:\r\n... ')).toBe(false)
    expect(noneParser.isReady('')).toBe(false)
  })

  it('sees the prompt through bash 5.2 bracketed paste and colours', () => {
    expect(noneParser.isReady(bash)).toBe(true)
    expect(noneParser.isReady(python)).toBe(true)
  })

  it('reads only the tail: a long buffer before the prompt changes nothing', () => {
    expect(noneParser.isReady(`${'x'.repeat(1_000_000)}\r\n$ `)).toBe(true)
    expect(noneParser.isReady(`$ ${'x'.repeat(1_000_000)}`)).toBe(false)
  })
})

describe('noneParser.parse', () => {
  it('returns the output of a command between its echo and the next prompt', () => {
    const r = noneParser.parse(bash, { input: 'ls src' })
    expect(r.sections).toEqual([
      { type: 'text', content: 'interpreters  index.ts  run.sh', metadata: {} },
    ])
    expect(r.text).toBe('interpreters  index.ts  run.sh')
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(true)
    expect(r.tokens).toBeUndefined()
  })

  it('keeps only the last redraw of a progress line', () => {
    expect(noneParser.parse(bash, { input: './fetch.sh' }).text).toBe(
      'downloading 100%\ndone: 3 files, 12 KB',
    )
  })

  it('reads an echo edited with the cursor keys as the line the shell ran', () => {
    expect(noneParser.parse(bash, { input: 'echo hello' }).text).toBe('hello')
  })

  it('keeps a line longer than the terminal as one line', () => {
    const text = noneParser.parse(bash, { input: 'cat notes.txt' }).text
    expect(text).toMatch(/^nerve drives CLI agents .* of the pane$/)
    expect(text.split('\n')).toHaveLength(1)
  })

  it('skips the echo of a multi-line REPL statement and its continuation prompts', () => {
    const r = noneParser.parse(python, { input: 'for i in range(3):\n    print(i * i)\n' })
    expect(r.text).toBe('0\n1\n4')
  })

  it('returns a traceback as output', () => {
    const text = noneParser.parse(python, { input: '1/0' }).text
    expect(text.split('\n')[0]).toBe('Traceback (most recent call last):')
    expect(text.endsWith('ZeroDivisionError: division by zero')).toBe(true)
  })

  it('returns the whole screen as text without an input', () => {
    const text = noneParser.parse('a\r\n\x1b[1mb\x1b[0m\r\n$ ').text
    expect(text).toBe('a\nb\n$')
  })

  it('is not complete when the echo of the input is not in the output', () => {
    const r = noneParser.parse('hi\r\n$ ', { input: 'echo hi' })
    expect(r.isReady).toBe(true)
    expect(r.isComplete).toBe(false)
    expect(r.text).toBe('hi')
  })

  it('is neither ready nor complete while the command runs', () => {
    const r = noneParser.parse('$ make\r\nbuilding', { input: 'make' })
    expect(r).toMatchObject({ text: 'building', isReady: false, isComplete: false })
  })

  it('does not take output that starts like a bare prompt for the next prompt', () => {
    const raw = '$ echo "$HOME"\r\n$HOME\r\n$ '
    expect(noneParser.parse(raw, { input: 'echo "$HOME"' }).text).toBe('$HOME')
  })
})
