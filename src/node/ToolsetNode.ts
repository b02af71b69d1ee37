import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import type { ToolDefinition } from '../conversation/Entry.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from './Node.js'
import {
  arrayOf,
  decodeOptions,
  metadata,
  millis,
  nonEmpty,
  nonNegativeInteger,
  optionsCodec,
} from './options.js'

/**
 * The names of the built-in workspace tools a toolset can hold.
 *
 * @category toolsets
 */
export const builtinToolNames = Object.freeze(['bash', 'read', 'write', 'edit', 'glob', 'grep'])

/**
 * One of {@link builtinToolNames}.
 *
 * @category toolsets
 */
export type BuiltinToolName = 'bash' | 'read' | 'write' | 'edit' | 'glob' | 'grep'

/**
 * A tool written in code, as a toolset holds it: what the tool interpreter's
 * `tool(…)` builds (a definition shown to the model and a `run` function).
 * Only code can give one; a graph file names built-in tools.
 *
 * @category toolsets
 */
export interface ToolValue {
  readonly definition: ToolDefinition
  run(input: Readonly<Record<string, unknown>>, ctx: never): Promise<unknown>
}

/**
 * A node that gives tools to the agents linked to it (`links: { tools: [id] }`,
 * or an edge `{ channel: 'link', port: 'tools' }` in a file): the built-in
 * workspace tools named in `builtin`, working inside `root`, and the tools
 * given in code. Its step's result is the names of its tools; what a linked
 * agent receives is the tools themselves (the toolset interpreter's
 * `materialize`).
 *
 * @category toolsets
 */
export interface ToolsetNode extends Node {
  readonly kind: 'toolset'
  readonly persistent: false
  readonly builtin: readonly BuiltinToolName[]
  /** The workspace the built-in tools are confined to. */
  readonly root: string
  readonly tools: readonly ToolValue[]
  readonly timeoutMs?: number
  readonly maxOutputBytes?: number
}

/**
 * Options of {@link toolset}.
 *
 * @category toolsets
 */
export interface ToolsetOptions extends NodeOptions {
  /** A subset of the built-in tools, by name. Default: all six, unless `tools` is given (then none). */
  readonly builtin?: readonly BuiltinToolName[]
  /** Default: `'.'` (the directory of the process that runs the tools). */
  readonly root?: string
  /** Tools written in code (see {@link ToolValue}). */
  readonly tools?: readonly ToolValue[]
  /** A limit on a command or a walk of a built-in tool (their default: 30 000). */
  readonly timeoutMs?: number
  /** Where a built-in tool cuts its answer (their default: 30 000). */
  readonly maxOutputBytes?: number
}

const builtinName = new t.Type<BuiltinToolName>(
  'BuiltinToolName',
  (u): u is BuiltinToolName => typeof u === 'string' && builtinToolNames.includes(u),
  (u, c) =>
    typeof u === 'string' && builtinToolNames.includes(u)
      ? t.success(u as BuiltinToolName)
      : t.failure(u, c, `must be one of ${builtinToolNames.join(', ')}, got ${JSON.stringify(u)}`),
  t.identity,
)

const isToolValue = (u: unknown): u is ToolValue =>
  typeof u === 'object' &&
  u !== null &&
  typeof (u as { run?: unknown }).run === 'function' &&
  typeof (u as { definition?: { name?: unknown } }).definition?.name === 'string'

const toolValues = new t.Type<readonly ToolValue[]>(
  'ToolValues',
  (u): u is readonly ToolValue[] => Array.isArray(u) && u.every(isToolValue),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, 'must be an array of tools')
    const bad = u.findIndex((x) => !isToolValue(x))
    return bad < 0
      ? t.success(u as readonly ToolValue[])
      : t.failure(u, c, `must be tools (a definition and a run function); [${bad}] is not`)
  },
  t.identity,
)

const builtins = new t.Type<readonly BuiltinToolName[]>(
  'BuiltinToolNames',
  (u): u is readonly BuiltinToolName[] => Array.isArray(u) && u.every((x) => builtinName.is(x)),
  (u, c) => {
    const checked = arrayOf(builtinName as t.Type<string>, 'built-in tool names').validate(u, c)
    if (E.isLeft(checked)) return checked
    return new Set(checked.right).size === checked.right.length
      ? t.success(checked.right as readonly BuiltinToolName[])
      : t.failure(u, c, 'must name each tool once')
  },
  t.identity,
)

/** Every tool name of a toolset once: two tools of one name would hide each other. */
const distinctNames = (o: ToolsetOptions): string | undefined => {
  const names = [...(o.builtin ?? []), ...(o.tools ?? []).map((x) => x.definition.name)]
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  return twice === undefined ? undefined : `two tools are named "${twice}"`
}

/**
 * The io-ts codec of a toolset node's options: what {@link toolset} checks
 * and a graph file's `toolset` node is decoded with. Unknown keys fail.
 *
 * @category toolsets
 */
export const ToolsetOptionsCodec: t.Type<ToolsetOptions> = optionsCodec<ToolsetOptions>(
  'ToolsetOptions',
  {},
  {
    metadata,
    builtin: builtins,
    root: nonEmpty,
    tools: toolValues,
    timeoutMs: millis(false),
    maxOutputBytes: nonNegativeInteger,
  },
  [distinctNames],
)

/**
 * A toolset node.
 *
 * @category toolsets
 * @example
 * import { toolset } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const fs = toolset('fs', { builtin: ['read', 'glob', 'grep'], root: '/srv/repo' })
 * assert.deepStrictEqual(fs.builtin, ['read', 'glob', 'grep'])
 * assert.deepStrictEqual(toolset('all').builtin, ['bash', 'read', 'write', 'edit', 'glob', 'grep'])
 * assert.throws(() => toolset('x', { builtin: ['rm' as 'bash'] }), /builtin\[0\] must be one of/)
 */
export const toolset = (id: string, options: ToolsetOptions = {}): ToolsetNode => {
  const o = decodeOptions('toolset', id, ToolsetOptionsCodec, options)
  const tools = o.tools ?? []
  return makeNode<ToolsetNode>(
    {
      id,
      kind: 'toolset',
      persistent: false,
      metadata: o.metadata ?? EMPTY_METADATA,
      builtin: [
        ...(o.builtin ?? (tools.length === 0 ? builtinToolNames : [])),
      ] as BuiltinToolName[],
      root: o.root ?? '.',
      tools: Object.freeze([...tools]),
      ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
      ...(o.maxOutputBytes !== undefined && { maxOutputBytes: o.maxOutputBytes }),
    },
    'toolset',
  )
}

/**
 * Whether a node is a toolset node.
 *
 * @category guards
 */
export const isToolsetNode = (n: Node): n is ToolsetNode => n.kind === 'toolset'

/**
 * The `toolset` node kind, its data side: its options codec and builder, for graph files,
 * `CREATE_NODE` and stores.
 *
 * @category model
 */
export const toolsetNodeKind = nodeKind({
  kind: 'toolset',
  summary: 'built-in tools (read, write, bash, …) given to LLM nodes through links',
  options: ToolsetOptionsCodec,
  build: (id, options) => toolset(id, options),

  creatable: false,
  provides: ['tools'],
})
