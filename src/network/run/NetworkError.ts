import { taggedError } from '../../errors.js'
import type { BudgetLimit } from '../../runtime/index.js'

/**
 * What a stalled loop showed: the same output or error digest `count`
 * times in a row (`sample` is the repeated text, cut), or no file change
 * over `count` ticks.
 *
 * @category network errors
 */
export type StallEvidence =
  | {
      readonly kind: 'same-output' | 'same-error'
      readonly nodeId: string
      readonly digest: string
      readonly count: number
      readonly sample: string
    }
  | {
      readonly kind: 'no-file-changes'
      readonly nodeId: string
      readonly digest: string
      readonly count: number
    }

/**
 * A loop stopped making progress and was halted. `loop` lists its node ids
 * (one for an auto node's own loop).
 *
 * @category network errors
 */
export class StallError extends taggedError('StallError', 'failed')<{
  readonly loop: readonly string[]
  readonly evidence: StallEvidence
}> {
  constructor(loop: readonly string[], evidence: StallEvidence) {
    const what =
      evidence.kind === 'no-file-changes'
        ? `no file changed over ${evidence.count} ticks of "${evidence.nodeId}"`
        : `"${evidence.nodeId}" gave the same ${evidence.kind === 'same-error' ? 'error' : 'output'} ${evidence.count} times in a row (${JSON.stringify(evidence.sample)})`
    super(`loop ${loop.join(' ⇄ ')} stalled: ${what}`, {
      loop: Object.freeze([...loop]),
      evidence: Object.freeze({ ...evidence }),
    })
  }
}

/**
 * A node of a loop was about to fire more often than the network's
 * `maxIterations`; the loop was halted.
 *
 * @category network errors
 */
export class MaxIterationsExceeded extends taggedError('MaxIterationsExceeded', 'failed')<{
  readonly loop: readonly string[]
  readonly nodeId: string
  readonly max: number
}> {
  constructor(loop: readonly string[], nodeId: string, max: number) {
    super(`loop ${loop.join(' ⇄ ')} halted: "${nodeId}" reached ${max} iterations`, {
      loop: Object.freeze([...loop]),
      nodeId,
      max,
    })
  }
}

/**
 * A sub-network's budget was spent: what its nodes used together went over
 * `limit`; every node of it was halted.
 *
 * @category network errors
 */
export class SubnetworkBudgetExceeded extends taggedError('SubnetworkBudgetExceeded', 'failed')<{
  readonly subnetwork: string
  readonly nodes: readonly string[]
  readonly limit: BudgetLimit
  readonly max: number
  readonly used: number
}> {
  constructor(
    subnetwork: string,
    nodes: readonly string[],
    limit: BudgetLimit,
    max: number,
    used: number,
  ) {
    super(
      `sub-network "${subnetwork}" (${nodes.join(', ')}) halted: ${limit} is ${max}, its nodes used ${used}`,
      { subnetwork, nodes: Object.freeze([...nodes]), limit, max, used },
    )
  }
}

/**
 * A node's command-line agent is not installed: `command` is not an
 * executable file in any directory of `PATH`.
 *
 * @category network errors
 */
export class MissingBinary extends taggedError('MissingBinary', 'unsupported')<{
  readonly nodeId: string
  readonly command: string
}> {
  constructor(nodeId: string, command: string, agent: string) {
    super(
      `node "${nodeId}" runs ${agent}, but "${command}" is not an executable on PATH: install it, or set the provider's command`,
      { nodeId, command },
    )
  }
}

/**
 * The workflow policy refused a tool call: in planning mode a write outside
 * `docs/`, or an action whose approval was denied or timed out.
 *
 * @category network errors
 */
export class PolicyRefused extends taggedError('PolicyRefused', 'failed')<{
  readonly nodeId: string
  readonly tool: string
  /** The path or command refused. */
  readonly target: string
  readonly reason: string
}> {
  constructor(nodeId: string, tool: string, target: string, reason: string) {
    super(`${tool} ${JSON.stringify(target)} refused for "${nodeId}": ${reason}`, {
      nodeId,
      tool,
      target,
      reason,
    })
  }
}

/**
 * Why a loop or a node was halted.
 *
 * @category network errors
 */
export type NetworkHalt = StallError | MaxIterationsExceeded | SubnetworkBudgetExceeded | Error
