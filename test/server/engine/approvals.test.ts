import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { tool } from '../../../src/index.js'
import type { ApprovalDecidedEvent, ApprovalRequestedEvent } from '../../../src/protocol/index.js'
import { scriptedProvider, toolUse } from '../../../src/testing/index.js'
import { connectedPeers, type Peer } from '../kit.js'

// An LLM node's tool calls held by its approvals policy: asked through the
// engine's run control, seen as events, decided with APPROVE / DENY.

const notes: string[] = []
const note = tool(
  { name: 'note', description: 'keeps a note', input_schema: { type: 'object' } },
  t.type({ path: t.string }),
  ({ path }) => {
    notes.push(path)
    return Promise.resolve(`noted ${path}`)
  },
)

/** A model that calls `note` with `path`, then answers what the tool said. */
const model = (...paths: string[]) =>
  scriptedProvider(
    paths.flatMap((path) => [
      [toolUse('note', { path })],
      (request: { messages: readonly { content: unknown }[] }) =>
        `model saw: ${JSON.stringify(request.messages.at(-1)?.content)}`,
    ]),
  )

const connected = connectedPeers({
  providers: { scripted: model('docs/a.md', 'secret/b.md', 'secret/c.md') },
  tools: [note],
})

/** The `n`th (1-based) event of `type` the peer got, once it has come. */
const nth = async <T extends 'APPROVAL_REQUESTED' | 'APPROVAL_DECIDED'>(
  p: Peer,
  type: T,
  n: number,
): Promise<T extends 'APPROVAL_REQUESTED' ? ApprovalRequestedEvent : ApprovalDecidedEvent> => {
  await p.waitFor(() => p.events().filter((e) => e.type === type).length >= n)
  return p.events().filter((e) => e.type === type)[n - 1] as never
}

describe("an LLM node's tool calls under its approvals policy", () => {
  it('passes what a rule allows, waits for APPROVE (with edited arguments), and is refused on DENY', async () => {
    const p = await connected()
    await p.ok('SUBSCRIBE', { types: ['APPROVAL_REQUESTED', 'APPROVAL_DECIDED'] })
    await p.ok('CREATE_NODE', {
      nodeId: 'writer',
      kind: 'llm',
      options: {
        provider: 'scripted',
        tools: ['note'],
        approvals: {
          rules: [{ tool: 'note', pattern: 'docs/*', decision: 'approve' }],
          fallback: 'ask',
        },
      },
    })
    notes.length = 0

    // docs/a.md: the rule lets it through, nobody is asked.
    expect(await p.ok('EXECUTE_INPUT', { nodeId: 'writer', input: 'note a' })).toEqual(
      expect.stringContaining('"content":"noted docs/a.md"'),
    )
    expect(p.events()).toEqual([])

    // secret/b.md waits; the approver edits its path.
    const second = p.call('EXECUTE_INPUT', { nodeId: 'writer', input: 'note b' })
    const asked = await nth(p, 'APPROVAL_REQUESTED', 1)
    expect(asked.request).toMatchObject({
      nodeId: 'writer',
      sessionId: 'default',
      action: 'note',
      target: 'secret/b.md',
      file: 'secret/b.md',
      arguments: { path: 'secret/b.md' },
    })
    expect(await p.ok('LIST_APPROVALS', { nodeId: 'writer' })).toEqual({
      pending: [asked.request],
    })
    await p.ok('APPROVE', { requestId: asked.request.id, arguments: { path: 'secret/b2.md' } })
    expect((await second).result).toContain('noted secret/b2.md')
    expect(notes).toEqual(['docs/a.md', 'secret/b2.md'])

    // secret/c.md is denied: the tool does not run, the model is told why.
    const third = p.call('EXECUTE_INPUT', { nodeId: 'writer', input: 'note c' })
    const again = await nth(p, 'APPROVAL_REQUESTED', 2)
    await p.ok('DENY', { requestId: again.request.id, note: 'not there' })
    expect((await third).result).toContain('the call was not approved (denied by user: not there)')
    expect(notes).toEqual(['docs/a.md', 'secret/b2.md'])
    const decided = await nth(p, 'APPROVAL_DECIDED', 2)
    expect(decided).toMatchObject({ decision: { decision: 'denied', note: 'not there' } })
  })

  it('answers UnknownApproval for a request that is not waiting, in both forms', async () => {
    const p = await connected()
    for (const params of [{ requestId: 'approval-7' }, { requestId: 'approval-7', note: 'x' }]) {
      const r = await p.call('DENY', params)
      expect(r.error?.data).toMatchObject({ tag: 'UnknownApproval', path: '/requestId' })
    }
    const net = await p.call('APPROVE', { networkId: 'nope', requestId: 'approval-7' })
    expect(net.error?.data).toMatchObject({ tag: 'UnknownNetwork' })
  })
})

describe('an approval gate in a graph file on the daemon', () => {
  const release = {
    id: 'release',
    nodes: {
      gate: { kind: 'approval', action: 'ship', reason: 'a person signs the release off' },
      ship: { kind: 'bash', command: 'echo shipped' },
    },
    steps: [
      { id: 'gate', node: 'gate', input: 'v1' },
      { id: 'ship', node: 'ship', dependsOn: ['gate'] },
    ],
  }

  /** The run's state once it is no longer running. */
  const settled = async (p: Peer, runId: string) => {
    for (;;) {
      const run = await p.ok<{ state: string; error?: { message: string } }>('GET_RUN', { runId })
      if (run.state !== 'running') return run
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  it('holds the run until APPROVE, and fails it on DENY', async () => {
    const p = await connected()
    await p.ok('SUBSCRIBE', { types: ['APPROVAL_REQUESTED'] })
    const { runId } = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: release })
    const asked = await nth(p, 'APPROVAL_REQUESTED', 1)
    expect(asked.request).toMatchObject({
      runId,
      nodeId: 'gate',
      action: 'ship',
      target: 'v1',
      reason: 'a person signs the release off',
    })
    expect((await p.ok<{ state: string }>('GET_RUN', { runId })).state).toBe('running')
    await p.ok('APPROVE', { requestId: asked.request.id })
    expect((await settled(p, runId)).state).toBe('completed')

    const denied = await p.ok<{ runId: string }>('EXECUTE_GRAPH', { graph: release })
    const again = await nth(p, 'APPROVAL_REQUESTED', 2)
    await p.ok('DENY', { requestId: again.request.id, note: 'freeze' })
    const run = await settled(p, denied.runId)
    expect(run.state).toBe('failed')
    expect(JSON.stringify(run.error)).toContain('denied by user: freeze')
  })
})
