import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { claudeParser } from '../../../src/interpreters/index.js'

const VERSION = '2.1.332'
const screen = (name: string): string =>
  readFileSync(
    new URL(`../../fixtures/claude-code/${VERSION}/${name}.txt`, import.meta.url),
    'utf8',
  )
const classify = (name: string) => claudeParser.classify!(screen(name))

describe(`claudeParser on screens of Claude Code ${VERSION}`, () => {
  it('names the version it was checked against', () => {
    expect(claudeParser.checkedVersions).toContain(VERSION)
    expect(claudeParser.reads).toBe('screen')
  })

  it('reads the first screen as ready', () => {
    expect(classify('ready')._tag).toBe('ready')
  })

  it('reads a busy screen as busy although the footer says esc to interrupt only under the box', () => {
    expect(classify('busy-start')._tag).toBe('busy')
    expect(classify('busy-streaming')._tag).toBe('busy')
    expect(classify('busy-text')._tag).toBe('busy')
    expect(claudeParser.isReady(screen('busy-streaming'))).toBe(false)
  })

  it('knows a turn finished for certain only by the done line under its own prompt line', () => {
    const finished = (name: string, input: string) => claudeParser.finished!(screen(name), input)
    expect(finished('answer', 'hello there')).toBe(true)
    expect(finished('tool-approved', 'RUNTOOL now')).toBe(true)
    // Another input's turn, a turn still running, an interrupted one, the first screen: not for certain.
    expect(finished('answer', 'something else')).toBe(false)
    expect(finished('busy-text', 'SLOW again')).toBe(false)
    expect(finished('interrupted', 'SLOW again')).toBe(false)
    expect(finished('ready', 'hello there')).toBe(false)
  })

  it('does not take a prompt still in the input box for an answer', () => {
    const r = claudeParser.parse(screen('typed'), { input: 'hello there' })
    expect(r.isComplete).toBe(false)
  })

  it('gives the answer alone: not the done line, the effort line, the box or its footer', () => {
    const r = claudeParser.parse(screen('answer'), { input: 'hello there' })
    expect(r.isComplete).toBe(true)
    expect(r.text).toBe('Answer to: hello there')
    expect(r.raw).toContain('Sautéed for 0s')
  })

  it('reads a notice under the prompt, before any answer, as the error the program said instead', () => {
    const refused = claudeParser.parse(screen('not-logged-in'), { input: 'say hi' })
    expect(refused.error).toBe('Not logged in · Please run /login')
    expect(refused.isComplete).toBe(true)
    // An answer, a tool's result, an interrupted turn: no error.
    expect(claudeParser.parse(screen('answer'), { input: 'hello there' }).error).toBeUndefined()
    expect(
      claudeParser.parse(screen('tool-approved'), { input: 'RUNTOOL now' }).error,
    ).toBeUndefined()
    expect(claudeParser.parse(screen('interrupted'), { input: 'SLOW again' }).error).toBeUndefined()
    // Another input's turn is not this one's.
    expect(claudeParser.parse(screen('not-logged-in'), { input: 'other' }).error).toBeUndefined()
    // The box's placeholder then is no text typed.
    expect(claudeParser.draft!(screen('not-logged-in'))).toBe('')
    expect(claudeParser.draft!(screen('typed'))).toBe('hello there')
  })

  it('joins an answer wrapped onto an indented row', () => {
    const r = claudeParser.parse(screen('answer-wrapped'), { input: 'SLOW please' })
    expect(r.text).toBe(
      `slow answer ${'word '.repeat(17).trim()}\nword ${'word '.repeat(12).trim()}`,
    )
    expect(r.text).not.toContain('Brewed')
  })

  it("answers the prompt it was given, not an earlier one's", () => {
    const r = claudeParser.parse(screen('answer-wrapped'), { input: 'hello there' })
    expect(r.text.startsWith('Answer to: hello there')).toBe(true)
  })

  it('reads a Bash permission prompt with its command and options', () => {
    const state = classify('permission-bash')
    expect(state).toEqual({
      _tag: 'permission',
      tool: 'Bash',
      command: 'echo hi > out.txt',
      options: [
        'Yes',
        `Yes, and always allow access to ${/access to (\S+) from/.exec(screen('permission-bash'))![1]!} from this project`,
        'Yes, and switch to auto mode · auto mode handles these prompts for you',
        'No',
      ],
    })
  })

  it('reads a collapsed tool group as a Bash tool call and the answer after it as text', () => {
    const r = claudeParser.parse(screen('tool-approved'), { input: 'RUNTOOL now' })
    expect(r.isComplete).toBe(true)
    expect(r.sections.map((s) => s.type)).toEqual(['tool_call', 'text'])
    expect(r.sections[0]!.metadata).toMatchObject({ tool: 'Bash', summary: 'Ran 1 shell command' })
    expect(r.text).toBe('Tool said: "(Bash completed with no output)"')
  })

  it('leaves the interrupt notice out of the answer of a denied tool', () => {
    const r = claudeParser.parse(screen('tool-denied'), { input: 'RUNTOOL again' })
    expect(r.isComplete).toBe(true)
    expect(r.sections[0]!.metadata).toMatchObject({ tool: 'Bash', args: 'echo hi > out.txt' })
    expect(r.sections[0]!.metadata['summary']).toBe('Did not run 1 call')
    expect(JSON.stringify(r.sections)).not.toContain('Interrupted')
    expect(r.text).toBe('')
  })

  it('gives the partial text of an interrupted turn without the notice', () => {
    const r = claudeParser.parse(screen('interrupted'), { input: 'SLOW again' })
    expect(r.isComplete).toBe(true)
    expect(r.text.startsWith('slow answer word')).toBe(true)
    expect(r.text).not.toContain('Interrupted')
  })

  it('reads the first-run dialogs as dialogs, with their options', () => {
    expect(classify('dialog-trust')).toEqual({
      _tag: 'dialog',
      title: 'trust this folder',
      options: ['No, exit', 'Yes, I trust this folder'],
    })
    expect(classify('dialog-api-key')).toEqual({
      _tag: 'dialog',
      title: 'use this API key',
      options: ['Yes', 'No (recommended)'],
    })
    expect(classify('dialog-onboarding-offline')._tag).toBe('dialog')
  })

  it('reads a screen it does not know as unknown, never ready', () => {
    expect(claudeParser.classify!('Segmentation fault')._tag).toBe('unknown')
    expect(claudeParser.isReady('')).toBe(false)
  })

  it("reads the spinner's count as the turn's estimate", () => {
    const r = claudeParser.parse(screen('busy-streaming'), { input: 'SLOW please' })
    expect(r.turnTokens).toBe(23)
    expect(r.isReady).toBe(false)
  })
})

