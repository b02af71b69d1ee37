import { describe, expect, it } from 'vitest'
import { RunControl, UsageError } from 'nerve-agents'
import { fakeClock } from 'nerve-agents/testing'

const ask = {
  runId: 'r',
  nodeId: 'coder',
  action: 'bash',
  target: 'rm -rf dist',
  reason: 'it deletes files',
}

describe('run control', () => {
  it('records an approval or a denial, with who decided', async () => {
    const decided: string[] = []
    const control = new RunControl({ onDecision: (d) => decided.push(d.decision) })
    const a = control.request(ask, 1000)
    const b = control.request({ ...ask, target: 'git push' }, 1000)
    const [first, second] = control.pending()
    control.deny(second!.id, 'ana', 'not today')
    control.approve(first!.id, 'orchestrator')
    expect((await a).by).toBe('orchestrator')
    expect(await b).toMatchObject({ decision: 'denied', by: 'ana', note: 'not today' })
    expect(decided).toEqual(['denied', 'approved'])
    expect(control.pending()).toEqual([])
    expect(() => {
      control.approve(first!.id)
    }).toThrow(UsageError)
  })

  it('times a request out by the clock and records the timeout', async () => {
    const clock = fakeClock()
    const control = new RunControl({ clock })
    const waiting = control.request(ask, 500)
    await clock.advance(499)
    expect(control.pending()).toHaveLength(1)
    await clock.advance(1)
    expect(await waiting).toMatchObject({ decision: 'timeout', by: 'timeout', time: 500 })
    expect(control.decisions()).toHaveLength(1)
  })

  it('cancels the pending approvals of a removed run', async () => {
    const control = new RunControl()
    const run = {
      runId: 'r',
      label: 'team',
      status: 'running',
      cancel: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
    }
    control.add(run)
    const waiting = control.request(ask, 10_000)
    expect(() => {
      control.add(run)
    }).toThrow(/active already/)
    control.remove('r')
    expect((await waiting).decision).toBe('cancelled')
    expect(() => {
      control.cancel('r')
    }).toThrow(/no active run "r"/)
  })
})
