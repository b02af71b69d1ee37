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

/** The tools of one artifact, or `undefined` when it is not tools. */
const toolsIn = (a: unknown): readonly Tool[] | undefined => {
  if (isTool(a)) return [a]
  if (Array.isArray(a)) return a.every(isTool) ? a : undefined
  if (a instanceof Map) {
    const all = [...(a.values() as Iterable<unknown>)]
    return all.every(isTool) ? all : undefined
  }
  return undefined
}

/** A node of the memo of flattened artifacts: by the first artifact, then the next… */
interface Flat {
  tools?: readonly Tool[]
  next?: WeakMap<object, Flat>
}

/**
 * The flattened tools of lists of artifacts seen before, by each artifact in
 * turn: a toolset's materialized tools are the same list every run, so a
 * turn gets the same (frozen) list again — what lets an agent keep its
 * toolbox from one turn to the next.
 */
const flattened: Flat = {}

/**
 * The memo node of `artifacts`, when each is a frozen object or array: a
 * map, or anything that could change, is flattened afresh each time.
 */
const flatOf = (artifacts: readonly unknown[]): Flat | undefined => {
  let at = flattened
  for (const a of artifacts) {
    if (typeof a !== 'object' || a === null || a instanceof Map || !Object.isFrozen(a)) {
      return undefined
    }
    const next = (at.next ??= new WeakMap())
    let found = next.get(a)
    if (found === undefined) next.set(a, (found = {}))
    at = found
  }
  return at
}

/**
 * The tools the steps linked to this one under `tools` materialized, in
 * link order, flattened: each artifact may be one tool, a list of tools or
 * a toolbox (a map by name). No `tools` links: none. Anything else is a
 * {@link NotTools}; a linked step that failed, its error. The same
 * frozen artifacts (the same lists, by identity) give the same frozen list.
 *
 * @category tools
 * @example
 * import { tool } from 'nerve-agents'
 * import { linkedTools } from 'nerve-agents/interpreters'
 * import { UnknownLinkHandle } from 'nerve-agents/runtime'
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
  const memo = flatOf(artifacts)
  if (memo?.tools !== undefined) return memo.tools
  const out: Tool[] = []
  artifacts.forEach((a, i) => {
    const tools = toolsIn(a)
    if (tools === undefined) throw new NotTools(ctx.path, i, describe(a))
    out.push(...tools)
  })
  const tools = Object.freeze(out)
  if (memo !== undefined) memo.tools = tools
  return tools
}
