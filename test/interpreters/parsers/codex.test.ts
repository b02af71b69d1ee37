import { describe, expect, it } from 'vitest'
import { codexParser } from '../../../src/interpreters/parsers/codex.js'
import { readFileSync } from 'node:fs'

/** A screen Codex CLI 0.171.0 drew (tmux capture-pane, 100×30, against a local server). */
const screen = (name: string): string =>
  readFileSync(new URL(`../../fixtures/codex/0.171.0/${name}.txt`, import.meta.url), 'utf8')
const tag = (name: string): string | undefined => codexParser.classify?.(screen(name))._tag

describe('codexParser on the screens of Codex 0.171.0', () => {
  it('names the version it was checked against and the keys Codex expects', () => {
    expect(codexParser.checkedVersions).toEqual(['0.171.0'])
    expect(codexParser.reads).toBe('screen')
    expect(codexParser.keys).toEqual({ submit: '\r', interrupt: '\x1b', submitDelayMs: 50 })
  })

  it('reads the first screen as ready, though a footer sits under the composer', () => {
    expect(tag('ready')).toBe('ready')
    expect(codexParser.isReady(screen('ready'))).toBe(true)
  })

  it('reads the screen as busy while Working shows and while the answer streams with no status', () => {
    expect(tag('working')).toBe('busy')
    expect(tag('streaming')).toBe('busy')
    expect(tag('streaming-after-tool')).toBe('busy')
    expect(codexParser.isReady(screen('streaming'))).toBe(false)
  })

  it('reads a turn ended by Worked for, an interrupt or a denial as ready', () => {
    for (const name of ['answer-tool', 'interrupted', 'denied', 'approved', 'history'])
      expect([name, tag(name)]).toEqual([name, 'ready'])
  })

  it('reads an approval as a permission for the shell command it shows, with its options', () => {
    expect(codexParser.classify?.(screen('permission'))).toEqual({
      _tag: 'permission',
      tool: 'shell',
      command: 'touch /etc/nerve-probe',
      options: [
        'Yes, proceed (y)',
        "Yes, and don't ask again for commands that start with `touch /etc/nerve-probe` (p)",
        'No, and tell Codex what to do differently (esc)',
      ],
    })
  })

  it('reads the folder trust question as a dialog, never as ready', () => {
    expect(codexParser.classify?.(screen('trust'))).toEqual({
      _tag: 'dialog',
      title: 'Folder access',
      options: ['Trust and continue', 'Back to Agent Command Center'],
    })
  })

  it('reads a fork loading its history as busy, not as a fresh ready screen', () => {
    const loading = screen('ready').replace(
      '  To get started,',
      '  Forking session…\n\n  To get started,',
    )
    expect(codexParser.classify?.(loading)._tag).toBe('busy')
  })

  it('reads the screen as busy while Codex starts its thread, though the composer shows', () => {
    // Captured from the headless screen of a PTY node (100×30), the daemon starting.
    expect(tag('starting')).toBe('busy')
    expect(codexParser.isReady(screen('starting'))).toBe(false)
    expect(tag('waiting-for-startup')).toBe('busy')
    // Started, on a screen wide enough to keep the logo: the footer shows the model line.
    const started = screen('starting').replace(
      '  ? for shortcuts',
      '  gpt-5 default · ~/work\n  ← for agents · ? for shortcuts',
    )
    expect(started).not.toBe(screen('starting'))
    expect(codexParser.classify?.(started)._tag).toBe('ready')
    // The logo in an answer's history is not a start.
    const drawn = screen('history').replace('\n› ', '\n  ⣀⣤⣤⣤⣀⣀⣀⣀⣀⣀\n› ')
    expect(drawn).not.toBe(screen('history'))
    expect(codexParser.classify?.(drawn)._tag).toBe('ready')
  })

  it('reads a blank screen as unknown', () => {
    expect(codexParser.classify?.('\n\n\n')).toEqual({ _tag: 'unknown' })
  })

  it('gives the answer alone: not Worked for, the tips, the composer nor the footer', () => {
    const r = codexParser.parse(screen('answer-tool'), { input: 'list the files' })
    expect(r.isComplete).toBe(true)
    expect(r.text).toBe('There are no files here.')
    expect(r.sections).toEqual([
      {
        type: 'tool_call',
        content: 'List ls -la',
        metadata: { tool: 'Explored', args: '' },
      },
      { type: 'text', content: 'There are no files here.', metadata: {} },
    ])
    const approved = codexParser.parse(screen('approved'), { input: 'make the probe again' })
    expect(approved.text).toBe('Done with the probe.')
    expect(approved.sections[0]).toEqual({
      type: 'tool_call',
      content: '(no output)',
      metadata: { tool: 'Ran', args: 'touch /tmp/cg/probe-outside' },
    })
  })

  it('finds an earlier answer by its prompt, and stops it at its own turn end', () => {
    const r = codexParser.parse(screen('history'), { input: 'make the probe' })
    expect(r.sections).toEqual([
      {
        type: 'tool_call',
        content: '(no output)',
        metadata: { tool: 'Ran', args: 'touch /etc/nerve-probe', status: 'Exited (status 1)' },
      },
    ])
  })

  it('gives the part of an interrupted answer that showed', () => {
    const r = codexParser.parse(screen('interrupted'), { input: 'interrupt me' })
    expect(r.isComplete).toBe(true)
    expect(r.text).toBe('This answer is going')
  })

  it('is not complete while the answer streams, nor when the input is not on the screen', () => {
    expect(codexParser.parse(screen('streaming'), { input: 'tell me more' }).isComplete).toBe(false)
    const other = codexParser.parse(screen('answer-tool'), { input: 'something else entirely' })
    expect(other.isReady).toBe(true)
    expect(other.isComplete).toBe(false)
  })

  it('knows a turn finished for certain only by Worked for under its own prompt, the newest one', () => {
    const finished = (text: string, input: string) => codexParser.finished!(text, input)
    expect(finished(screen('answer-tool'), 'list the files')).toBe(true)
    expect(finished(screen('approved'), 'make the probe again')).toBe(true)
    // Mid-answer, with an earlier turn's Worked for above the prompt: not yet.
    expect(finished(screen('streaming'), 'tell me more')).toBe(false)
    expect(finished(screen('streaming-after-tool'), 'list the files')).toBe(false)
    expect(finished(screen('working'), 'tell me more')).toBe(false)
    // An earlier turn (a newer prompt under it), an interrupted or denied one, another input.
    expect(finished(screen('answer-tool'), 'say hello')).toBe(false)
    expect(finished(screen('interrupted'), 'interrupt me')).toBe(false)
    expect(finished(screen('denied'), 'make the probe')).toBe(false)
    expect(finished(screen('answer-tool'), 'list the')).toBe(false)
    expect(finished(screen('ready'), 'list the files')).toBe(false)
  })

  it('does not take a frame caught mid-redraw for a finished turn: an earlier Worked for under cells still running', () => {
    // Seen with Codex 0.171 just after a permission prompt was answered, for a few milliseconds.
    const frame = [
      '› make a file',
      '',
      '• Made the file.',
      '',
      '  Worked for <1s • 01:40',
      '',
      '› touch it true',
      '',
      '• Running touch /tmp/outside-t',
      '•',
      '  Worked for <1s • 01:40',
      '',
      '› Ask Codex to do anything',
      '',
      '  gpt-5 · 100% left · ~/work',
    ].join('\n')
    expect(codexParser.classify!(frame)._tag).toBe('ready')
    expect(codexParser.finished!(frame, 'touch it true')).toBe(false)
    // The same turn drawn whole is finished.
    const whole = frame.replace(
      '• Running touch /tmp/outside-t\n•\n',
      '• Ran touch /tmp/outside-t\n\n• Done.\n',
    )
    expect(codexParser.finished!(whole, 'touch it true')).toBe(true)
  })

  it('does not take a turn for finished while the same input still stands in the composer', () => {
    const typed = screen('answer-tool').replace('› Ask Codex to do anything', '› list the files')
    expect(codexParser.finished!(typed, 'list the files')).toBe(false)
  })

  it('does not take answer text that mentions esc to interrupt for the status line', () => {
    const text = screen('answer-tool').replace(
      'There are no files here.',
      'Press Esc.\n  (Working: esc to interrupt)',
    )
    expect(codexParser.classify?.(text)._tag).toBe('ready')
  })
})
