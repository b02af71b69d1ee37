/**
 * The Orchestrator's sub-agents: tools that spawn a node into the running
 * network (a role, a provider, a task, a share of the spawner's budget),
 * wait for its answer, and stop it. A spawned node joins by a live edit —
 * an `addNode` patch every face sees, as a removal is one — and counts
 * against the network's limits (`maxSpawned`, `maxInFlight`) and budget.
 * A node names the tools it may use (`spawn_agent`, `await_agent`,
 * `stop_agent`: the Orchestrator role does); a node awaits and stops only
 * the agents it spawned.
 *
 * @internal
 */
import * as t from 'io-ts'
import { tool, type Tool, type ToolOutput } from '../../interpreters/index.js'
import type { Budget } from '../../runtime/index.js'
import { change } from '../model/edit.js'
import type { Envelope } from '../model/Envelope.js'
import { addNode, removeNode } from '../model/nodeEdits.js'
import { BudgetCodec, ProviderCodec } from '../model/parts.js'
import { remainingBudget } from './runParts.js'
import { type RunState } from './runState.js'
import { applyToRun } from './topology.js'

const SpawnInput = t.intersection([
  t.type({ id: t.string, role: t.string, task: t.string }),
  t.partial({ provider: ProviderCodec, budget: BudgetCodec, share: t.number }),
])

const AgentInput = t.intersection([t.type({ id: t.string }), t.partial({ timeoutMs: t.number })])

const object = (
  properties: Readonly<Record<string, unknown>>,
  required: readonly string[],
): { type: 'object'; properties: Readonly<Record<string, unknown>>; required: string[] } => ({
  type: 'object',
  properties,
  required: [...required],
})

const refuse = (content: string): ToolOutput => ({ content, is_error: true })

/** The answers of a sub-agent: its envelopes, but for the ticks it sends itself. */
const answers = (s: RunState, id: string): readonly Envelope[] =>
  s.log
    .vertices()
    .map((v) => v.data)
    .filter((e) => e.fromNodeId === id && e.toNodeId !== id)

/** `share` (0 < share ≤ 1) of what is left of `parent`'s own budget, per limit. */
const shareOf = (s: RunState, parent: string, share: number): Budget | undefined => {
  const node = s.net.nodes[parent]
  const st = s.nodes.get(parent)
  if (node?.budget === undefined || st === undefined) return undefined
  const left = remainingBudget([{ budget: node.budget, used: st.usage }]).budget ?? {}
  return Object.fromEntries(
    Object.entries(left).map(([k, v]) => [
      k,
      k === 'maxApiCalls' ? Math.floor(v * share) : v * share,
    ]),
  )
}

/**
 * The spawning tools of node `parent` in run `s`: each spawned node is
 * remembered with the answers it had given when last awaited, so
 * `await_agent` returns its next answer.
 */
