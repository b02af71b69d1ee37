import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  errorKeys,
  errorPath,
  isTooDeep,
  isUnknownKey,
  jsonSchemaOf,
  keyHint,
  literals,
  NonBlankString,
  NonEmptyString,
  NonNegativeInteger,
  NonNegativeNumber,
  pointer,
  PositiveNumber,
  refined,
  REQUIRED_KEY,
  strict,
  under,
} from '../../src/codec/index.js'

const Step = strict(
  'Step',
  { id: NonEmptyString, tags: t.readonlyArray(t.string) },
  {
    timeoutMs: PositiveNumber,
    retries: NonNegativeInteger,
    channel: literals('Channel', ['flow', 'link']),
    input: t.unknown,
  },
  { aliases: { after: 'tags' } },
)
const Graph = strict('Graph', { steps: t.readonlyArray(Step) }, { meta: t.UnknownRecord })

const step = fc.record(
  {
    id: fc.string({ minLength: 1 }),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    timeoutMs: fc.double({ min: 0.001, max: 1e9, noNaN: true }),
    retries: fc.nat(),
    channel: fc.constantFrom('flow' as const, 'link' as const),
    input: fc.jsonValue(),
  },
  { requiredKeys: ['id', 'tags'] },
)
const graph = fc.record({ steps: fc.array(step, { maxLength: 4 }) })

const KNOWN = new Set(['steps', 'meta', 'id', 'tags', 'timeoutMs', 'retries', 'channel', 'input'])
const unknownKey = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((k) => !KNOWN.has(k) && k !== '__proto__')

const errorsOf = <A>(codec: t.Decoder<unknown, A>, u: unknown): t.Errors => {
  const r = codec.decode(u)
  if (E.isRight(r)) throw new Error(`expected ${JSON.stringify(u)} to be refused`)
  return r.left
}

