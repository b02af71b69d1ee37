/**
 * Checks of the options shared by the multiplexer-pane nodes (tmux, WezTerm,
 * Claude on WezTerm). Internal: not exported from the package.
 */
import { UsageError } from '../errors.js'

const typeOf = (u: unknown): string => (u === null ? 'null' : typeof u)
const show = (u: unknown): string =>
  typeof u === 'string' ? JSON.stringify(u) : typeof u === 'number' ? String(u) : typeOf(u)

/** A checker for one node's options: each check throws a UsageError naming `api` and the node. */
export const optionChecks = (
  api: string,
  id: string,
  options: object,
  keys: ReadonlySet<string>,
) => {
  const bad = (what: string): never => {
    throw new UsageError(api, `node "${id}": ${what}`)
  }
  if (typeof options !== 'object' || (options as unknown) === null) {
    bad(`options must be an object, got ${typeOf(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!keys.has(key)) bad(`unknown option "${key}"`)
  }
  return {
    bad,
    string(name: string, value: unknown): void {
      if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
        bad(`${name} must be a non-blank string, got ${show(value)}`)
      }
    },
    strings(name: string, value: unknown): void {
      if (value === undefined) return
      if (!Array.isArray(value)) bad(`${name} must be an array of strings`)
      ;(value as unknown[]).forEach((a, i) => {
        if (typeof a !== 'string') bad(`${name}[${i}] must be a string, got ${typeOf(a)}`)
      })
    },
    env(value: unknown): void {
      if (value === undefined) return
      if (typeof value !== 'object' || value === null) bad('env must be an object')
      for (const [name, v] of Object.entries(value as object)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          bad(`env: ${JSON.stringify(name)} is not a variable name`)
        }
        if (typeof v !== 'string') bad(`env.${name} must be a string, got ${typeOf(v)}`)
      }
    },
    integer(name: string, value: unknown, min: number, max: number): void {
      if (
        value !== undefined &&
        (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max)
      ) {
        bad(`${name} must be an integer from ${min} to ${max}, got ${show(value)}`)
      }
    },
    millis(name: string, value: unknown, zeroOk: boolean): void {
      if (
        value !== undefined &&
        (typeof value !== 'number' ||
          !Number.isFinite(value) ||
          value < 0 ||
          (!zeroOk && value === 0))
      ) {
        bad(
          `${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number of milliseconds, got ${show(value)}`,
        )
      }
    },
  }
}
