/**
 * Small parts of a run: budgets a firing counts against (what is left of
 * them, which one is spent) and scheduled triggers armed on the clock.
 *
 * @internal
 */
import { Cron } from 'croner'
import type { Budget, BudgetLimit, Clock } from '../../runtime/index.js'
import type { Alarm } from '../model/triggers/index.js'

/** What a node or the network used so far. */
export interface Used {
  readonly tokens: number
  readonly apiCalls: number
  readonly cost: number
  readonly timeMs: number
  readonly firings: number
}

const LIMITS: readonly [BudgetLimit, keyof Used][] = [
  ['maxTokens', 'tokens'],
  ['maxApiCalls', 'apiCalls'],
  ['maxCost', 'cost'],
  ['maxSteps', 'firings'],
  ['maxTimeMs', 'timeMs'],
]

/**
 * One budget a firing counts against, and what was used of it so far: the
 * node's own, a sub-network's, the network's.
 *
 * @internal
 */
export interface BudgetScope {
  readonly budget: Budget | undefined
  readonly used: Used
}

/** A limit gone over: which, its maximum, and what was used. */
export interface Spent {
  readonly limit: BudgetLimit
  readonly max: number
  readonly used: number
}

/**
 * The first limit of `budget` that leaves no room for another firing: a
 * count already at its maximum, or as many firings (steps) as it allows.
 *
 * @internal
 */
export const spentLimit = (budget: Budget | undefined, used: Used): Spent | undefined => {
  if (budget === undefined) return undefined
  for (const [limit, key] of LIMITS) {
    const max = budget[limit]
    if (max === undefined) continue
    const usedNow = used[key]
    // A firing is one step: the next one must fit in what is left.
    const over = limit === 'maxSteps' ? usedNow + 1 > max : usedNow >= max && max !== Infinity
    if (over) return { limit, max, used: usedNow }
  }
  return undefined
}

/**
 * What is left for the next firing of every budget it counts against, as
 * one runtime Budget (the least left of each limit), or the index of the
 * first scope already spent and how. Steps are firings, so `maxSteps`
 * only gates the firing and is not handed on.
 *
 * @internal
 */
export const remainingBudget = (
  scopes: readonly BudgetScope[],
): { readonly budget?: Budget; readonly exceeded?: { readonly scope: number } & Spent } => {
  if (scopes.every((s) => s.budget === undefined)) return {}
  const left: Record<string, number> = {}
  for (let i = 0; i < scopes.length; i++) {
    const { budget, used } = scopes[i]!
    const spent = spentLimit(budget, used)
    if (spent !== undefined) return { exceeded: { scope: i, ...spent } }
    for (const [limit, key] of LIMITS) {
      const max = budget?.[limit]
      if (max === undefined || limit === 'maxSteps') continue
      left[limit] = Math.min(left[limit] ?? Infinity, max - used[key])
    }
  }
  return { budget: left }
}

/**
 * Arms an alarm on the clock: `fire` every `everyMs`, or at each
 * time the cron expression names (read on the clock as epoch
 * milliseconds). Aborting the returned controller disarms it.
 *
 * @internal
 */
export const scheduleTimer = (alarm: Alarm, clock: Clock, fire: () => void): AbortController => {
  const stop = new AbortController()
  const cron = 'cron' in alarm ? new Cron(alarm.cron, { paused: true }) : undefined
  const next = (): number | undefined => {
    if ('everyMs' in alarm) return alarm.everyMs
    const now = clock.now()
    const at = cron!.nextRun(new Date(now))
    return at === null ? undefined : Math.max(0, at.getTime() - now)
  }
  const loop = async (): Promise<void> => {
    for (;;) {
      const ms = next()
      if (ms === undefined) return
      await clock.sleep(ms, stop.signal)
      fire()
    }
  }
  loop().catch(() => undefined)
  return stop
}
