import { UsageError } from '../errors.js'
import type { Interpreter, NodeContext, UsageReport } from '../node/Interpreter.js'
import { isFunctionNode } from '../node/FunctionNode.js'
import { makeNode, type Node } from '../node/Node.js'
import type { Clock } from '../runtime/Clock.js'

/**
 * One planned attempt of a scripted step: after `delayMs` on the clock,
 * emit `chunks` and report `usage`, then return `value` — or throw `error`.
 *
 * @category scripted
 */
export type Outcome =
  | {
      readonly _tag: 'value'
      readonly value: unknown
      readonly delayMs: number
      readonly chunks: readonly unknown[]
      readonly usage: UsageReport | undefined
    }
  | { readonly _tag: 'failure'; readonly error: unknown; readonly delayMs: number }

/**
 * Options of {@link succeed}.
 *
 * @category scripted
 */
export interface SucceedOptions {
  readonly delayMs?: number
  readonly chunks?: readonly unknown[]
  readonly usage?: UsageReport
}

const checkDelay = (api: string, delayMs: unknown): number => {
  if (delayMs === undefined) return 0
  if (typeof delayMs !== 'number' || Number.isNaN(delayMs) || delayMs < 0) {
    throw new UsageError(
      api,
      `options.delayMs must be a number ≥ 0, got ${typeof delayMs === 'number' ? delayMs : typeof delayMs}`,
    )
  }
  return delayMs
}

/**
 * A planned success.
 *
 * @category scripted
 */
export const succeed = (value: unknown, options?: SucceedOptions): Outcome =>
  Object.freeze({
    _tag: 'value',
    value,
    delayMs: checkDelay('succeed', options?.delayMs),
    chunks: options?.chunks ?? [],
    usage: options?.usage,
  })

/**
 * A planned failure; a string becomes an `Error` with that message.
 *
 * @category scripted
 */
export const failure = (error: unknown, options?: { readonly delayMs?: number }): Outcome =>
  Object.freeze({
    _tag: 'failure',
    error: typeof error === 'string' ? new Error(error) : error,
    delayMs: checkDelay('failure', options?.delayMs),
  })

/**
 * One attempt a scripted interpreter ran. `start` and `end` are sequence
 * numbers shared by all attempts of the interpreter (so "b started after a
 * ended" is `b.start > a.end`); `end` is undefined while it runs.
 *
 * @category scripted
 */
export interface ScriptedCall {
  readonly path: readonly string[]
  readonly nodeId: string
  readonly attempt: number
  readonly start: number
  end: number | undefined
  outcome: 'running' | 'value' | 'failure' | 'aborted'
}

/**
 * Options of {@link scripted}.
 *
 * @category scripted
 */
export interface ScriptedOptions {
  /** The kind it interprets. Default `'scripted'`; `'function'` replaces the function interpreter. */
  readonly kind?: string
  /** Needed when anything waits (a delay > 0). */
  readonly clock?: Clock
  /**
   * Outcomes by step path (`'a'`, `'outer/inner'`) or else by node id; a
   * list gives attempt n the n-th outcome (the last one repeats).
   */
  readonly plan?: Readonly<Record<string, Outcome | readonly Outcome[]>>
  /**
   * The value of an attempt nothing is planned for. Default: a function
   * node's `fn(ctx)`, or else the input.
   */
  readonly otherwise?: (node: Node, ctx: NodeContext) => unknown
  /** The delay of an attempt nothing is planned for. Default 0. */
  readonly delayMs?: (ctx: NodeContext) => number
}

/**
 * A deterministic interpreter that plays planned outcomes and logs every
 * attempt (see {@link ScriptedCall}).
 *
 * @category scripted
 */
export interface ScriptedInterpreter extends Interpreter {
  readonly calls: readonly ScriptedCall[]
  /** The most attempts that were running at once. */
  readonly maxInFlight: number
}

const orInput = (node: Node, ctx: NodeContext): unknown =>
  isFunctionNode(node) ? node.fn(ctx) : ctx.input

