/**
 * Runs the benchmarks: `npm run bench [-- [--json] [--rounds N] [filter…]]`.
 *
 * Every bench file exports `benchmarks: readonly Benchmark[]`; add a file by
 * adding its name to FILES. A table goes to stdout (or, with --json, one JSON
 * object per result and nothing else); progress and errors go to stderr. A
 * missed target is reported, not an error: the exit code is 0 unless a
 * benchmark could not run (1) or the command line was wrong (2).
 *
 * Each benchmark runs in a Node process of its own (this file again, told
 * which one by {@link ONE}), so what one leaves behind — optimised and
 * deoptimised code, a grown heap, process-wide hooks — cannot change the
 * figures of the next: a benchmark measures the same alone or in the full run.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  jsonLine,
  parseArgs,
  selected,
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
  'chat',
  'proxy',
  'mcp',
  'cli.agent',
  'engine',
  'daemon',
  'store',
  'network',
  'cli',
  'client',
  'dist',
  'dashboard',
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

/** The environment variable naming the one benchmark a child process runs. */
const ONE = 'NERVE_BENCH_ONE'

/** In a child: runs the benchmark named by {@link ONE}, its results as JSON lines on stdout. */
const runOne = async (name: string, rounds: number | undefined): Promise<number> => {
  const { benchmarks } = await load()
  const b = benchmarks.find((x) => x.name === name)
  if (b === undefined) {
    log(`no benchmark is named ${name}`)
    return 1
  }
  try {
    for (const r of await b.run({ rounds, log })) process.stdout.write(`${JSON.stringify(r)}\n`)
    return 0
  } catch (e) {
    log(`${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    return 1
  }
}

/** Runs one benchmark in a child process: its results, or `undefined` if it failed. */
const inChild = (name: string, rounds: number | undefined): Promise<Result[] | undefined> =>
  new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        ...(rounds === undefined ? [] : ['--rounds', String(rounds)]),
      ],
      { env: { ...process.env, [ONE]: name }, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (d: string) => (out += d))
    child.on('close', (code) => {
      const lines = out.split('\n').filter((l) => l !== '')
      resolve(code === 0 ? lines.map((l) => JSON.parse(l) as Result) : undefined)
    })
  })

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
    const t0 = performance.now()
    const rs = await inChild(b.name, args.rounds)
    if (rs === undefined) {
      failed++
      continue
    }
    for (const r of rs) if (args.json) process.stdout.write(`${jsonLine(r)}\n`)
    results.push(...rs)
    log(`  done in ${((performance.now() - t0) / 1e3).toFixed(1)} s`)
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
const one = process.env[ONE]
process.exitCode = one === undefined ? await main(args) : await runOne(one, args.rounds)
