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
export class StallError extends Error {
  readonly _tag = 'StallError'
  readonly loop: readonly string[]
  readonly evidence: StallEvidence
  constructor(loop: readonly string[], evidence: StallEvidence) {
    const what =
      evidence.kind === 'no-file-changes'
        ? `no file changed over ${evidence.count} ticks of "${evidence.nodeId}"`
        : `"${evidence.nodeId}" gave the same ${evidence.kind === 'same-error' ? 'error' : 'output'} ${evidence.count} times in a row (${JSON.stringify(evidence.sample)})`
    super(`loop ${loop.join(' ⇄ ')} stalled: ${what}`)
    this.name = 'StallError'
    this.loop = Object.freeze([...loop])
    this.evidence = Object.freeze({ ...evidence })
  }
}

/**
 * A node of a loop was about to fire more often than the network's
 * `maxIterations`; the loop was halted.
 *
 * @category network errors
 */
export class MaxIterationsExceeded extends Error {
  readonly _tag = 'MaxIterationsExceeded'
  readonly loop: readonly string[]
  readonly nodeId: string
  readonly max: number
  constructor(loop: readonly string[], nodeId: string, max: number) {
    super(`loop ${loop.join(' ⇄ ')} halted: "${nodeId}" reached ${max} iterations`)
    this.name = 'MaxIterationsExceeded'
    this.loop = Object.freeze([...loop])
    this.nodeId = nodeId
    this.max = max
  }
}

/**
 * A sub-network's budget was spent: what its nodes used together went over
 * `limit`; every node of it was halted.
 *
 * @category network errors
 */
export class SubnetworkBudgetExceeded extends Error {
  readonly _tag = 'SubnetworkBudgetExceeded'
  readonly subnetwork: string
  readonly nodes: readonly string[]
  readonly limit: BudgetLimit
  readonly max: number
  readonly used: number
  constructor(
    subnetwork: string,
    nodes: readonly string[],
    limit: BudgetLimit,
    max: number,
    used: number,
  ) {
    super(
      `sub-network "${subnetwork}" (${nodes.join(', ')}) halted: ${limit} is ${max}, its nodes used ${used}`,
    )
    this.name = 'SubnetworkBudgetExceeded'
    this.subnetwork = subnetwork
    this.nodes = Object.freeze([...nodes])
    this.limit = limit
    this.max = max
    this.used = used
  }
}

/**
 * A node's command-line agent is not installed: `command` is not an
 * executable file in any directory of `PATH`.
 *
 * @category network errors
 */
export class MissingBinary extends Error {
  readonly _tag = 'MissingBinary'
  readonly nodeId: string
  readonly command: string
  constructor(nodeId: string, command: string, agent: string) {
    super(
      `node "${nodeId}" runs ${agent}, but "${command}" is not an executable on PATH: install it, or set the provider's command`,
    )
    this.name = 'MissingBinary'
    this.nodeId = nodeId
    this.command = command
  }
}

/**
 * The workflow policy refused a tool call: in planning mode a write outside
 * `docs/`, or an action whose approval was denied or timed out.
 *
 * @category network errors
 */
export class PolicyRefused extends Error {
  readonly _tag = 'PolicyRefused'
  readonly nodeId: string
  readonly tool: string
  /** The path or command refused. */
  readonly target: string
  readonly reason: string
  constructor(nodeId: string, tool: string, target: string, reason: string) {
    super(`${tool} ${JSON.stringify(target)} refused for "${nodeId}": ${reason}`)
    this.name = 'PolicyRefused'
    this.nodeId = nodeId
    this.tool = tool
    this.target = target
    this.reason = reason
  }
}

/**
 * Why a loop or a node was halted.
 *
 * @category network errors
 */
export type NetworkHalt = StallError | MaxIterationsExceeded | SubnetworkBudgetExceeded | Error
