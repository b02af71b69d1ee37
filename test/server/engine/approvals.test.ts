import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { tool } from '../../../src/index.js'
import type { EngineEvent } from '../../../src/protocol/index.js'
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

/** The first event of `type` about request number `n` (1-based) of the peer's events. */
const nth = async (p: Peer, type: 'APPROVAL_REQUESTED' | 'APPROVAL_DECIDED', n: number) => {
  await p.waitFor(() => p.events().filter((e) => e.type === type).length >= n)
  return p.events().filter((e) => e.type === type)[n - 1] as Extract<
    EngineEvent,
    { type: typeof type; nodeId: string }
  >
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
    const asked = (await nth(p, 'APPROVAL_REQUESTED', 1)) as Extract<
      EngineEvent,
      { type: 'APPROVAL_REQUESTED'; nodeId: string }
    >
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
    const again = (await nth(p, 'APPROVAL_REQUESTED', 2)) as typeof asked
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
