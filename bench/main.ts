/**
 * Runs the benchmarks: `npm run bench [-- [--json] [--rounds N] [filter…]]`.
 *
 * Every bench file exports `benchmarks: readonly Benchmark[]`; add a file by
 * adding its name to FILES. A table goes to stdout (or, with --json, one JSON
 * object per result and nothing else); progress and errors go to stderr. A
 * missed target is reported, not an error: the exit code is 0 unless a
 * benchmark could not run (1) or the command line was wrong (2).
 */
import {
  jsonLine,
  parseArgs,
  selected,
  sink,
  table,
  type Args,
  type Benchmark,
  type Result,
} from './harness.js'

/** The bench files, `bench/<name>.bench.ts`, in the order they run. */
const FILES: readonly string[] = [
  'conversation',
  'codec',
  'runtime',
  'pty',
  'llm',
  'engine',
  'daemon',
  'store',
  'network',
  'cli',
  'dist',
]

const USAGE = `usage: npm run bench -- [--json] [--rounds N] [filter…]
  --json      one JSON object per result on stdout, nothing else
  --rounds N  samples per side (ours, baseline) instead of each benchmark's default
  filter      run only benchmarks whose name contains it (e.g. conversation, codec.load)`

const log = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const isBenchmarkList = (u: unknown): u is readonly Benchmark[] =>
  Array.isArray(u) &&
  u.every(
    (b: unknown) =>
      typeof b === 'object' &&
      b !== null &&
      typeof (b as { name?: unknown }).name === 'string' &&
      typeof (b as { run?: unknown }).run === 'function',
  )

/** Loads every bench file; a file that fails to load is reported and skipped. */
const load = async (): Promise<{ benchmarks: Benchmark[]; failed: number }> => {
  const benchmarks: Benchmark[] = []
  let failed = 0
  for (const file of FILES) {
    try {
      const mod = (await import(`./${file}.bench.js`)) as { benchmarks?: unknown }
      if (!isBenchmarkList(mod.benchmarks)) throw new Error('exports no `benchmarks` list')
      benchmarks.push(...mod.benchmarks)
    } catch (e) {
      failed++
      log(`bench/${file}.bench.ts could not load: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  return { benchmarks, failed }
}

const main = async (args: Args): Promise<number> => {
  const { benchmarks, failed: loadFailures } = await load()
  const chosen = benchmarks.filter((b) => selected(b.name, args.filters))
  if (chosen.length === 0) {
    log(
      `no benchmark matches ${args.filters.join(' ')}; there are: ${benchmarks.map((b) => b.name).join(', ')}`,
    )
    return 2
  }
  const results: Result[] = []
  let failed = loadFailures
  const started = performance.now()
  for (const b of chosen) {
    log(`${b.name} …`)
    sink.value = undefined // nothing of the previous benchmark stays alive into this one
    const t0 = performance.now()
    try {
      const rs = await b.run({ rounds: args.rounds, log })
      for (const r of rs) if (args.json) process.stdout.write(`${jsonLine(r)}\n`)
      results.push(...rs)
      log(`  done in ${((performance.now() - t0) / 1e3).toFixed(1)} s`)
    } catch (e) {
      failed++
      log(`${b.name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    }
  }
  log(`all benchmarks ran in ${((performance.now() - started) / 1e3).toFixed(1)} s`)
  if (!args.json) process.stdout.write(`\n${table(results)}\n`)
  return failed === 0 ? 0 : 1
}

let args: Args
try {
  args = parseArgs(process.argv.slice(2))
} catch (e) {
  log(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`)
  process.exit(2)
}
if (args.help) {
  log(USAGE)
  process.exit(0)
}
process.exitCode = await main(args)
