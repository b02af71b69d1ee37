import type * as t from 'io-ts'
import type {
  Conversation,
  ToolDefinition,
  ToolResultContent,
  ToolUseBlock,
  Usage,
} from '../../conversation/Entry.js'
import { UsageError } from '../../errors.js'
import type { UsageReport } from '../../node/Interpreter.js'
import { RiskCodec, type Risk } from '../../node/ApprovalPolicy.js'

/**
 * What a tool is told about the call it serves.
 *
 * @category tools
 */
export interface ToolContext {
  /** Aborting it must stop the tool promptly: kill its processes, end its walks. */
  readonly signal: AbortSignal
  /**
   * Whether `signal` is aborted, when the caller can tell without making
   * it (the agent loop in a runtime step makes the step's signal only when
   * read): a tool that only checks, never waits on it, reads this
   * (`ctx.aborted ?? ctx.signal.aborted`).
   */
  readonly aborted?: boolean
  /** The `id` of the model's `tool_use` block. */
  readonly toolUseId: string
  /** The sub-agent depth of the calling conversation: 0 at the top. */
  readonly depth: number
  /**
   * The deepest sub-agent the run allows (its `maxDepth`): one limit for
   * the whole run, which a sub-agent passes on. Absent: 2.
   */
  readonly maxDepth?: number
  /** Where a tool that calls a model (a sub-agent) reports what the calls cost, when the caller counts it. */
  readonly reportUsage?: (usage: UsageReport) => void
}

/**
 * What a tool answers: the `content` of the `tool_result` block, whether it
 * is an error, and, for a tool that ran a conversation of its own (a
 * sub-agent), that conversation, which the agent loop records as a
 * `sub_conversation` entry, and what its model calls used, which the loop
 * adds to its run's.
 *
 * @category tools
 */
export interface ToolOutput {
  readonly content: ToolResultContent
  readonly is_error?: boolean
  /** A nested conversation the tool ran (sub-agent), recorded by the loop as a sub_conversation entry. */
  readonly conversation?: {
    readonly heads: readonly Conversation[]
    readonly system_prompt: string
    readonly summary: string
  }
  /** What the tool's own model calls used (a sub-agent's run), added to the calling run's usage. */
  readonly usage?: Usage
  /** What those calls cost, added to the calling run's cost. */
  readonly cost?: number
  /** How many model calls the tool made, added to the calling run's calls. */
  readonly calls?: number
}

/**
 * A tool a model can call: its `definition` (name, description, JSON Schema
 * of its input), shown to the model, and `run`, which does the work. `run`
 * may answer with the content alone when the call succeeded. Build one with
 * {@link tool}, which decodes the input first.
 *
 * @category tools
 */
export interface Tool {
  readonly definition: ToolDefinition
  /**
   * How much harm a call can do: what the `risk` of an approval policy's
   * rules matches, and what an approval request shows. Unrated when absent.
   * The built-in tools rate themselves: `read`, `glob` and `grep` low,
   * `write` and `edit` medium, `bash` high.
   */
  readonly risk?: Risk
  run(
    input: Readonly<Record<string, unknown>>,
    ctx: ToolContext,
  ): Promise<ToolOutput | ToolResultContent>
}

/**
 * Tools by name, in the order they were given; build one with {@link toolbox}.
 *
 * @category tools
 */
export type Toolbox = ReadonlyMap<string, Tool>

/** The tool names model providers accept. */
const toolName = /^[a-zA-Z0-9_-]{1,64}$/

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/** A short description of a value found in a tool's input. */
const describe = (u: unknown): string => {
  if (u === undefined) return 'nothing'
  if (u === null) return 'null'
  if (Array.isArray(u)) return `an array of ${u.length}`
  if (typeof u === 'object') return 'an object'
  if (typeof u === 'string') return JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u)
  if (typeof u === 'number' || typeof u === 'boolean') return String(u)
  return typeof u
}

