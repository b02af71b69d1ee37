/**
 * The benchmark harness: how a benchmark is declared, how its samples are
 * taken (ours and the baseline interleaved in the same process), and how the
 * results are judged and printed. The pure parts (median, ratio, judging,
 * formatting, argument parsing) are tested in test/bench/harness.test.ts.
 */
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'

/**
 * Bounds a result must keep to pass: upper bounds for figures where lower is
 * better (times), lower bounds (`min…`) where higher is better (throughput).
 */
export interface Target {
  /** Largest acceptable median, in the result's unit. */
  readonly median?: number
  /** Largest acceptable ratio median / baselineMedian. */
  readonly ratio?: number
  /** Smallest acceptable median, for a figure where higher is better. */
  readonly minMedian?: number
  /** Smallest acceptable ratio median / baselineMedian, for a figure where higher is better. */
  readonly minRatio?: number
}

/** One measured figure of a benchmark, with its baseline from the same run. */
export interface Result {
  readonly name: string
  readonly unit: string
  readonly median: number
  readonly baseline: string
  readonly baselineMedian: number
  readonly target?: Target
}

/** A benchmark: a name (used by the filter) and a run giving one or more results (or a promise of them). */
export interface Benchmark {
  readonly name: string
  readonly run: (options: RunOptions) => readonly Result[] | Promise<readonly Result[]>
}

/** What the runner passes to every benchmark. */
export interface RunOptions {
  /** Rounds to take when the command line asked for a number; otherwise the benchmark's own. */
  readonly rounds: number | undefined
  /** Progress for a human; goes to stderr, never stdout. */
  readonly log: (line: string) => void
}

// ---------------------------------------------------------------- statistics

/** The median of a non-empty list of numbers (the mean of the middle two for an even count). */
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) throw new RangeError('median of no samples')
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  // Halving each first: (a + b) / 2 overflows to Infinity for large a and b.
  return s.length % 2 === 1 ? s[mid]! : s[mid - 1]! / 2 + s[mid]! / 2
}

/** ours / baseline; `Infinity` when the baseline is 0 and ours is not, 1 when both are 0. */
export const ratio = (ours: number, baseline: number): number =>
  baseline === 0 ? (ours === 0 ? 1 : Infinity) : ours / baseline

/** Rounds to `digits` significant digits, keeping integers of any size whole. */
export const round = (x: number, digits = 4): number =>
  !Number.isFinite(x) || x === 0 || Math.abs(x) >= 10 ** digits
    ? Math.round(x)
    : Number(x.toPrecision(digits))

/** Whether a result meets its target; `undefined` when it has none. */
export const judge = (r: Result): boolean | undefined => {
  const t = r.target
  if (
    t === undefined ||
    (t.median === undefined &&
      t.ratio === undefined &&
      t.minMedian === undefined &&
      t.minRatio === undefined)
  ) {
    return undefined
  }
  const q = ratio(r.median, r.baselineMedian)
  const medianOk =
    (t.median === undefined || r.median <= t.median) &&
    (t.minMedian === undefined || r.median >= t.minMedian)
  const ratioOk =
    (t.ratio === undefined || q <= t.ratio) && (t.minRatio === undefined || q >= t.minRatio)
  return medianOk && ratioOk
}

// ---------------------------------------------------------------- output

/** The one-line JSON form of a result: the six contract fields first, then target and ok. */
export const jsonLine = (r: Result): string => {
  const ok = judge(r)
  return JSON.stringify({
    name: r.name,
    unit: r.unit,
    median: round(r.median),
    baseline: r.baseline,
    baselineMedian: round(r.baselineMedian),
    ratio: round(ratio(r.median, r.baselineMedian), 3),
    target: r.target === undefined ? null : r.target,
    ok: ok === undefined ? null : ok,
  })
}

/** A target as people read it: `≤ 2 µs, ratio ≤ 2.5`, `ratio ≥ 0.5`, or `-`. */
export const describeTarget = (r: Result): string => {
  const parts: string[] = []
  if (r.target?.median !== undefined) parts.push(`≤ ${r.target.median} ${r.unit}`)
  if (r.target?.minMedian !== undefined) parts.push(`≥ ${r.target.minMedian} ${r.unit}`)
  if (r.target?.ratio !== undefined) parts.push(`ratio ≤ ${r.target.ratio}`)
  if (r.target?.minRatio !== undefined) parts.push(`ratio ≥ ${r.target.minRatio}`)
  return parts.length === 0 ? '-' : parts.join(', ')
}

const verdict = (r: Result): string => {
  const ok = judge(r)
  return ok === undefined ? '-' : ok ? 'pass' : 'FAIL'
}

/** The readable table of results, one row each, columns aligned. */
export const table = (results: readonly Result[]): string => {
  const header = ['name', 'median', 'unit', 'baseline', 'baseline median', 'ratio', 'target', '']
  const rows = results.map((r) => [
    r.name,
    String(round(r.median, 3)),
    r.unit,
    r.baseline,
    String(round(r.baselineMedian, 3)),
    `${round(ratio(r.median, r.baselineMedian), 3)}×`,
    describeTarget(r),
    verdict(r),
  ])
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((row) => row[c]!.length)))
  const right = new Set([1, 4, 5])
  const line = (row: readonly string[]): string =>
    row
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd()
  const rule = widths.map((w) => '-'.repeat(w)).join('  ')
  return [line(header), rule, ...rows.map(line)].join('\n')
}

