import { type DecodeError, formatDecodeError } from 'nerve-agents/core'
import { describe, expect, it } from 'vitest'

describe('formatDecodeError', () => {
  it('renders every kind of error with where it is', () => {
    const cases: [DecodeError, string][] = [
      [{ _tag: 'InvalidJson', message: 'Unexpected end' }, 'invalid JSON: Unexpected end'],
      [
        {
          _tag: 'Invalid',
          errors: [
            { path: '/nodes/a/data/content/2', expected: 'Block', actual: 3 },
            { path: '/heads', expected: 'Array<VertexId>', actual: undefined },
            { path: '', expected: 'NerveConversation', actual: [1, 2] },
          ],
        },
        [
          'invalid input:',
          '  at /nodes/a/data/content/2: expected Block, found 3',
          '  at /heads: expected Array<VertexId>, found nothing',
          '  at the top: expected NerveConversation, found an array of 2',
        ].join('\n'),
      ],
      [
        { _tag: 'MissingParent', vertex: 'b', parent: 'z', path: '/vertices/1/parents/0' },
        'vertex "b" names parent "z", which is not in its conversation (at /vertices/1/parents/0)',
      ],
      [
        { _tag: 'Cycle', vertex: 'a', cycle: ['a', 'b', 'a'], path: '/vertices/0' },
        'vertices form a cycle: "a" → "b" → "a" (at /vertices/0)',
      ],
      [
        { _tag: 'DuplicateId', vertex: 'a', path: '/vertices/3/id' },
        'vertex id "a" is used more than once (again at /vertices/3/id)',
      ],
      [
        { _tag: 'UnknownHead', id: 'q', path: '/heads/1' },
        'head "q" is not a vertex of its conversation (at /heads/1)',
      ],
      [
        { _tag: 'MismatchedId', key: 'k', id: 'b', path: '/nodes/k' },
        'node under key "k" has id "b" (at /nodes/k)',
      ],
    ]
    for (const [e, text] of cases) expect(formatDecodeError(e)).toBe(text)
  })

  it('shortens long strings and wide objects, and never walks deep values', () => {
    let deep: unknown = []
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const line = (actual: unknown): string =>
      formatDecodeError({ _tag: 'Invalid', errors: [{ path: '/x', expected: 'T', actual }] }).split(
        '\n',
      )[1]!
    expect(line('a'.repeat(100))).toBe(`  at /x: expected T, found the string "${'a'.repeat(60)}…"`)
    expect(line({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 })).toBe(
      '  at /x: expected T, found an object with keys "a", "b", "c", "d", "e", …',
    )
    expect(line({})).toBe('  at /x: expected T, found an empty object')
    expect(line(deep)).toBe('  at /x: expected T, found an array of 1')
  })
})