const checkDefinition = (api: string, what: string, definition: unknown): ToolDefinition => {
  if (!isRecord(definition)) throw new UsageError(api, `${what} has no definition object`)
  const { name, description, input_schema } = definition
  if (typeof name !== 'string' || !toolName.test(name)) {
    throw new UsageError(
      api,
      `the name of ${what} must be 1 to 64 letters, digits, "_" or "-", got ${describe(name)}`,
    )
  }
  if (typeof description !== 'string') {
    throw new UsageError(api, `tool "${name}" has no description string`)
  }
  if (!isRecord(input_schema) || input_schema.type !== 'object') {
    throw new UsageError(
      api,
      `the input_schema of tool "${name}" must be a JSON Schema object with type "object"`,
    )
  }
  return Object.isFrozen(definition)
    ? (definition as unknown as ToolDefinition)
    : (Object.freeze({ ...definition }) as unknown as ToolDefinition)
}

/**
 * Collects tools into a {@link Toolbox}. Two tools with one name are a
 * mistake and throw a `UsageError`.
 *
 * @category tools
 * @example
 * import { tool, toolbox, UsageError } from 'nerve-agents'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const def = { name: 'now', description: 'The time', input_schema: { type: 'object' } }
 * const now = tool(def, t.type({}), () => Promise.resolve('noon'))
 * assert.deepStrictEqual([...toolbox(now).keys()], ['now'])
 * assert.throws(() => toolbox(now, now), UsageError)
 */
export const toolbox = (...tools: readonly Tool[]): Toolbox => {
  const byName = new Map<string, Tool>()
  tools.forEach((x, i) => {
    if (!isRecord(x) || typeof x.run !== 'function') {
      throw new UsageError('toolbox', `argument ${i} is not a tool`)
    }
    const { name } = checkDefinition('toolbox', `argument ${i}`, x.definition)
    checkRisk('toolbox', `tool "${name}"`, x.risk)
    if (byName.has(name)) throw new UsageError('toolbox', `two tools are named "${name}"`)
    byName.set(name, x)
  })
  return byName
}

/** Throws a `UsageError` naming `what` unless `risk` is absent or a {@link Risk}. */
const checkRisk = (api: string, what: string, risk: unknown): void => {
  if (risk !== undefined && !RiskCodec.is(risk)) {
    throw new UsageError(
      api,
      `${what}: risk must be "low", "medium" or "high", got ${JSON.stringify(risk)}`,
    )
  }
}

/** The io-ts types whose context entries are members, not fields. */
const memberTags: ReadonlySet<unknown> = new Set(['IntersectionType', 'UnionType'])

/**
 * Why an input did not decode, one clause per field: `field "path" is
 * missing (expected string)`, `field "limit" must be positive integer, got "ten"`.
 *
 * @internal
 */
export const inputProblems = (errors: t.Errors): string => {
  const seen = new Map<string, string>()
  for (const e of errors) {
    const keys: string[] = []
    let expected = e.context[0]?.type.name ?? 'unknown'
    for (let i = 1; i < e.context.length; i++) {
      const parent = e.context[i - 1]!.type as { readonly _tag?: unknown }
      if (memberTags.has(parent._tag)) continue
      keys.push(e.context[i]!.key)
      expected = e.context[i]!.type.name
    }
    const field = keys.join('.')
    if (seen.has(field)) continue
    seen.set(
      field,
      field === ''
        ? `the input must be ${expected}, got ${describe(e.value)}`
        : e.value === undefined
          ? `field "${field}" is missing (expected ${expected})`
          : `field "${field}" must be ${expected}, got ${describe(e.value)}`,
    )
  }
  return [...seen.values()].join('; ')
}

/**
 * Builds a tool whose input is decoded with `codec` before `run` sees it.
 * An input that does not decode is answered with an error output naming
 * each wrong or missing field, so the model can correct its call. The
 * definition's `input_schema` is what the model is shown: keep it in step
 * with the codec (list the required fields in `required`). `options.risk`
 * rates the tool for approval policies (see {@link Tool.risk}).
 *
 * @category tools
 * @example
 * import { tool, toolbox } from 'nerve-agents'
 * import { callTool } from 'nerve-agents/interpreters'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const add = tool(
 *   { name: 'add', description: 'a + b', input_schema: { type: 'object', required: ['a', 'b'] } },
 *   t.type({ a: t.number, b: t.number }),
 *   ({ a, b }) => Promise.resolve(String(a + b)),
 * )
 * const ctx = { signal: new AbortController().signal, toolUseId: 't1', depth: 0 }
 * const call = (input: Record<string, unknown>) =>
 *   callTool(toolbox(add), { type: 'tool_use', id: 't1', name: 'add', input }, ctx)
 * assert.deepStrictEqual(await call({ a: 1, b: 2 }), { content: '3' })
 * assert.match((await call({ a: 1 })).content as string, /field "b" is missing/)
 */
