import { describe, expect, it } from 'vitest'
import { geminiParser } from '../../../src/interpreters/parsers/gemini.js'
import { readFileSync } from 'node:fs'

/** A screen Gemini CLI 0.61.0 drew (tmux capture-pane, 100×30, against a local server). */
const screen = (name: string): string =>
  readFileSync(new URL(`../../fixtures/gemini-cli/0.61.0/${name}.txt`, import.meta.url), 'utf8')
const tag = (name: string): string | undefined => geminiParser.classify?.(screen(name))._tag

describe('geminiParser on the screens of Gemini CLI 0.61.0', () => {
  it('names the version it was checked against and the keys Gemini expects', () => {
    expect(geminiParser.checkedVersions).toEqual(['0.61.0'])
    expect(geminiParser.reads).toBe('screen')
    expect(geminiParser.keys).toEqual({ submit: '\r', interrupt: '\x1b', submitDelayMs: 50 })
  })

  it('reads the input box as ready, with Shift+Tab to accept edits between the rule and the prompt', () => {
    expect(tag('ready')).toBe('ready')
    expect(geminiParser.isReady(screen('ready'))).toBe(true)
  })

  it('reads the screen as busy while esc to cancel shows, also while the answer streams', () => {
    expect(tag('streaming')).toBe('busy')
    expect(geminiParser.isReady(screen('streaming'))).toBe(false)
  })

  it('reads finished, interrupted and denied turns as ready', () => {
    for (const name of ['answer', 'answer-tool', 'approved', 'denied', 'interrupted', 'history'])
      expect([name, tag(name)]).toEqual([name, 'ready'])
  })

  it('reads a shell command waiting for approval as a permission with its command', () => {
    expect(geminiParser.classify?.(screen('permission-shell'))).toEqual({
      _tag: 'permission',
      tool: 'Shell',
      command: 'touch made.txt',
      options: ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'],
    })
  })

  it('reads a file write waiting for approval as a permission with its file', () => {
    expect(geminiParser.classify?.(screen('permission-write'))).toEqual({
      _tag: 'permission',
      tool: 'WriteFile',
      file: 'notes.txt',
      options: [
        'Allow once',
        'Allow for this session',
        'Modify with external editor',
        'No, suggest changes (esc)',
      ],
    })
  })

  it('reads folder trust, the auth choice and the key entry as dialogs, never as ready', () => {
    expect(geminiParser.classify?.(screen('trust'))).toEqual({
      _tag: 'dialog',
      title: 'Do you trust the files in this folder?',
      options: ['Trust folder (proj)', 'Trust parent folder (cg)', "Don't trust"],
    })
    expect(geminiParser.classify?.(screen('auth'))).toMatchObject({
      _tag: 'dialog',
      title: '? Get started',
      options: ['Sign in with Google', 'Use Gemini API Key', 'Vertex AI'],
    })
    expect(geminiParser.classify?.(screen('key'))).toMatchObject({
      _tag: 'dialog',
      title: 'Enter Gemini API Key',
    })
  })

  it('reads a blank screen as unknown', () => {
    expect(geminiParser.classify?.('\n\n\n')).toEqual({ _tag: 'unknown' })
  })

  it('finds the answer after the past prompt, though it is drawn as " > text"', () => {
    const r = geminiParser.parse(screen('answer'), { input: 'say hello' })
    expect(r.isComplete).toBe(true)
    expect(r.text).toBe('Hello from the scripted Gemini.')
    expect(r.sections).toHaveLength(1)
  })

  it('gives tool boxes as tool calls with their output, and the answer alone', () => {
    const r = geminiParser.parse(screen('answer-tool'), { input: 'list the files' })
    expect(r.text).toBe('There are no files here.')
    expect(r.sections[0]?.metadata).toEqual({ tool: 'Shell', args: 'ls -la', status: 'done' })
    expect(r.sections[0]?.content).toMatch(/^total 12\n.*\.git$/s)
    const written = geminiParser.parse(screen('approved'), { input: 'write notes' })
    expect(written.sections).toEqual([
      {
        type: 'tool_call',
        content: '1 hello',
        metadata: { tool: 'WriteFile', args: 'notes.txt → Accepted (+1, -0)', status: 'done' },
      },
      { type: 'text', content: 'Wrote the notes.', metadata: {} },
    ])
  })

  it('gives a denied call as cancelled, and drops the cancel notice', () => {
    const r = geminiParser.parse(screen('denied'), { input: 'make a file' })
    expect(r.sections).toEqual([
      {
        type: 'tool_call',
        content: '',
        metadata: { tool: 'Shell', args: 'touch made.txt', status: 'cancelled' },
      },
    ])
    const cut = geminiParser.parse(screen('interrupted'), { input: 'interrupt me' })
    expect(cut.text).toBe('This answer will be interrupted before')
  })

  it('is not complete while streaming, nor when the input is not on the screen', () => {
    expect(geminiParser.parse(screen('streaming'), { input: 'say hello' }).isComplete).toBe(false)
    const other = geminiParser.parse(screen('answer'), { input: 'something else entirely' })
    expect(other.isReady).toBe(true)
    expect(other.isComplete).toBe(false)
  })
})
