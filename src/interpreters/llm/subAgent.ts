import * as t from 'io-ts'
import { appendTo, empty, system, tools as toolsEntry, user } from '../../conversation/build.js'
import { UsageError } from '../../errors.js'
import { tool, toolDefinitionsOf, type Tool, type Toolbox } from '../tools/Tool.js'
import { AgentFailed, runAgent, type AgentOptions } from './agent.js'
import type { Provider } from './Provider.js'

/**
 * Options of {@link subAgent}: the tool's name and description, the model
 * and system prompt of the agent it runs, that agent's tools, and the loop's
 * other settings.
 *
 * @category agent
 */
export interface SubAgentOptions extends Omit<
  AgentOptions,
  'signal' | 'depth' | 'maxDepth' | 'tools' | 'onUsage'
> {
  readonly name: string
  readonly description: string
  readonly provider: Provider
  readonly system: string
  readonly tools?: Toolbox
}

const TaskInput = t.type({ task: t.string })

/**
 * A tool that hands a task to another agent: it runs {@link runAgent} on a
 * fresh conversation (the system prompt, the agent's tools, the task) one
 * level deeper, with the calling tool's signal, and answers the agent's
 * last text. The loop records the sub-agent's whole conversation as a
 * sub_conversation entry, and its usage, cost and calls count in the
 * caller's result (and go to the caller's `onUsage` as they happen).
 *
 * How deep sub-agents may go is the run's `maxDepth` (see
 * {@link AgentOptions}): a call that would go deeper is answered with an
 * error, and the sub-agent runs under the same limit.
 *
 * @category agent
 * @example
 * import { empty, subConversations, toolbox, user } from 'nerve-agents'
 * import { runAgent, subAgent } from 'nerve-agents/interpreters'
 * import { scriptedProvider, toolUse } from 'nerve-agents/testing'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const researcher = subAgent({
 *   name: 'research',
 *   description: 'Looks things up.',
 *   provider: scriptedProvider(['Oslo is in Norway.']),
 *   system: 'You research.',
 * })
 * const lead = scriptedProvider([[toolUse('research', { task: 'Where is Oslo?' })], 'Norway.'])
 * const result = await runAgent(lead, pipe(empty, user('Where is Oslo?')), { tools: toolbox(researcher) })
 * assert.strictEqual(result.text, 'Norway.')
 * assert.strictEqual(subConversations(result.conversation)[0]?.summary, 'Oslo is in Norway.')
 */
export const subAgent = (options: SubAgentOptions): Tool => {
  if ((options as { maxDepth?: unknown }).maxDepth !== undefined) {
    throw new UsageError(
      'subAgent',
      'options.maxDepth is the run’s: give it to runAgent (or the llm node), not to the sub-agent',
    )
  }
  const { name, description, provider, system: prompt, tools, ...loop } = options
  const box: Toolbox = tools ?? new Map()
  return tool(
    {
      name,
      description,
      input_schema: {
        type: 'object',
        properties: { task: { type: 'string', description: 'What the agent is to do.' } },
        required: ['task'],
      },
    },
    TaskInput,
    async ({ task }, ctx) => {
      const depth = ctx.depth + 1
      const maxDepth = ctx.maxDepth ?? 2
      if (depth > maxDepth) {
        return {
          content: `not run: sub-agent "${name}" would run at depth ${depth}, deeper than the limit of ${maxDepth}`,
          is_error: true,
        }
      }
      const start = appendTo(empty, system(prompt), toolsEntry(toolDefinitionsOf(box)), user(task))
      try {
        const result = await runAgent(provider, start, {
          ...loop,
          tools: box,
          signal: ctx.signal,
          depth,
          maxDepth,
          ...(ctx.reportUsage !== undefined && { onUsage: ctx.reportUsage }),
        })
        return {
          content: result.text,
          is_error: result.stopReason === 'cancelled',
          conversation: {
            heads: [result.conversation],
            system_prompt: prompt,
            summary: result.text,
          },
          usage: result.usage,
          cost: result.cost,
          calls: result.calls,
        }
      } catch (e) {
        if (!(e instanceof AgentFailed)) throw e
        return {
          content: e.message,
          is_error: true,
          conversation: { heads: [e.conversation], system_prompt: prompt, summary: e.message },
          usage: e.usage,
          cost: e.cost,
          calls: e.calls,
        }
      }
    },
  )
}