/**
 * A scripted interpreter: each attempt waits its delay on the clock (and
 * stops with the signal's reason if the signal aborts meanwhile), emits its
 * chunks, reports its usage, then returns its value or throws its error.
 * An attempt without a delay answers synchronously.
 *
 * @category scripted
 * @example
 * import { addStep, graph, run } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { failure, scripted, scriptedNode, succeed } from 'nerve-agents/testing'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const model = scripted({ plan: { ask: [failure('rate limited'), succeed('42')] } })
 * const g = pipe(graph('g'), addStep({ id: 'ask', node: scriptedNode('llm') }))
 * await assert.rejects(run(g, { interpreters: interpreters(model) }), /rate limited/)
 * assert.deepStrictEqual(model.calls.map((c) => c.outcome), ['failure'])
 */
export const scripted = (options?: ScriptedOptions): ScriptedInterpreter => {
  const kind = options?.kind ?? 'scripted'
  const plan = options?.plan ?? {}
  const otherwise = options?.otherwise ?? orInput
  const clock = options?.clock
  const calls: ScriptedCall[] = []
  let seq = 0
  let inFlight = 0
  let maxInFlight = 0

  const planned = (node: Node, ctx: NodeContext): Outcome | undefined => {
    const key = ctx.path.join('/')
    const entry = Object.hasOwn(plan, key)
      ? plan[key]
      : Object.hasOwn(plan, node.id)
        ? plan[node.id]
        : undefined
    if (entry === undefined) return undefined
    if (!Array.isArray(entry)) return entry as Outcome
    const list = entry as readonly Outcome[]
    return list[Math.min(ctx.attempt, list.length) - 1]
  }

  const finish = (call: ScriptedCall, outcome: ScriptedCall['outcome']): void => {
    call.end = seq++
    call.outcome = outcome
    inFlight--
  }

  const play = (node: Node, ctx: NodeContext, call: ScriptedCall): unknown => {
    const o = planned(node, ctx)
    if (o === undefined) {
      const v = otherwise(node, ctx)
      finish(call, 'value')
      return v
    }
    if (o._tag === 'failure') {
      finish(call, 'failure')
      throw o.error
    }
    for (const c of o.chunks) ctx.emit(c)
    if (o.usage !== undefined) ctx.reportUsage(o.usage)
    finish(call, 'value')
    return o.value
  }

  const execute = (node: Node, ctx: NodeContext): unknown => {
    const call: ScriptedCall = {
      path: ctx.path,
      nodeId: node.id,
      attempt: ctx.attempt,
      start: seq++,
      end: undefined,
      outcome: 'running',
    }
    calls.push(call)
    inFlight++
    if (inFlight > maxInFlight) maxInFlight = inFlight
    const o = planned(node, ctx)
    const delay = o !== undefined ? o.delayMs : (options?.delayMs?.(ctx) ?? 0)
    if (delay === 0) {
      try {
        return play(node, ctx, call)
      } catch (e) {
        if (call.end === undefined) finish(call, 'failure')
        throw e
      }
    }
    if (clock === undefined) {
      finish(call, 'failure')
      throw new UsageError('scripted', `step "${ctx.path.join('/')}" waits, but no clock was given`)
    }
    return clock.sleep(delay, ctx.signal).then(
      () => {
        try {
          return play(node, ctx, call)
        } catch (e) {
          if (call.end === undefined) finish(call, 'failure')
          throw e
        }
      },
      (e: unknown) => {
        finish(call, 'aborted')
        throw e
      },
    )
  }
  return new Scripted(kind, execute, calls, () => maxInFlight)
}

/** The interpreter {@link scripted} makes, its peak read through the prototype. */
class Scripted implements ScriptedInterpreter {
  readonly #peak: () => number

  constructor(
    readonly kind: string,
    readonly execute: (node: Node, ctx: NodeContext) => unknown,
    readonly calls: readonly ScriptedCall[],
    peak: () => number,
  ) {
    this.#peak = peak
  }

  get maxInFlight(): number {
    return this.#peak()
  }
}

/**
 * A node for a scripted interpreter (kind `'scripted'` unless given).
 *
 * @category scripted
 */
export const scriptedNode = (id: string, kind = 'scripted'): Node =>
  makeNode({ id, kind, persistent: false, metadata: {} }, 'scriptedNode')
