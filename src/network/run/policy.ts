import { isAbsolute, relative, resolve } from 'node:path'
import type { Tool, ToolOutput } from '../../interpreters/index.js'
import type { FileLocks } from './FileLocks.js'
import type { WorkflowMode } from '../model/Network.js'
import { PolicyRefused } from './NetworkError.js'

/**
 * Which changes are high-risk in implementation mode, and so wait for an
 * approval: shell `deletions` (`rm`, `rmdir`, `git rm`, `unlink`), writes
 * `outsideAssignment` (paths not under the node's assignment, when it has
 * one), and shell `commands` matching one of these patterns.
 *
 * @category workflow
 */
export interface RiskPolicy {
  /** Default true. */
  readonly deletions?: boolean
  /** Default true. */
  readonly outsideAssignment?: boolean
  /** Regular expression sources; default: `git push`, `git reset --hard`, `npm publish`. */
  readonly commands?: readonly string[]
}

/**
 * What the workflow policy needs to know about the node whose tools it guards.
 *
 * @category workflow
 */
export interface PolicyContext {
  readonly nodeId: string
  /** The workspace root the tools work in. */
  readonly root: string
  /** The workflow mode now (read at every call: a live edit applies at once). */
  workflow(): WorkflowMode
  /** The node's assignment now. */
  assignment(): readonly string[] | undefined
  readonly risk?: RiskPolicy
  /** Asks for approval; resolves true when approved. */
  approve(action: string, target: string, reason: string): Promise<boolean>
  /** Told of every refusal. */
  onRefused?(error: PolicyRefused): void
  /** Told of every file written, after it was. */
  onWrite?(path: string, content: string): Promise<void> | void
  /** Locks taken around each file tool call. */
  readonly locks?: { readonly locks: FileLocks; readonly owner: string }
}

const DELETION = /(^|[;&|]\s*|\s)(rm|rmdir|unlink|git\s+rm)(\s|$)/
const RISKY_COMMANDS = ['\\bgit\\s+push\\b', '\\bgit\\s+reset\\s+--hard\\b', '\\bnpm\\s+publish\\b']

/** `path` relative to `root` with `/` separators, or undefined when it leaves it. */
const inWorkspace = (root: string, path: string): string | undefined => {
  const abs = isAbsolute(path) ? path : resolve(root, path)
  const rel = relative(resolve(root), abs).split('\\').join('/')
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel
}

const under = (rel: string, prefix: string): boolean => {
  const p = prefix.replace(/^\.\//, '').replace(/\/+$/, '')
  return p === '' || p === '.' || rel === p || rel.startsWith(`${p}/`)
}

/**
 * The path under `docs/` rule of planning mode, as a check: whether a file
 * tool may write `path` (relative to the workspace) while planning.
 *
 * @category workflow
 * @example
 * import { planningAllows } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * assert.strictEqual(planningAllows('/repo', 'docs/plan.md'), true)
 * assert.strictEqual(planningAllows('/repo', 'docs/../src/a.ts'), false)
 * assert.strictEqual(planningAllows('/repo', 'src/a.ts'), false)
 */
export const planningAllows = (root: string, path: string): boolean => {
  const rel = inWorkspace(root, path)
  return rel !== undefined && rel.startsWith('docs/')
}

const refuse = (ctx: PolicyContext, tool: string, target: string, reason: string): ToolOutput => {
  const error = new PolicyRefused(ctx.nodeId, tool, target, reason)
  ctx.onRefused?.(error)
  return Object.freeze({ content: error.message, is_error: true })
}

/**
 * Guards a node's tools with the workflow policy. In `planning`, `write`
 * and `edit` may only touch files under `docs/` (anything else is refused
 * with a {@link PolicyRefused}, answered to the model as a tool error) and
 * `bash` needs an approval. In `implementation`, high-risk calls (see
 * {@link RiskPolicy}) need an approval; a denied or timed-out one is
 * refused. File tools hold a lock on their path while they run. Other
 * tools pass through.
 *
 * @category workflow
 */
export const policyTools = (tools: readonly Tool[], ctx: PolicyContext): readonly Tool[] =>
  tools.map((tool) => {
    const name = tool.definition.name
    if (name !== 'write' && name !== 'edit' && name !== 'bash' && name !== 'read') return tool
    const guarded: Tool = {
      definition: tool.definition,
      run: async (input, call) => {
        const risk = ctx.risk ?? {}
        const mode = ctx.workflow()
        if (name === 'bash') {
          const command = typeof input.command === 'string' ? input.command : ''
          let reason: string | undefined
          if (mode === 'planning') reason = 'shell commands need approval in planning mode'
          else if (risk.deletions !== false && DELETION.test(command)) reason = 'it deletes files'
          else {
            const hit = (risk.commands ?? RISKY_COMMANDS).find((p) => new RegExp(p).test(command))
            if (hit !== undefined) reason = `it matches the high-risk pattern /${hit}/`
          }
          if (reason !== undefined && !(await ctx.approve('bash', command, reason))) {
            return refuse(ctx, 'bash', command, `${reason}, and it was not approved`)
          }
          return tool.run(input, call)
        }
        const path = typeof input.path === 'string' ? input.path : ''
        const rel = inWorkspace(ctx.root, path)
        if (name !== 'read') {
          if (mode === 'planning' && !planningAllows(ctx.root, path)) {
            return refuse(ctx, name, path, 'planning mode allows writes only under docs/')
          }
          const assigned = ctx.assignment()
          if (
            mode === 'implementation' &&
            risk.outsideAssignment !== false &&
            assigned !== undefined &&
            rel !== undefined &&
            !assigned.some((a) => under(rel, a))
          ) {
            const reason = `"${rel}" is outside the node's assignment (${assigned.join(', ')})`
            if (!(await ctx.approve(name, path, reason))) {
              return refuse(ctx, name, path, `${reason}, and it was not approved`)
            }
          }
        }
        const release =
          ctx.locks !== undefined && rel !== undefined
            ? await ctx.locks.locks.acquire(
                ctx.locks.owner,
                [{ path: rel, mode: name === 'read' ? 'read' : 'write' }],
                call.signal,
              )
            : undefined
        try {
          const out = await tool.run(input, call)
          const failed =
            typeof out === 'object' && !Array.isArray(out) && (out as ToolOutput).is_error === true
          if (name === 'write' && !failed && typeof input.content === 'string') {
            await ctx.onWrite?.(rel ?? path, input.content)
          }
          return out
        } finally {
          release?.()
        }
      },
    }
    return guarded
  })
