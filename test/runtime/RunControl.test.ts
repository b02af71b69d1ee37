import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import { RunControl } from 'nerve-agents/runtime'
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

  it('decides by policy at once, telling the request and the decision', async () => {
    const told: string[] = []
    const control = new RunControl({
      onRequest: (r) => told.push(`asked ${r.target}`),
      onDecision: (d) => told.push(`${d.decision} by ${d.by}`),
    })
    const policy = (r: { readonly target: string }) => (r.target.startsWith('rm') ? 'deny' : 'ask')
    const { decided } = control.ask(ask, { timeoutMs: 1000, policy })
    expect(await decided).toMatchObject({ decision: 'denied', by: 'policy' })
    expect(told).toEqual(['asked rm -rf dist', 'denied by policy'])
    const { request } = control.ask({ ...ask, target: 'ls' }, { timeoutMs: 1000, policy })
    expect(control.pending()).toEqual([request])
    control.withdraw(request.id)
    expect(control.pending()).toEqual([])
  })

  it('lets a timeout approve when the asker says so', async () => {
    const clock = fakeClock()
    const control = new RunControl({ clock })
    const { decided } = control.ask(ask, { timeoutMs: 100, onTimeout: 'approve' })
    await clock.advance(100)
    expect(await decided).toMatchObject({ decision: 'approved', by: 'timeout' })
  })

  it('carries the arguments an approver edited', async () => {
    const control = new RunControl()
    const { request, decided } = control.ask(
      { ...ask, arguments: { path: 'a.txt' } },
      { timeoutMs: 1000 },
    )
    control.approve(request.id, 'ana', undefined, { path: 'b.txt' })
    expect((await decided).arguments).toEqual({ path: 'b.txt' })
  })
})