export const tool = <A>(
  definition: ToolDefinition,
  codec: t.Type<A, unknown>,
  run: (input: A, ctx: ToolContext) => Promise<ToolOutput | ToolResultContent>,
  options: { readonly risk?: Risk } = {},
): Tool => {
  const def = checkDefinition('tool', 'the tool', definition)
  checkRisk('tool', `tool "${def.name}"`, options.risk)
  if (typeof codec !== 'object' || typeof (codec as { decode?: unknown }).decode !== 'function') {
    throw new UsageError('tool', `tool "${def.name}" needs an io-ts codec for its input`)
  }
  if (typeof run !== 'function') {
    throw new UsageError('tool', `tool "${def.name}" needs a run function`)
  }
  return Object.freeze({
    definition: def,
    ...(options.risk !== undefined && { risk: options.risk }),
    run: (input: Readonly<Record<string, unknown>>, ctx: ToolContext) => {
      const decoded = codec.decode(input)
      if (decoded._tag === 'Left') {
        return Promise.resolve(
          Object.freeze({
            content: `invalid input for tool "${def.name}": ${inputProblems(decoded.left)}`,
            is_error: true,
          }),
        )
      }
      return run(decoded.right, ctx)
    },
  })
}

const isContent = (u: unknown): u is ToolResultContent => typeof u === 'string' || Array.isArray(u)

const failed = (content: string): ToolOutput => Object.freeze({ content, is_error: true })

/** Brings what a tool answered to a frozen {@link ToolOutput}, or says what was wrong with it. */
const outputOf = (name: string, answer: unknown): ToolOutput => {
  if (isContent(answer)) return Object.freeze({ content: answer })
  if (isRecord(answer) && isContent(answer.content)) {
    const output = answer as unknown as ToolOutput
    return Object.isFrozen(output) ? output : Object.freeze({ ...output })
  }
  return failed(`tool "${name}" answered without content (got ${describe(answer)})`)
}

/**
 * Runs one `tool_use` block with the tool of that name. It never rejects:
 * an unknown name is answered with an error output naming the tools there
 * are, and a tool that throws or rejects with one carrying its message, so
 * the model always gets a `tool_result`.
 *
 * @category tools
 * @example
 * import { toolbox } from 'nerve-agents'
 * import { callTool } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const ctx = { signal: new AbortController().signal, toolUseId: 'x', depth: 0 }
 * const out = await callTool(toolbox(), { type: 'tool_use', id: 'x', name: 'fly', input: {} }, ctx)
 * assert.deepStrictEqual(out, { content: 'unknown tool "fly"; there are no tools', is_error: true })
 */
export const callTool = async (
  box: Toolbox,
  call: ToolUseBlock,
  ctx: ToolContext,
): Promise<ToolOutput> => {
  const found = box.get(call.name)
  if (found === undefined) {
    const names = [...box.keys()].map((n) => `"${n}"`)
    return failed(
      `unknown tool "${call.name}"; ${
        names.length === 0 ? 'there are no tools' : `the tools are ${names.join(', ')}`
      }`,
    )
  }
  if (ctx.aborted ?? ctx.signal.aborted) {
    return failed(`tool "${call.name}" was interrupted before it started`)
  }
  try {
    return outputOf(call.name, await found.run(call.input, ctx))
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    return failed(`tool "${call.name}" failed: ${message}`)
  }
}

/**
 * The definitions of a toolbox's tools, in its order: what the model is shown.
 *
 * @category tools
 * @example
 * import { tool, toolbox } from 'nerve-agents'
 * import { toolDefinitionsOf } from 'nerve-agents/interpreters'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const def = { name: 'now', description: 'The time', input_schema: { type: 'object' } }
 * const box = toolbox(tool(def, t.type({}), () => Promise.resolve('noon')))
 * assert.deepStrictEqual(toolDefinitionsOf(box), [def])
 */
export const toolDefinitionsOf = (box: Toolbox): readonly ToolDefinition[] =>
  Object.freeze([...box.values()].map((x) => x.definition))
