import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runTeam } from '../../src/demoNetwork.js'

describe('a team on a git repository (end to end, mock providers)', () => {
  it('plans under docs/, is refused elsewhere, then loops coder ⇄ verifier until the tests pass', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-team-'))
    const root = join(dir, 'repo')
    const sessionDir = join(dir, 'session')
    const { outcome, events, artifacts, html } = await runTeam(root, sessionDir)

    expect(readFileSync(join(root, 'docs/plan.md'), 'utf8')).toMatch(/^# Plan/)
    expect(events.filter((e) => e.type === 'refused')).toEqual([
      expect.objectContaining({ nodeId: 'planner', tool: 'write', target: 'src/add.cjs' }),
    ])
    expect(readFileSync(join(root, 'src/add.cjs'), 'utf8')).toBe('exports.add = (a, b) => a + b\n')

    expect(outcome.status).toBe('done')
    expect([...outcome.done].sort()).toEqual(['coder', 'verifier'])
    const kinds = outcome.log.envelopes().map((e) => `${e.kind} ${e.fromNodeId}→${e.toNodeId}`)
    expect(kinds).toEqual([
      'message user→planner',
      'handoff planner→coder',
      'tick coder→coder',
      'message coder→verifier',
      'status verifier→coder',
      'tick coder→coder',
      'message coder→verifier',
      'done verifier→coder',
    ])
    const done = outcome.log.vertices().at(-1)!
    expect(done.parents[0]!.data.payload.message).toBe('Fixed the sign in add.')

    const listed = await artifacts.list()
    expect(listed.map((a) => a.type)).toContain('plan')
    expect(listed.map((a) => a.type)).toContain('verification')
    const plan = listed.find((a) => a.type === 'plan')!
    expect(await artifacts.readText(plan.ref)).toMatch(/^# Plan/)
    expect(html).toContain('8 envelopes')
    expect(existsSync(join(sessionDir, 'envelopes.html'))).toBe(true)
    const journal = readFileSync(join(sessionDir, 'network.jsonl'), 'utf8').trim().split('\n')
    expect(journal.map((l) => (JSON.parse(l) as { type: string }).type)).toContain('patch')
  })
})
