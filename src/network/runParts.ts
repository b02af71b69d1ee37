import { Cron } from 'croner'
import { BudgetExceeded, type Budget, type BudgetLimit, type Clock } from '../runtime/index.js'
import type { Trigger } from './Network.js'

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
 * What is left of a node's budget and the network's for the next firing,
 * as a runtime Budget, or the limit already gone over. A node's time is
 * the time its firings took; the network's is the time since the run
 * started; steps are firings.
 *
 * @internal
 */
export const remainingBudget = (
  nodeBudget: Budget | undefined,
  nodeUsed: Used,
  netBudget: Budget | undefined,
  netUsed: Used,
  elapsedMs: number,
): { readonly budget?: Budget; readonly exceeded?: BudgetExceeded } => {
  if (nodeBudget === undefined && netBudget === undefined) return {}
  const left: Record<string, number> = {}
  const net = { ...netUsed, timeMs: elapsedMs }
  for (const [limit, key] of LIMITS) {
    for (const [budget, used] of [
      [nodeBudget, nodeUsed],
      [netBudget, net],
    ] as const) {
      const max = budget?.[limit]
      if (max === undefined) continue
      const usedNow = used[key]
      // A firing is one step: the next one must fit in what is left.
      const over = limit === 'maxSteps' ? usedNow + 1 > max : usedNow >= max && max !== Infinity
      if (over) return { exceeded: new BudgetExceeded([], limit, max, usedNow) }
      const rest = limit === 'maxSteps' ? Infinity : max - usedNow
      left[limit] = Math.min(left[limit] ?? Infinity, rest)
    }
  }
  return { budget: left }
}

/**
 * Arms a scheduled trigger on the clock: `fire` every `everyMs`, or at each
 * time the cron expression names (read on the clock as epoch
 * milliseconds). Aborting the returned controller disarms it.
 *
 * @internal
 */
export const scheduleTimer = (
  trigger: Extract<Trigger, { type: 'scheduled' }>,
  clock: Clock,
  fire: () => void,
): AbortController => {
  const stop = new AbortController()
  const cron = 'cron' in trigger ? new Cron(trigger.cron, { paused: true }) : undefined
  const next = (): number | undefined => {
    if ('everyMs' in trigger) return trigger.everyMs
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