// ---------------------------------------------------------------- arguments

/** What the command line asked for. */
export interface Args {
  readonly json: boolean
  readonly help: boolean
  readonly rounds: number | undefined
  /** Substrings of benchmark names; empty means all. */
  readonly filters: readonly string[]
}

/** Parses `[--json] [--rounds N | --rounds=N] [--help] [filter…]`; throws on anything else. */
export const parseArgs = (argv: readonly string[]): Args => {
  let json = false
  let help = false
  let rounds: number | undefined
  const filters: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--json') json = true
    else if (a === '--help' || a === '-h') help = true
    else if (a === '--rounds' || a.startsWith('--rounds=')) {
      const value = a === '--rounds' ? argv[++i] : a.slice('--rounds='.length)
      const n = Number(value)
      if (value === undefined || value === '' || !Number.isInteger(n) || n < 1) {
        throw new RangeError(`--rounds needs a positive integer, got ${JSON.stringify(value)}`)
      }
      rounds = n
    } else if (a.startsWith('-')) throw new RangeError(`unknown option ${JSON.stringify(a)}`)
    else filters.push(a)
  }
  return { json, help, rounds, filters }
}

/**
 * Whether a benchmark is selected: no filters, or some filter is part of its
 * name (`conversation` selects every conversation benchmark), or its name
 * starts a filter (`conversation.fork.1e5` selects `conversation.fork`).
 */
export const selected = (name: string, filters: readonly string[]): boolean =>
  filters.length === 0 || filters.some((f) => name.includes(f) || f.startsWith(`${name}.`))

// ---------------------------------------------------------------- measuring

/** The elapsed wall time of `fn`, in microseconds. */
export const timeUs = (fn: () => void): number => {
  const start = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - start) / 1e3
}

let collector: (() => void) | undefined

/**
 * A full garbage collection. Uses `global.gc` when node runs with
 * `--expose-gc`; otherwise turns the flag on at run time and takes `gc` from
 * a fresh context, which V8 allows.
 */
export const gc = (): void => {
  if (collector === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (exposed !== undefined) collector = exposed
    else {
      setFlagsFromString('--expose-gc')
      collector = runInNewContext('gc') as () => void
    }
  }
  collector()
}

/** The heap in use after a full collection, in bytes. */
export const heapUsed = (): number => {
  gc()
  return process.memoryUsage().heapUsed
}

/** A value the optimiser cannot prove unused; benchmarks store their results here. */
export const sink: { value: unknown } = { value: undefined }

/**
 * Samples `ours` and `baseline` alternately for `rounds` rounds after
 * `warmup` untimed rounds, swapping which goes first every round so neither
 * always runs on a warmer or fuller heap. A sample is a record of figures
 * (say `{ us }`, or `{ us, bytes }` when one pass measures both), already per
 * operation; the result is the median of each figure.
 */
export const interleave = <K extends string>(options: {
  readonly rounds: number
  readonly warmup: number
  readonly ours: () => Readonly<Record<K, number>>
  readonly baseline: () => Readonly<Record<K, number>>
}): { readonly ours: Record<K, number>; readonly baseline: Record<K, number> } => {
  for (let i = 0; i < options.warmup; i++) {
    options.ours()
    options.baseline()
  }
  const ours: Readonly<Record<K, number>>[] = []
  const baseline: Readonly<Record<K, number>>[] = []
  for (let i = 0; i < options.rounds; i++) {
    if (i % 2 === 0) {
      ours.push(options.ours())
      baseline.push(options.baseline())
    } else {
      baseline.push(options.baseline())
      ours.push(options.ours())
    }
  }
  return { ours: medians(ours), baseline: medians(baseline) }
}

/** {@link interleave} for asynchronous samples: each sample is awaited before the next starts. */
export const interleaveAsync = async <K extends string>(options: {
  readonly rounds: number
  readonly warmup: number
  readonly ours: () => Promise<Readonly<Record<K, number>>>
  readonly baseline: () => Promise<Readonly<Record<K, number>>>
}): Promise<{ readonly ours: Record<K, number>; readonly baseline: Record<K, number> }> => {
  for (let i = 0; i < options.warmup; i++) {
    await options.ours()
    await options.baseline()
  }
  const ours: Readonly<Record<K, number>>[] = []
  const baseline: Readonly<Record<K, number>>[] = []
  for (let i = 0; i < options.rounds; i++) {
    if (i % 2 === 0) {
      ours.push(await options.ours())
      baseline.push(await options.baseline())
    } else {
      baseline.push(await options.baseline())
      ours.push(await options.ours())
    }
  }
  return { ours: medians(ours), baseline: medians(baseline) }
}

/** The median of each figure over a non-empty list of samples. */
export const medians = <K extends string>(
  samples: readonly Readonly<Record<K, number>>[],
): Record<K, number> => {
  const first = samples[0]
  if (first === undefined) throw new RangeError('medians of no samples')
  const out = {} as Record<K, number>
  for (const k of Object.keys(first) as K[]) out[k] = median(samples.map((s) => s[k]))
  return out
}

/** Per-operation time in µs of `reps` calls of `fn`, each result kept in {@link sink}. */
export const perOpUs = (reps: number, fn: () => unknown): number =>
  timeUs(() => {
    for (let i = 0; i < reps; i++) sink.value = fn()
  }) / reps
