import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import {
  afterAttempts,
  fail,
  fallback,
  fallbackNode,
  mapFallbackNode,
  maxAttempts,
  policyProblems,
  retry,
  retryDelay,
  skip,
} from '../../src/graph/ErrorPolicy.js'
import { fn } from '../../src/node/FunctionNode.js'
import type {
  ErrorPolicy,
  FailPolicy,
  FallbackPolicy,
  SkipPolicy,
} from '../../src/graph/ErrorPolicy.js'

describe('policy constructors', () => {
  it('build frozen tagged values', () => {
    const backup = fn('backup', () => 0)
    expect(fail).toEqual({ _tag: 'fail' })
    expect(skip(7)).toEqual({ _tag: 'skip', value: 7 })
    expect(fallback(backup)).toEqual({ _tag: 'fallback', node: backup })
    for (const p of [fail, skip(7), fallback(backup), retry({ count: 1 })]) {
      expect(Object.isFrozen(p)).toBe(true)
    }
  })

  it('fill in retry defaults: no delay, constant backoff, no jitter, then fail', () => {
    expect(retry({ count: 2 })).toEqual({
      _tag: 'retry',
      count: 2,
      delayMs: 0,
      backoff: 1,
      jitter: 0,
      then: fail,
    })
  })

  it('reject a fallback that is not a node', () => {
    expect(() => fallback({} as never)).toThrow(UsageError)
  })

  it.each([
    [{ count: -1 }, 'options.count must be an integer ≥ 0, got -1'],
    [{ count: 1.5 }, 'options.count must be an integer ≥ 0, got 1.5'],
    [{ count: NaN }, 'options.count must be an integer ≥ 0, got NaN'],
    [{ count: 1, delayMs: -5 }, 'options.delayMs must be a finite number ≥ 0, got -5'],
    [{ count: 1, delayMs: Infinity }, 'options.delayMs must be a finite number ≥ 0'],
    [{ count: 1, backoff: 0.5 }, 'options.backoff must be a finite number ≥ 1, got 0.5'],
    [{ count: 1, maxDelayMs: NaN }, 'options.maxDelayMs must be a finite number ≥ 0, got NaN'],
    [{ count: 1, jitter: 1.1 }, 'options.jitter must be between 0 and 1, got 1.1'],
    [{ count: 1, jitter: -0.1 }, 'options.jitter must be between 0 and 1'],
    [
      { count: 1, then: retry({ count: 1 }) as never },
      'options.then must be a fail, skip or fallback',
    ],
    [
      { count: 1, then: { _tag: 'fallback', node: 3 } as never },
      'options.then.node must be a Node',
    ],
  ])('rejects retry(%j), naming the field', (options, message) => {
    expect(() => retry(options)).toThrow(UsageError)
    expect(() => retry(options)).toThrow(message)
  })

  it('reports every problem of a hand-made policy', () => {
    expect(policyProblems({ _tag: 'retry', count: -1, delayMs: 0, backoff: 0, jitter: 2 })).toEqual(
      [
        { field: 'count', reason: 'must be an integer ≥ 0, got -1' },
        { field: 'backoff', reason: 'must be a finite number ≥ 1, got 0' },
        { field: 'jitter', reason: 'must be between 0 and 1, got 2' },
        { field: 'then', reason: 'must be a fail, skip or fallback policy' },
      ],
    )
    expect(policyProblems({ _tag: 'later' })).toEqual([
      { field: '_tag', reason: 'is not a policy: "later"' },
    ])
    expect(policyProblems(null)).toEqual([{ field: 'policy', reason: 'must be a policy' }])
  })
})

