import { taggedError } from '../../errors.js'
import type { NodeContext } from '../../node/Interpreter.js'
import type { Tool } from './Tool.js'

/**
 * The link port through which an agent takes its tools:
 * `links: { tools: [...] }` on a step, `"port": "tools"` on a file's edge.
 *
 * @category tools
 */
export const TOOLS_PORT = 'tools'

/**
 * A step linked to an agent under `tools` materialized something that is
 * not tools. `path` is the asking step's path; `index` the link's place in
 * its `tools` links; `got` what came, described.
 *
 * @category errors
 */
export class NotTools extends taggedError('NotTools', 'invalidGraph')<{
  readonly path: readonly string[]
  readonly index: number
  readonly got: string
}> {
  constructor(path: readonly string[], index: number, got: string) {
    super(
      `step "${path.join('/')}": its tools link ${index} gave ${got}, not a tool, a list of tools or a toolbox`,
      { path: Object.freeze([...path]), index, got },
    )
  }
}

const isTool = (u: unknown): u is Tool =>
  typeof u === 'object' &&
  u !== null &&
  typeof (u as { run?: unknown }).run === 'function' &&
  typeof (u as { definition?: { name?: unknown } }).definition?.name === 'string'

const describe = (u: unknown): string =>
  u === null
    ? 'null'
    : Array.isArray(u)
      ? 'an array holding something else'
      : typeof u === 'object'
        ? 'an object'
        : typeof u

const NONE: readonly Tool[] = Object.freeze([])

/**
 * The tools the steps linked to this one under `tools` materialized, in
 * link order, flattened: each artifact may be one tool, a list of tools or
 * a toolbox (a map by name). No `tools` links: none. Anything else is a
 * {@link NotTools}; a linked step that failed, its error.
 *
 * @category tools
 * @example
 * import { linkedTools, tool, UnknownLinkHandle } from 'nerve-agents'
 * import * as t from 'io-ts'
 * import assert from 'assert'
 *
 * const now = tool({ name: 'now', description: 'The time', input_schema: { type: 'object' } },
 *   t.type({}), () => Promise.resolve('noon'))
 * const ctx = { path: ['agent'], resolveLinks: () => Promise.resolve([now, [now]]) }
 * assert.strictEqual((await linkedTools(ctx)).length, 2)
 * const none = { path: ['agent'], resolveLinks: () => Promise.reject(new UnknownLinkHandle(['agent'], 'tools')) }
 * assert.deepStrictEqual(await linkedTools(none), [])
 */
export const linkedTools = async (
  ctx: Pick<NodeContext, 'path' | 'resolveLinks' | 'hasLinks'>,
): Promise<readonly Tool[]> => {
  if (ctx.hasLinks?.(TOOLS_PORT) === false) return NONE
  let artifacts: readonly unknown[]
  try {
    artifacts = await ctx.resolveLinks(TOOLS_PORT)
  } catch (e) {
    if ((e as { _tag?: unknown } | null)?._tag === 'UnknownLinkHandle') return NONE
    throw e
  }
  const out: Tool[] = []
  artifacts.forEach((a, i) => {
    if (isTool(a)) out.push(a)
    else if (Array.isArray(a) && a.every(isTool)) out.push(...(a as readonly Tool[]))
    else if (a instanceof Map && [...a.values()].every(isTool))
      out.push(...(a.values() as Iterable<Tool>))
    else throw new NotTools(ctx.path, i, describe(a))
  })
  return Object.freeze(out)
}
