/**
 * io-ts codecs of a network's parts (delivery, trigger, provider, budget,
 * limits, acceptance): strict objects, where an unknown key is an error.
 * The file codec and the builders both check with them.
 *
 * @internal
 */
import * as t from 'io-ts'
import { UsageError } from '../../errors.js'
import {
  errorPath,
  expectedOf,
  isUnknownKey,
  jsonSchemaOf,
  keyHint,
  literals,
  withJsonSchema,
} from '../../codec/index.js'
import type { Budget } from '../../runtime/index.js'
import type {
  Acceptance,
  Delivery,
  Direction,
  Limits,
  NodeMode,
  ProviderSpec,
  WorkflowMode,
} from './Network.js'
import { refine, strict, type Branch } from './strict.js'
import { TRIGGERS, type Trigger } from './triggers/index.js'

export { strict }

/** A number ≥ 0 (Infinity allowed). */
export const NonNegative = refine(t.number, (n) => n >= 0, 'a number ≥ 0')
/** A whole number ≥ 1 (Infinity allowed). */
export const Positive = refine(
  t.number,
  (n) => n === Infinity || (Number.isInteger(n) && n >= 1),
  'a whole number ≥ 1',
)
const NonEmpty = refine(t.string, (s) => s.trim() !== '', 'a non-blank string')
/** An absolute `http:` or `https:` URL. */
const HttpUrl = refine(
  t.string,
  (s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol)
    } catch {
      return false
    }
  },
  'an http(s) URL',
)
/**
 * A union chosen by the value's `type`: the errors are those of the one
 * branch it names (or one at `type` when it names none), not of every branch.
 */
const byType = <A>(name: string, branches: Readonly<Record<string, Branch<A>>>): t.Type<A> => {
  // a type such as "toString" names no branch: only the branches' own keys do
  const branchOf = (type: unknown): Branch<A> | undefined =>
    typeof type === 'string' && Object.hasOwn(branches, type) ? branches[type] : undefined
  const types = Object.keys(branches)
  const TypeName = literals(types.map((k) => JSON.stringify(k)).join(' | '), types)
  const codec = new t.Type<A>(
    name,
    (u): u is A => {
      const r = (u as { type?: unknown } | null)?.type
      const b = branchOf(r)
      return b !== undefined && t.UnknownRecord.is(u) && (typeof b === 'function' ? b(u) : b).is(u)
    },
    (u, c) => {
      if (!t.UnknownRecord.is(u) || Array.isArray(u)) return t.failure(u, c)
      const type = u.type
      const b = branchOf(type)
      if (b === undefined) {
        return t.failure(type, t.appendContext(c, 'type', TypeName, type))
      }
      return (typeof b === 'function' ? b(u) : b).validate(u, c)
    },
    t.identity,
  )
  // a branch chosen by more than the type (a function of the value) lists what it may choose
  return withJsonSchema(codec, () => ({
    anyOf: Object.values(branches).flatMap((b) =>
      typeof b === 'function' ? (b.schemas ?? []).map(jsonSchemaOf) : [jsonSchemaOf(b)],
    ),
  }))
}

export const DeliveryCodec: t.Type<Delivery> = byType<Delivery>('Delivery', {
  queue: strict('{ type: "queue" }', { type: t.literal('queue') }),
  latest: strict('{ type: "latest" }', { type: t.literal('latest') }),
  debounce: strict('{ type: "debounce", ms }', { type: t.literal('debounce'), ms: NonNegative }),
})

/** A node's trigger: one branch per kind of the trigger table. */
export const TriggerCodec: t.Type<Trigger> = byType<Trigger>(
  'Trigger',
  Object.fromEntries(
    Object.entries(TRIGGERS).map(([type, k]) => [type, k.codec as Branch<Trigger>]),
  ),
)

export const ProviderCodec: t.Type<ProviderSpec> = byType<ProviderSpec>('Provider', {
  mock: strict('{ type: "mock", script }', {
    type: t.literal('mock'),
    script: t.readonlyArray(
      t.union([
        t.string,
        strict(
          'MockTurn',
          {},
          {
            text: t.string,
            tools: t.readonlyArray(
              strict('MockToolCall', { name: t.string, input: t.UnknownRecord }),
            ),
          },
        ),
      ]),
    ),
  }),
  llm: strict(
    '{ type: "llm", provider }',
    { type: t.literal('llm'), provider: NonEmpty },
    {
      model: t.string,
    },
  ),
  cli: strict(
    '{ type: "cli", agent }',
    {
      type: t.literal('cli'),
      agent: t.keyof({ 'claude-cli': null, 'codex-cli': null, 'gemini-cli': null }),
    },
    {
      command: NonEmpty,
      args: t.readonlyArray(t.string),
      model: NonEmpty,
      ownConfig: t.boolean,
      forward: HttpUrl,
    },
  ),
  command: strict('{ type: "command", command }', {
    type: t.literal('command'),
    command: NonEmpty,
  }),
})

export const BudgetCodec: t.Type<Budget> = strict<Budget>(
  'Budget',
  {},
  {
    maxSteps: NonNegative,
    maxTimeMs: NonNegative,
    maxTokens: NonNegative,
    maxApiCalls: NonNegative,
    maxCost: NonNegative,
  },
)

export const LimitsCodec: t.Type<Partial<Limits>> = strict<Partial<Limits>>(
  'Limits',
  {},
  { maxInFlight: Positive, maxIterations: Positive, stallAfter: Positive, maxSpawned: NonNegative },
)

export const AcceptanceCodec: t.Type<Acceptance> = strict<Acceptance>(
  'Acceptance',
  { command: NonEmpty },
  { timeoutMs: Positive },
)

export const ModeCodec: t.Type<NodeMode> = literals('NodeMode', ['interactive', 'auto'])
export const WorkflowCodec: t.Type<WorkflowMode> = literals('WorkflowMode', [
  'planning',
  'implementation',
])
export const DirectionCodec: t.Type<Direction> = literals('Direction', ['both', 'one-way'])
export const StringList = t.readonlyArray(t.string)

/** The first problem of a validation, as ` at /key/key: expected …` (`: expected …` at the top). */
export const firstProblem = (errors: t.Errors): string => {
  const e = errors[0]!
  const path = errorPath(e)
  const where = path === '' ? ': ' : ` at ${path}: `
  if (isUnknownKey(e)) {
    const hint = keyHint(e)
    return `${where}is not a known key${hint === undefined ? '' : `; did you mean "${hint}"?`}`
  }
  return `${where}expected ${expectedOf(e)}, got ${(JSON.stringify(e.value) as string | undefined) ?? String(e.value)}`
}

/** Checks `value` with `codec`, throwing a UsageError of `api` naming `what` and the problem. */
export const checked = <A>(api: string, what: string, codec: t.Type<A>, value: unknown): A => {
  const r = codec.decode(value)
  if (r._tag === 'Left') throw new UsageError(api, `${what}${firstProblem(r.left)}`)
  return r.right
}
