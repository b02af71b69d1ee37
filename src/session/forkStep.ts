import { UsageError } from '../errors.js'
import type { Interpreter, NodeContext } from '../node/Interpreter.js'
import { expandName, isNameTemplate } from '../node/name.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from '../node/Node.js'

/**
 * A graph step that forks a session's node: `source` is the name of the node
 * to fork, `target` the name of the fork. Both may hold `{run_id}` and
 * `{timestamp}` (the run's id and start), filled in when the step runs, so
 * each run forks under a name of its own; later steps use the fork with
 * `addStepRef(id, target)`, whose placeholders the runtime fills the same way.
 *
 * @category fork
 */
export interface ForkNode extends Node {
  readonly kind: 'fork'
  readonly persistent: false
  readonly source: string
  readonly target: string
}

/**
 * What a fork step answers: the name of the fork, placeholders filled in.
 *
 * @category fork
 */
export interface ForkStepResult {
  readonly name: string
}

/**
 * Options of {@link forkOp}.
 *
 * @category fork
 */
export interface ForkOpOptions extends NodeOptions {
  readonly source: string
  readonly target: string
}

/**
 * A {@link ForkNode}: a step that forks `source` into `target`. Both must be
 * names once `{run_id}` and `{timestamp}` are filled in; otherwise a
 * `UsageError`. Run it in a session's graph (`session.execute`), whose
 * interpreters have {@link forkInterpreter}.
 *
 * @category fork
 * @example
 * import { addStep, addStepRef, bash, createSession, graph } from 'nerve-agents'
 * import { forkOp } from 'nerve-agents/session'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const session = createSession()
 * session.register(bash('hi', { command: 'echo hi' }))
 * session.register(pipe(
 *   graph('trial'),
 *   addStep({ id: 'fork', node: forkOp('fork', { source: 'hi', target: 'hi-{run_id}' }) }),
 *   addStepRef('use', 'hi-{run_id}', { dependsOn: ['fork'] }),
 * ))
 * const results = (await session.execute('trial', null)) as { fork: { name: string }; use: { stdout: string } }
 * assert.strictEqual(results.use.stdout, 'hi\n')
 * assert.ok(session.has(results.fork.name))
 * await session.close()
 */
export const forkOp = (id: string, options: ForkOpOptions): ForkNode => {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new UsageError('forkOp', `node "${id}": options must be an object with source and target`)
  }
  const { source, target, metadata } = options
  for (const [what, value] of [
    ['source', source],
    ['target', target],
  ] as const) {
    if (!isNameTemplate(value)) {
      throw new UsageError(
        'forkOp',
        `node "${id}": ${what} must be a name, possibly with {run_id} or {timestamp}, got ${JSON.stringify(value)}`,
      )
    }
  }
  return makeNode<ForkNode>(
    { id, kind: 'fork', persistent: false, metadata: metadata ?? EMPTY_METADATA, source, target },
    'forkOp',
  )
}

/**
 * Whether a node is a {@link ForkNode}.
 *
 * @category guards
 */
export const isForkNode = (node: Node): node is ForkNode =>
  node.kind === 'fork' &&
  typeof (node as ForkNode).source === 'string' &&
  typeof (node as ForkNode).target === 'string'

/**
 * Runs {@link ForkNode}s: fills `{run_id}` and `{timestamp}` in the source
 * and target from the step's context, forks through `ctx.session`'s `fork`
 * capability (a session has it; a fixed registry does not), and answers `{ name }`, the fork's name. The
 * step's signal is the fork's. Sessions add it to their interpreters.
 *
 * @category fork
 */
export const forkInterpreter: Interpreter<ForkNode> = Object.freeze({
  kind: 'fork' as const,
  async execute(node: ForkNode, ctx: NodeContext): Promise<ForkStepResult> {
    if (!isForkNode(node)) {
      throw new UsageError('forkInterpreter', `node "${(node as Node).id}" is not a fork node`)
    }
    const session = ctx.session
    if (typeof session.fork !== 'function') {
      throw new UsageError(
        'forkInterpreter',
        `step "${ctx.stepId}" forks nodes of a session: run its graph with session.execute, or run(g, { session }) with a Session`,
      )
    }
    const values = { run_id: ctx.runId, timestamp: String(ctx.runStartedAt) }
    const name = expandName(node.target, values)
    await session.fork(expandName(node.source, values), name, { signal: ctx.signal })
    return Object.freeze({ name })
  },
})