describe('claudeParser on small screens', () => {
  const rule = '─'.repeat(30)
  const box = [rule, '❯ ', rule, '  ⏸ manual mode on · ? for shortcuts']

  it('reads a tool cell with its arguments and result', () => {
    const s = ['❯ list', '● Bash(ls /)', '  ⎿  bin', '     etc', '', '● Two dirs.', ...box].join(
      '\n',
    )
    const r = claudeParser.parse(s, { input: 'list' })
    expect(r.sections[0]).toMatchObject({
      type: 'tool_call',
      content: 'bin\netc',
      metadata: { tool: 'Bash', args: 'ls /' },
    })
    expect(r.text).toBe('Two dirs.')
  })

  it('does not take an earlier prompt that starts like the input for it (ping 1 is not ping 10)', () => {
    const s = ['❯ ping 1', '● pong 1', ...box].join('\n')
    expect(claudeParser.parse(s, { input: 'ping 10' }).isComplete).toBe(false)
    expect(claudeParser.parse(s, { input: 'ping 1' }).isComplete).toBe(true)
  })

  it('stays ready when the answer itself says esc to interrupt', () => {
    const s = ['❯ how do I stop it', '● Press esc to interrupt.', ...box].join('\n')
    expect(claudeParser.classify!(s)._tag).toBe('ready')
  })

  it('is busy while the footer says esc to interrupt, with no spinner in view', () => {
    const s = ['❯ go', ...box.slice(0, 3), '  ⏸ manual mode on · esc to interrupt'].join('\n')
    expect(claudeParser.classify!(s)._tag).toBe('busy')
  })
})
