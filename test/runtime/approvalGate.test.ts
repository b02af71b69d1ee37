import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
import {
  approvalGate,
  ApprovalRefused,
  type ApprovalRequest,
  RunControl,
} from 'nerve-agents/runtime'
import { record, replay } from 'nerve-agents/store'

/** A release graph: a gate on the version, then a step that ships what the gate let through. */
const release = (control: RunControl) =>
  pipe(
    graph('release'),
    addStep({ id: 'gate', node: approvalGate('gate', { control, action: 'ship' }), input: 'v1' }),
    addStep({
      id: 'ship',
      node: fn('ship', (ctx) => `shipped ${(ctx.upstream as { gate: string }).gate}`),
      dependsOn: ['gate'],
    }),
  )

/** Run control whose requests are answered by `answer` as they come, each recorded. */
const answering = (answer: (c: RunControl, r: ApprovalRequest) => void) => {
  const asked: ApprovalRequest[] = []
  const control: RunControl = new RunControl({
    onRequest: (r) => {
      asked.push(r)
      queueMicrotask(() => {
        answer(control, r)
      })
    },
  })
  return { control, asked }
}

describe('an approval gate step', () => {
  it('lets the run go on once approved, with the input the approver edited', async () => {
    const { control, asked } = answering((c, r) => {
      c.approve(r.id, 'ana', 'a patch release', { input: 'v1.0.1' })
    })
    const result = await run(release(control), { runId: 'r1', interpreters: defaultInterpreters })
    expect(result.results['ship']).toBe('shipped v1.0.1')
    expect(asked).toEqual([
      expect.objectContaining({ runId: 'r1', nodeId: 'gate', action: 'ship', target: 'v1' }),
    ])
  })

  it('fails the step when the request is denied, and the steps after it do not run', async () => {
    const { control } = answering((c, r) => {
      c.deny(r.id, 'ben', 'freeze')
    })
    const result = await run(release(control), { interpreters: defaultInterpreters }).then(
      E.right,
      E.left,
    )
    expect(E.isLeft(result)).toBe(true)
    const error = JSON.stringify(E.isLeft(result) ? String(result.left) : '')
    expect(error).toContain('denied by ben: freeze')
    expect(new ApprovalRefused('approval-1', 'timeout', 'timeout').message).toBe(
      'approval approval-1 was not given in time',
    )
  })

  it('is replayed from its recording as an input: nobody is asked again', async () => {
    const first = answering((c, r) => {
      c.approve(r.id, 'ana')
    })
    const { recording } = await record(release(first.control), {
      interpreters: defaultInterpreters,
    })
    const later = answering(() => undefined)
    const again = await replay(recording, release(later.control))
    expect(E.isRight(again) && again.right.results['ship']).toBe('shipped v1')
    expect(later.asked).toEqual([])
  })
})
