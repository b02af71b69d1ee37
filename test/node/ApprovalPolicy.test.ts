import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ApprovalPolicyCodec,
  type ApprovalVerdict,
  type Risk,
  riskAtLeast,
  verdictOf,
} from '../../src/core.js'

const risks: readonly Risk[] = ['low', 'medium', 'high']
const risk = fc.constantFrom(...risks)
const rated = fc.option(risk, { nil: undefined })

describe('approval policy by risk', () => {
  it('a rule naming a risk matches the requests rated that risk or more, and no unrated one (law)', () => {
    fc.assert(
      fc.property(risk, rated, fc.string(), (least, asked, target) => {
        const policy = {
          rules: [{ risk: least, decision: 'deny' as ApprovalVerdict }],
          fallback: 'approve' as const,
        }
        const verdict = verdictOf(policy)({ action: 'any', target, risk: asked })
        const expected =
          asked !== undefined && risks.indexOf(asked) >= risks.indexOf(least) ? 'deny' : 'approve'
        expect(verdict).toBe(expected)
        expect(riskAtLeast(least)(asked)).toBe(expected === 'deny')
      }),
    )
  })

  it('checks a rule’s risk with its tool and pattern: all three must match', () => {
    const decide = verdictOf({
      rules: [
        { tool: 'bash', pattern: 'npm test*', decision: 'approve' },
        { risk: 'high', decision: 'ask' },
        { tool: 'write', risk: 'medium', pattern: 'docs/*', decision: 'approve' },
      ],
      fallback: 'deny',
    })
    expect(decide({ action: 'bash', target: 'npm test', risk: 'high' })).toBe('approve')
    expect(decide({ action: 'bash', target: 'rm -rf /', risk: 'high' })).toBe('ask')
    expect(decide({ action: 'write', target: 'docs/a.md', risk: 'medium' })).toBe('approve')
    expect(decide({ action: 'write', target: 'docs/a.md' })).toBe('deny')
    expect(decide({ action: 'write', target: 'src/a.ts', risk: 'medium' })).toBe('deny')
  })

  it('decodes a rule’s risk, and names the path of one that is not a risk', () => {
    const good = { rules: [{ risk: 'medium', decision: 'ask' }] }
    expect(ApprovalPolicyCodec.decode(good)).toEqual(E.right(good))
    const bad = ApprovalPolicyCodec.decode({ rules: [{ risk: 'extreme', decision: 'ask' }] })
    expect(E.isLeft(bad)).toBe(true)
    const paths = E.isLeft(bad)
      ? bad.left.map((e) =>
          e.context
            .map((c) => c.key)
            .filter((k) => k !== '')
            .join('/'),
        )
      : []
    expect(paths).toContain('rules/0/risk')
  })
})
