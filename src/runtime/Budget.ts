import { UsageError } from '../errors.js'

/**
 * Limits of one run, nested graphs included. Every field is optional; a
 * missing one is no limit. Checked before each step starts and before each
 * retry (and the time limit also by a timer): a run that has gone over one
 * stops with `BudgetExceeded` naming it. Usage is what interpreters report
 * with `ctx.reportUsage`, rolled up from nested graphs.
 *
 * @category runtime
 */
export interface Budget {
  /** The most steps started, counting nested graphs' steps (retries are not steps). */
  readonly maxSteps?: number
  /** The most milliseconds since the run started, by the run's clock. */
  readonly maxTimeMs?: number
  readonly maxTokens?: number
  readonly maxApiCalls?: number
  /** In whatever unit interpreters report cost in. */
  readonly maxCost?: number
}

/**
 * The name of a budget limit.
 *
 * @category runtime
 */
export type BudgetLimit = keyof Budget

/**
 * Resources used: the sum of what interpreters reported.
 *
 * @category runtime
 */
export interface RunUsage {
  readonly tokens: number
  readonly apiCalls: number
  readonly cost: number
}

const LIMITS: readonly BudgetLimit[] = [
  'maxSteps',
  'maxTimeMs',
  'maxTokens',
  'maxApiCalls',
  'maxCost',
]

/**
 * Checks a budget given to `run`: an object whose fields are numbers ≥ 0
 * (`Infinity` allowed). Returns it, or `undefined` for none.
 *
 * @internal
 */
export const checkBudget = (api: string, budget: unknown): Budget | undefined => {
  if (budget === undefined) return undefined
  if (typeof budget !== 'object' || budget === null) {
    throw new UsageError(api, `options.budget must be an object, got ${typeof budget}`)
  }
  for (const key of Object.keys(budget)) {
    if (!(LIMITS as readonly string[]).includes(key)) {
      throw new UsageError(api, `options.budget.${key} is not a limit (${LIMITS.join(', ')})`)
    }
    const v = (budget as Record<string, unknown>)[key]
    if (v === undefined) continue
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0) {
      throw new UsageError(
        api,
        `options.budget.${key} must be a number ≥ 0, got ${typeof v === 'number' ? v : typeof v}`,
      )
    }
  }
  return budget
}

/**
 * The first limit of `budget` that `used` goes over, or `undefined`.
 * `steps` is the number of steps started including the one about to start.
 *
 * @internal
 */
export const overBudget = (
  budget: Budget,
  steps: number,
  elapsedMs: number,
  used: RunUsage,
): { readonly limit: BudgetLimit; readonly max: number; readonly used: number } | undefined => {
  const check = (limit: BudgetLimit, value: number) => {
    const max = budget[limit]
    return max !== undefined && value > max ? { limit, max, used: value } : undefined
  }
  return (
    check('maxSteps', steps) ??
    check('maxTimeMs', elapsedMs) ??
    check('maxTokens', used.tokens) ??
    check('maxApiCalls', used.apiCalls) ??
    check('maxCost', used.cost)
  )
}
