import { describe, expect, it } from 'vitest'
import { parsedResponse, section } from '../../../src/interpreters/parsers/ParsedResponse.js'
import {
  getParser,
  isParserName,
  parsers,
  UnknownParser,
} from '../../../src/interpreters/parsers/registry.js'
import { fixture } from './fixture.js'
import { fixtures } from './fixtures/generate.js'

describe('parsers and getParser', () => {
  it('names every parser by its own name', () => {
    expect(Object.keys(parsers)).toEqual(['none', 'claude', 'gemini', 'codex'])
    for (const [name, parser] of Object.entries(parsers)) {
      expect(parser.name).toBe(name)
      expect(getParser(name)).toBe(parser)
      expect(isParserName(name)).toBe(true)
    }
  })

  it('throws UnknownParser naming the bad name and the known ones', () => {
    let caught: unknown
    try {
      getParser('aider')
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(UnknownParser)
    expect(caught).toMatchObject({
      _tag: 'UnknownParser',
      parser: 'aider',
      known: ['none', 'claude', 'gemini', 'codex'],
      message: 'unknown parser "aider": the parsers are none, claude, gemini, codex',
    })
  })

  it('does not take inherited object keys for parser names', () => {
    expect(isParserName('toString')).toBe(false)
    expect(() => getParser('__proto__')).toThrow(UnknownParser)
  })
})

describe('parsedResponse', () => {
  it('joins the text sections with a blank line and freezes everything', () => {
    const r = parsedResponse({
      raw: 'r',
      sections: [section('text', 'a'), section('thinking', 'hmm'), section('text', 'b')],
      isReady: true,
      tokens: 12,
    })
    expect(r).toEqual({
      raw: 'r',
      sections: [
        { type: 'text', content: 'a', metadata: {} },
        { type: 'thinking', content: 'hmm', metadata: {} },
        { type: 'text', content: 'b', metadata: {} },
      ],
      text: 'a\n\nb',
      tokens: 12,
      isReady: true,
      isComplete: true,
    })
    expect(
      Object.isFrozen(r) && Object.isFrozen(r.sections) && Object.isFrozen(r.sections[0]),
    ).toBe(true)
  })

  it('leaves tokens out when there are none and keeps a given text and isComplete', () => {
    const r = parsedResponse({ raw: '', sections: [], isReady: true, text: 't', isComplete: false })
    expect('tokens' in r).toBe(false)
    expect(r).toMatchObject({ text: 't', isComplete: false })
  })
})

describe('the fixtures', () => {
  it('are what fixtures/generate.ts writes', () => {
    for (const [name, text] of Object.entries(fixtures)) expect(fixture(name), name).toBe(text)
  })
})