describe('retryDelay', () => {
  it('grows by backoff, stops at maxDelayMs and is shortened by jitter', () => {
    const p = retry({ count: 9, delayMs: 10, backoff: 3, maxDelayMs: 200, jitter: 0.5 })
    expect([1, 2, 3, 4].map((n) => retryDelay(p, n, 0))).toEqual([10, 30, 90, 200])
    expect(retryDelay(p, 2, 0.5)).toBe(22.5)
    expect(retryDelay(retry({ count: 1 }), 5, 0.9)).toBe(0)
  })

  it('rejects an attempt below 1 and a random number outside [0, 1)', () => {
    const p = retry({ count: 1, delayMs: 1 })
    expect(() => retryDelay(p, 0, 0)).toThrow(/attempt must be an integer ≥ 1, got 0/)
    expect(() => retryDelay(p, 1, 1)).toThrow(/random01 must be in \[0, 1\), got 1/)
  })

  it('stays between (1 − jitter) and 1 times the capped exponential delay (law)', () => {
    fc.assert(
      fc.property(
        fc.record({
          count: fc.nat(20),
          delayMs: fc.double({ min: 0, max: 1e4, noNaN: true }),
          backoff: fc.double({ min: 1, max: 4, noNaN: true }),
          maxDelayMs: fc.option(fc.double({ min: 0, max: 1e5, noNaN: true }), { nil: undefined }),
          jitter: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (options, attempt, r) => {
          const p = retry(options)
          const full = Math.min(p.delayMs * p.backoff ** (attempt - 1), p.maxDelayMs ?? Infinity)
          const d = retryDelay(p, attempt, r)
          expect(d).toBeGreaterThanOrEqual(0)
          if (p.delayMs > 0) {
            expect(d).toBeLessThanOrEqual(full)
            expect(d).toBeGreaterThanOrEqual(full * (1 - p.jitter) - 1e-9 * full)
          }
        },
      ),
    )
  })
})

const spares = ['a', 'b', 'c'].map((id) => fn(id, () => id))

/** Every shape of policy: fail, skip, fallback, and a retry ending in each of them. */
const final: fc.Arbitrary<FailPolicy | SkipPolicy | FallbackPolicy> = fc.oneof(
  fc.constant(fail),
  fc.integer().map(skip),
  fc.constantFrom(...spares).map(fallback),
)
const policy: fc.Arbitrary<ErrorPolicy> = fc.oneof(
  final,
  fc.tuple(fc.nat({ max: 5 }), final).map(([count, then]) => retry({ count, then })),
)

describe('the retry/fallback shape of a policy', () => {
  it('a retry runs its node count + 1 times, then does what its then says (law)', () => {
    fc.assert(
      fc.property(policy, (p) => {
        expect(maxAttempts(p)).toBe(p._tag === 'retry' ? p.count + 1 : 1)
        expect(afterAttempts(p)).toBe(p._tag === 'retry' ? p.then : p)
        expect(afterAttempts(p)._tag).not.toBe('retry')
      }),
    )
  })

  it('the fallback node is the one of the policy after its retries, if any (law)', () => {
    fc.assert(
      fc.property(policy, (p) => {
        const then = afterAttempts(p)
        expect(fallbackNode(p)).toBe(then._tag === 'fallback' ? then.node : undefined)
      }),
    )
  })

  it('mapping the fallback node by identity returns the policy itself (law)', () => {
    fc.assert(
      fc.property(policy, (p) => {
        expect(mapFallbackNode((n) => n)(p)).toBe(p)
      }),
    )
  })

  it('mapping the fallback node replaces only that node (law)', () => {
    const other = fn('other', () => 'other')
    fc.assert(
      fc.property(policy, (p) => {
        const mapped = mapFallbackNode(() => other)(p)
        expect(fallbackNode(mapped)).toBe(fallbackNode(p) === undefined ? undefined : other)
        expect(maxAttempts(mapped)).toBe(maxAttempts(p))
        expect(mapped._tag).toBe(p._tag)
        expect(Object.isFrozen(mapped)).toBe(true)
        expect(policyProblems(mapped)).toEqual([])
      }),
    )
  })
})
