/**
 * io-ts codecs of a network's parts (delivery, trigger, provider, budget,
 * limits, acceptance): strict objects, where an unknown key is an error.
 * The file codec and the builders both check with them.
 *
 * @internal
 */
import * as t from 'io-ts'
import { UsageError } from '../errors.js'
import {
  errorPath,
  expectedOf,
  isUnknownKey,
  jsonSchemaOf,
  keyHint,
  literals,
  refined,
  strict as strictOf,
  withJsonSchema,
  type Props,
} from '../codec/index.js'
import type { Budget } from '../runtime/index.js'
import type {
  Acceptance,
  Delivery,
  Direction,
  Limits,
  NodeMode,
  ProviderSpec,
  Trigger,
  WorkflowMode,
} from './Network.js'

/** Words other tools use for a network file's keys, and the key they mean here. */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  model: 'provider',
  prompt_template: 'prompt',
  systemPrompt: 'system',
  instructions: 'system',
  source: 'from',
  target: 'to',
  agents: 'nodes',
  links: 'edges',
  connections: 'edges',
}

/** An object with these required and optional keys and no other; every error collected (and its JSON Schema). */
export const strict = <A>(name: string, required: Props, optional: Props = {}): t.Type<A> =>
  strictOf<Props, Props, A>(name, required, optional, { aliases: KEY_ALIASES })

/** The values of `base` that pass `ok`: an error says what was expected by `name`. */
const refine = <A>(base: t.Type<A>, ok: (a: A) => boolean, name: string): t.Type<A> =>
  refined(base, name, ok)

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
/** Five or six fields of cron characters. */
const Cron = refine(
  t.string,
  (s) => /^[\d*/,\-?LW#A-Za-z]+(\s+[\d*/,\-?LW#A-Za-z]+){4,5}$/.test(s.trim()),
  'a cron expression (5 or 6 fields)',
)

/**
 * A union chosen by the value's `type`: the errors are those of the one
 * branch it names (or one at `type` when it names none), not of every branch.
 */
const byType = <A>(
  name: string,
  branches: Readonly<
    Record<
      string,
      t.Type<A> | (((u: Record<string, unknown>) => t.Type<A>) & { schemas?: readonly t.Type<A>[] })
    >
  >,
): t.Type<A> => {
  const types = Object.keys(branches)
  const TypeName = literals(types.map((k) => JSON.stringify(k)).join(' | '), types)
  const codec = new t.Type<A>(
    name,
    (u): u is A => {
      const r = (u as { type?: unknown } | null)?.type
      const b = typeof r === 'string' ? branches[r] : undefined
      return b !== undefined && t.UnknownRecord.is(u) && (typeof b === 'function' ? b(u) : b).is(u)
    },
    (u, c) => {
      if (!t.UnknownRecord.is(u) || Array.isArray(u)) return t.failure(u, c)
      const type = u.type
      const b = typeof type === 'string' ? branches[type] : undefined
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

const Scheduled = {
  cron: strict<Trigger>('{ type: "scheduled", cron }', {
    type: t.literal('scheduled'),
    cron: Cron,
  }),
  every: strict<Trigger>('{ type: "scheduled", everyMs }', {
    type: t.literal('scheduled'),
    everyMs: refine(t.number, (n) => n > 0 && Number.isFinite(n), 'a number > 0'),
  }),
}

export const TriggerCodec: t.Type<Trigger> = byType<Trigger>('Trigger', {
  any: strict('{ type: "any" }', { type: t.literal('any') }),
  all: strict('{ type: "all" }', { type: t.literal('all') }),
  manual: strict('{ type: "manual" }', { type: t.literal('manual') }),
  scheduled: Object.assign(
    (u: Record<string, unknown>) => ('everyMs' in u ? Scheduled.every : Scheduled.cron),
    { schemas: [Scheduled.every, Scheduled.cron] },
  ),
})

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