export const spawnTools = (s: RunState, parent: string): readonly Tool[] => {
  const seen = new Map<string, number>()

  const spawn = tool(
    {
      name: 'spawn_agent',
      description:
        'Start a sub-agent in the network with a role and a task. It works on its own; ' +
        'collect its answer with await_agent and end it with stop_agent.',
      input_schema: object(
        {
          id: { type: 'string', description: 'A new node id' },
          role: { type: 'string', description: 'A role name (Coder, Verifier, Planner, …)' },
          task: { type: 'string', description: 'What the sub-agent is asked to do' },
          provider: { type: 'object', description: "Its model; absent: the spawner's" },
          budget: { type: 'object', description: 'Its budget (maxTokens, maxApiCalls, maxCost)' },
          share: {
            type: 'number',
            description: "A share (0–1] of what is left of the spawner's budget",
          },
        },
        ['id', 'role', 'task'],
      ),
    },
    SpawnInput,
    (input) => {
      const own = s.net.nodes[parent]
      if (own === undefined) return Promise.resolve(refuse(`"${parent}" left the network`))
      const max = s.net.limits.maxSpawned
      if (s.spawned.size >= max) {
        return Promise.resolve(
          refuse(`the network allows ${max} spawned agents (limits.maxSpawned)`),
        )
      }
      // a command node would run shell commands past the workspace policy's checks
      if (input.provider?.type === 'command') {
        return Promise.resolve(
          refuse('spawn_agent starts agents (mock, llm or cli providers), not commands'),
        )
      }
      if (input.share !== undefined && !(input.share > 0 && input.share <= 1)) {
        return Promise.resolve(refuse(`share must be in (0, 1], got ${input.share}`))
      }
      const budget =
        input.budget ?? (input.share === undefined ? undefined : shareOf(s, parent, input.share))
      try {
        const spec = {
          id: input.id,
          role: input.role,
          provider: input.provider ?? own.provider,
          ...(budget !== undefined && { budget }),
        }
        applyToRun(s, change(addNode(spec))(s.net), `spawn ${input.id} by ${parent}`)
      } catch (e) {
        return Promise.resolve(refuse(e instanceof Error ? e.message : String(e)))
      }
      seen.set(input.id, 0)
      s.spawned.set(input.id, parent)
      const task = s.record('message', parent, input.id, { message: input.task }, [])
      s.nodes.get(input.id)?.user.push(task)
      return Promise.resolve(`spawned "${input.id}" (${input.role})`)
    },
  )

  const wait = tool(
    {
      name: 'await_agent',
      description: 'Wait for the next answer of a sub-agent you spawned, and return it.',
      input_schema: object(
        {
          id: { type: 'string' },
          timeoutMs: { type: 'number', description: 'How long to wait (default 10 minutes)' },
        },
        ['id'],
      ),
    },
    AgentInput,
    async (input, ctx) => {
      const from = seen.get(input.id)
      if (from === undefined) return refuse(`"${input.id}" is not a sub-agent of "${parent}"`)
      const deadline = AbortSignal.timeout(input.timeoutMs ?? 600_000)
      const abort = Promise.race([ctx.signal, deadline].map(aborted))
      const events = s.hub.subscribe()
      try {
        for (;;) {
          const next = answers(s, input.id)[from]
          if (next !== undefined) {
            seen.set(input.id, from + 1)
            const text = next.payload.message
            return next.kind === 'error' ? refuse(text) : `${next.kind}: ${text}`
          }
          const halted = s.nodes.get(input.id)?.halted
          if (halted !== undefined) return refuse(`"${input.id}" was halted: ${halted.message}`)
          if (s.nodes.get(input.id) === undefined) return refuse(`"${input.id}" was stopped`)
          const step = await Promise.race([events.next(), abort])
          if (step === 'aborted') {
            return refuse(ctx.signal.aborted ? 'cancelled' : `"${input.id}" gave no answer in time`)
          }
          if (step.done === true) return refuse('the network run ended')
        }
      } finally {
        void events.return(undefined)
      }
    },
  )

  const stop = tool(
    {
      name: 'stop_agent',
      description: 'Stop a sub-agent you spawned and remove it from the network.',
      input_schema: object({ id: { type: 'string' } }, ['id']),
    },
    AgentInput,
    (input) => {
      if (!seen.has(input.id)) {
        return Promise.resolve(refuse(`"${input.id}" is not a sub-agent of "${parent}"`))
      }
      seen.delete(input.id)
      if (s.net.nodes[input.id] !== undefined) {
        applyToRun(s, change(removeNode(input.id))(s.net), `stop ${input.id} by ${parent}`)
      }
      return Promise.resolve(`stopped "${input.id}"`)
    },
  )
  return [spawn, wait, stop]
}

const aborted = (signal: AbortSignal): Promise<'aborted'> =>
  signal.aborted
    ? Promise.resolve('aborted')
    : new Promise((resolve) => {
        signal.addEventListener(
          'abort',
          () => {
            resolve('aborted')
          },
          { once: true },
        )
      })