describe('the codec kit', () => {
  it('decode ∘ encode is the identity on every value a strict object decodes to', () => {
    fc.assert(
      fc.property(graph, (g) => {
        const decoded = Graph.decode(g)
        expect(E.isRight(decoded)).toBe(true)
        if (E.isLeft(decoded)) return
        expect(Graph.decode(Graph.encode(decoded.right))).toEqual(decoded)
        expect(Graph.is(decoded.right)).toBe(true)
      }),
    )
  })

  it('a strict object refuses any unknown key, naming it at its JSON pointer', () => {
    fc.assert(
      fc.property(
        graph.filter((g) => g.steps.length > 0),
        fc.nat(),
        unknownKey,
        fc.jsonValue(),
        (g, n, key, value) => {
          const i = n % g.steps.length
          const steps = g.steps.map((s, j) => (j === i ? { ...s, [key]: value } : s))
          const errors = errorsOf(Graph, { steps })
          const unknown = errors.filter(isUnknownKey)
          expect(unknown.map(errorPath)).toEqual([pointer(['steps', i, key])])
          expect(unknown[0]!.message).toMatch(/^unknown key(; did you mean "[a-zA-Z]+"\?)?$/)
        },
      ),
    )
  })

  it('an unknown key names the key it most likely meant (a typo, or another tool’s word)', () => {
    const hints = (u: unknown) => errorsOf(Step, u).filter(isUnknownKey).map(keyHint)
    expect(hints({ id: 'a', tags: [], timeoutms: 1 })).toEqual(['timeoutMs'])
    expect(hints({ id: 'a', tags: [], after: [] })).toEqual(['tags'])
    expect(hints({ id: 'a', tags: [], colour: 'red' })).toEqual([undefined])
  })

  it('collects every error, each at its own path, and leaves out the member indexes of unions', () => {
    const errors = errorsOf(Graph, {
      steps: [{ id: '', tags: [1], channel: 'side', timeoutMs: 0 }],
      meta: [],
    })
    expect(errors.map(errorPath).sort()).toEqual(
      ['/steps/0/id', '/steps/0/tags/0', '/steps/0/channel', '/steps/0/timeoutMs', '/meta'].sort(),
    )
    const union = t.type({ a: t.union([t.string, t.type({ b: t.number })]) })
    expect(errorsOf(union, { a: { b: 'x' } }).map(errorKeys)).toEqual([['a'], ['a', 'b']])
  })

  it('a required key may not be missing, even when its codec takes anything', () => {
    const errors = errorsOf(Step, { tags: [] })
    expect(errors.map(errorPath)).toEqual(['/id'])
    const Call = strict('Call', { input: t.unknown })
    const missing = errorsOf(Call, {})
    expect(missing.map((e) => [errorPath(e), e.message])).toEqual([['/input', REQUIRED_KEY]])
  })

  it('runs its rules on the decoded object only when every key decoded', () => {
    const Range = strict(
      'Range',
      { from: t.number, to: t.number },
      {},
      { rules: [(r) => (r.from > r.to ? 'from must not be after to' : undefined)] },
    )
    expect(errorsOf(Range, { from: 2, to: 1 }).map((e) => [errorPath(e), e.message])).toEqual([
      ['', 'from must not be after to'],
    ])
    expect(errorsOf(Range, { from: 'x', to: 1 }).map((e) => e.message)).toEqual([undefined])
  })

  it('refuses a value nested deeper than its maxDepth at the path where it goes too deep', () => {
    const Params = strict('Params', { input: t.unknown }, {}, { maxDepth: 3 })
    expect(E.isRight(Params.decode({ input: { a: [1] } }))).toBe(true)
    const deep = errorsOf(Params, { input: { a: [{ b: 1 }] } })
    expect(deep.filter(isTooDeep).map(errorPath)).toEqual(['/input/a/0'])
  })

  it('a refinement’s error says what it must be and what it got, under its name', () => {
    const cases: readonly [t.Mixed, unknown, string, string][] = [
      [NonBlankString, '  ', 'NonBlankString', 'must be a non-blank string, got "  "'],
      [NonEmptyString, '', 'NonEmptyString', 'must be a non-empty string, got ""'],
      [NonNegativeInteger, 1.5, 'NonNegativeInteger', 'must be a non-negative integer, got 1.5'],
      [NonNegativeNumber, -1, 'NonNegativeNumber', 'must be a non-negative number, got -1'],
      [PositiveNumber, 0, 'PositiveNumber', 'must be a positive number, got 0'],
      [PositiveNumber, null, 'PositiveNumber', 'must be a positive number, got null'],
    ]
    for (const [codec, value, name, message] of cases) {
      const [e] = errorsOf(codec, value)
      expect(e!.context.at(-1)!.type.name).toBe(name)
      expect(e!.message).toBe(message)
    }
    const Even = refined(t.number, 'Even', (n) => n % 2 === 0)
    expect(errorsOf(Even, 3)[0]!.message).toBeUndefined()
  })

  it('a refinement takes exactly the values of its base that pass its check', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null)), (u) => {
        const ok = typeof u === 'number' && Number.isSafeInteger(u) && u >= 0
        expect(NonNegativeInteger.is(u)).toBe(ok)
        expect(E.isRight(NonNegativeInteger.decode(u))).toBe(ok)
      }),
    )
  })

  it('gives each codec the JSON Schema its checks imply', () => {
    expect(jsonSchemaOf(Step)).toMatchObject({
      type: 'object',
      required: ['id', 'tags'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1 },
        retries: { type: 'integer', minimum: 0 },
        channel: { enum: ['flow', 'link'] },
      },
    })
  })

  it('writes a JSON pointer by RFC 6901 and moves paths under a prefix', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (keys) => {
        const parsed = pointer(keys)
          .split('/')
          .slice(1)
          .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
        expect(parsed).toEqual(keys)
      }),
    )
    expect(under('/network', [{ _tag: 'X', path: '/id' }])).toEqual([
      { _tag: 'X', path: '/network/id' },
    ])
  })
})
