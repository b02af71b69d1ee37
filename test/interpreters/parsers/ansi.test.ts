import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { screenLines, stripAnsi, tail } from '../../../src/interpreters/parsers/ansi.js'

const ESC = '\x1b'

describe('stripAnsi', () => {
  it('removes colours and private modes such as bash 5.2 bracketed paste', () => {
    expect(stripAnsi(`${ESC}[?2004h${ESC}[01;32mdev${ESC}[00m:${ESC}[1;34m~${ESC}[0m$ `)).toBe(
      'dev:~$',
    )
    expect(stripAnsi(`ls${ESC}[?2004l\r\nfile`)).toBe('ls\nfile')
  })

  it('removes OSC strings ended by BEL or by ST', () => {
    expect(stripAnsi(`${ESC}]0;title\x07a${ESC}]8;;http://x${ESC}\\b${ESC}]8;;${ESC}\\`)).toBe('ab')
  })

  it('removes charset selects, keypad modes and DCS strings', () => {
    expect(stripAnsi(`${ESC}(B${ESC})0${ESC}=a${ESC}>${ESC}Pq#0;1${ESC}\\b`)).toBe('ab')
  })

  it('keeps the text after the last carriage return of a line', () => {
    expect(stripAnsi('  0%\r 50%\r100%\r\nnext')).toBe('100%\nnext')
    expect(stripAnsi('a\r\r\nb')).toBe('a\nb')
  })

  it('applies backspaces as a step back that the next character overwrites', () => {
    expect(stripAnsi('lss\bx')).toBe('lsx')
    expect(stripAnsi('ab\b \b')).toBe('a')
  })

  it('swallows a sequence cut at the end of a chunk and 8-bit CSI', () => {
    expect(stripAnsi(`ok${ESC}[38;5`)).toBe('ok')
    expect(stripAnsi(`ok${ESC}`)).toBe('ok')
    expect(stripAnsi('\x9b31mred\x9b0m')).toBe('red')
  })

  it('drops cursor moves instead of replaying them', () => {
    expect(stripAnsi(`one\r\ntwo${ESC}[1A${ESC}[2K`)).toBe('one\ntwo')
  })

  it('keeps a final newline as an empty last line', () => {
    expect(stripAnsi('a\n')).toBe('a\n')
  })
})

describe('screenLines', () => {
  it('replays cursor up, erase line and column moves as Ink redraws do', () => {
    const raw = `⠋ working\r\n> \r\n${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[Gdone\r\n`
    expect(screenLines(raw)).toEqual(['done', '', ''])
  })

  it('replays cursor left and right on a line being edited', () => {
    expect(screenLines(`echo hllo${ESC}[3Dello${ESC}[3D${ESC}[3C!`)).toEqual(['echo hello!'])
    expect(screenLines(`abcdef${ESC}[3D${ESC}[K`)).toEqual(['abc'])
    expect(screenLines(`abcdef${ESC}[3D${ESC}[1K`)).toEqual(['    ef'])
  })

  it('moves down and to a column with CSI B and CSI G', () => {
    expect(screenLines(`a${ESC}[2B${ESC}[4Gb`)).toEqual(['a', '', '   b'])
  })

  it('clears the screen with CSI 2J and positions with CSI H from there', () => {
    expect(screenLines(`old\r\nlines${ESC}[2J${ESC}[H${ESC}[2;3Hnew`)).toEqual(['', '  new'])
  })

  it('erases below the cursor with CSI J', () => {
    expect(screenLines(`one\r\ntwo\r\nthree${ESC}[2A${ESC}[2G${ESC}[J`)).toEqual(['o'])
  })

  it('saves and restores the cursor with ESC 7 / ESC 8 and CSI s / CSI u', () => {
    expect(screenLines(`ab${ESC}7\r\nline${ESC}8c`)).toEqual(['abc', 'line'])
    expect(screenLines(`ab${ESC}[s\r\nline${ESC}[uc`)).toEqual(['abc', 'line'])
  })

  it('expands tabs to the next multiple of eight columns', () => {
    expect(screenLines('a\tb')).toEqual(['a       b'])
  })

  it('keeps a cursor move far off screen within reach of the text', () => {
    const lines = screenLines(`a${ESC}[9999B${ESC}[9999Cb`)
    expect(lines.length).toBeLessThanOrEqual(1002)
    expect(lines[lines.length - 1]!.trim()).toBe('b')
  })

  it('is the lines of the text, trailing spaces trimmed, for text without control characters', () => {
    const plain = fc.string({ unit: 'binary' }).map((s) =>
      // eslint-disable-next-line no-control-regex
      s.replace(/[\x00-\x09\x0b-\x1f\x7f\x9b]/g, ''),
    )
    fc.assert(
      fc.property(plain, (text) => {
        expect(screenLines(text)).toEqual(text.split('\n').map((l) => l.trimEnd()))
      }),
    )
  })
})

describe('tail', () => {
  it('keeps the last characters of a long text and all of a short one', () => {
    expect(tail('abcdef', 2)).toBe('ef')
    expect(tail('ab', 5)).toBe('ab')
  })
})
