/**
 * A hand-written persistent node kind for the session tests: a `counter`
 * keeps the inputs it was given in the session's state cell (as the LLM
 * node keeps its conversation head), and forks by copying the cell.
 */
import { refuseForkPoint } from '../../src/node/Interpreter.js'
import { forkCopy } from '../../src/node/Node.js'
import { makeNode, type Node } from '../../src/index.js'
import {
  type ForkContext,
  type Interpreter,
  type LifecycleContext,
  type NodeContext,
  type NodeRegistry,
  type StateCell,
} from '../../src/core.js'

export interface CounterNode extends Node {
  readonly kind: 'counter'
  readonly persistent: true
}

export const counter = (id: string): CounterNode =>
  makeNode<CounterNode>({ id, kind: 'counter', persistent: true, metadata: {} })

const cellOf = (session: NodeRegistry, id: string): StateCell<readonly unknown[]> =>
  session.cell!(id) as StateCell<readonly unknown[]>

export interface CounterInterpreter extends Interpreter<CounterNode> {
  /** What happened, in order: `start a`, `stop a`, `fork a b`, `execute a`. */
  readonly log: string[]
}

export interface CounterOptions {
  /** Makes `start` of these node ids fail. */
  readonly failStart?: readonly string[]
  /** Leave out the fork capability. */
  readonly noFork?: boolean
  /** Resolves start when it resolves (to hold a node in `starting`). */
  readonly startGate?: Promise<void>
  /** Resolves execute when it resolves (to hold a node `busy`). */
  readonly executeGate?: () => Promise<void>
}

export const counterInterpreter = (options: CounterOptions = {}): CounterInterpreter => {
  const log: string[] = []
  const base = {
    kind: 'counter' as const,
    log,
    async start(node: CounterNode, ctx: LifecycleContext): Promise<void> {
      log.push(`start ${node.id}`)
      await options.startGate
      if (options.failStart?.includes(node.id) === true) throw new Error(`cannot start ${node.id}`)
      const cell = cellOf(ctx.session, node.id)
      if (cell.get() === undefined) cell.set(Object.freeze([]))
    },
    stop(node: CounterNode): Promise<void> {
      log.push(`stop ${node.id}`)
      return Promise.resolve()
    },
    async execute(node: CounterNode, ctx: NodeContext): Promise<readonly unknown[]> {
      log.push(`execute ${node.id}`)
      await options.executeGate?.()
      const cell = cellOf(ctx.session, node.id)
      const next = Object.freeze([...(cell.get() ?? []), ctx.input])
      cell.set(next)
      return next
    },
  }
  if (options.noFork === true) return base
  return {
    ...base,
    fork(node: CounterNode, id: string, ctx: ForkContext): Promise<CounterNode> {
      refuseForkPoint('counterInterpreter', node, ctx)
      log.push(`fork ${node.id} ${id}`)
      const copy = forkCopy<CounterNode>('counterFork', 'counter', id, ctx.time ?? '', node)
      const source = cellOf(ctx.session, node.id).get()
      if (source !== undefined) cellOf(ctx.session, id).set(source)
      return Promise.resolve(copy)
    },
  }
}

/** Collects a session's events until it closes. */
export const collect = async <A>(events: AsyncIterable<A>): Promise<A[]> => {
  const out: A[] = []
  for await (const e of events) out.push(e)
  return out
}
