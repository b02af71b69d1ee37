import { UsageError } from '../errors.js'
import * as t from 'io-ts'
import { nodeKind } from './NodeKind.js'
import type { NodeContext } from './Interpreter.js'
import { EMPTY_METADATA, makeNode, type Node, type NodeOptions } from './Node.js'

/**
 * The work of a function node: sync or async, given the step's context.
 *
 * @category function nodes
 */
export type NodeFunction<I = unknown, O = unknown> = (ctx: NodeContext<I>) => O | PromiseLike<O>

/**
 * A node whose work is a TypeScript function. It cannot be written to a
 * graph file; a file refers to it by id and the loader gets it from a
 * registry (see `decodeGraph`).
 *
 * @category function nodes
 */
export interface FunctionNode<I = unknown, O = unknown> extends Node {
  readonly kind: 'function'
  readonly persistent: false
  /** The work; a method, so a `FunctionNode<number>` is a `FunctionNode`. */
  fn(ctx: NodeContext<I>): O | PromiseLike<O>
}

const build = <I, O>(
  api: string,
  id: string,
  f: NodeFunction<I, O>,
  options?: NodeOptions,
): FunctionNode<I, O> => {
  if (typeof f !== 'function') {
    throw new UsageError(api, `node "${id}": the work must be a function, got ${typeof f}`)
  }
  return makeNode<FunctionNode<I, O>>(
    {
      id,
      kind: 'function',
      persistent: false,
      metadata: options?.metadata ?? EMPTY_METADATA,
      fn: f,
    },
    api,
  )
}

/**
 * A function node. `f` receives the {@link NodeContext} (`ctx.input`,
 * `ctx.upstream`, `ctx.signal`, …) and returns the result or a promise of it.
 *
 * @category function nodes
 * @example
 * import { fn } from 'nerve-agents'
 * import assert from 'assert'
 *
 * const double = fn('double', (ctx: { input: number }) => ctx.input * 2)
 * assert.strictEqual(double.kind, 'function')
 * assert.throws(() => fn('', () => 0), /not a valid name/)
 */
export const fn = <I = unknown, O = unknown>(
  id: string,
  f: NodeFunction<I, O>,
  options?: NodeOptions,
): FunctionNode<I, O> => build('fn', id, f, options)

/**
 * The same as {@link fn}, under a longer name.
 *
 * @category function nodes
 */
export const functionNode = <I = unknown, O = unknown>(
  id: string,
  f: NodeFunction<I, O>,
  options?: NodeOptions,
): FunctionNode<I, O> => build('functionNode', id, f, options)

/**
 * Whether a node is a function node.
 *
 * @category guards
 */
export const isFunctionNode = (node: Node): node is FunctionNode =>
  node.kind === 'function' && typeof (node as { fn?: unknown }).fn === 'function'

/**
 * The `function` node kind, its data side: no data describes a function
 * node (it holds code), so its options codec refuses everything and no face
 * creates one; a program builds it with {@link fn} and registers it.
 *
 * @category function nodes
 */
export const functionNodeKind = nodeKind<never>({
  kind: 'function',
  summary: 'a TypeScript function, registered by the program that holds it',
  options: new t.Type<never>(
    'FunctionOptions',
    (_u): _u is never => false,
    (u, c) =>
      t.failure(u, c, 'a function node holds code, which no data describes: build it with fn'),
    t.identity,
  ),
  build: (id) => {
    throw new UsageError('functionNodeKind', `node "${id}": a function node is built with fn`)
  },
  creatable: false,
  describable: false,
})
