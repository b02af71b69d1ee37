/**
 * cli.start: the cold start of the built `nerve --version` (a new node
 * process each time, what a user waits for), against `node -e 0` measured
 * in the same run. Goal: at most 3× the bare node start.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const root = process.cwd()
const bin = join(root, 'dist/cli/main.js')

/** Milliseconds from spawning `node ...args` to its exit (code 0 required). */
const timed = (args: readonly string[]): Promise<{ ms: number }> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve({ ms: performance.now() - t0 })
      else reject(new Error(`node ${args.join(' ')} exited with ${code}`))
    })
  })

const start: Benchmark = {
  name: 'cli.start',
  async run({ rounds, log }): Promise<readonly Result[]> {
    if (!existsSync(bin)) {
      log('cli.start: building dist/ first')
      execFileSync(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: root,
          stdio: 'ignore',
        },
      )
    }
    const { ours, baseline } = await interleaveAsync({
      rounds: rounds ?? 20,
      warmup: 3,
      ours: () => timed([bin, '--version']),
      baseline: () => timed(['-e', '0']),
    })
    return [
      {
        name: 'cli.start',
        unit: 'ms',
        median: ours.ms,
        baseline: 'node -e 0, same machine, same run',
        baselineMedian: baseline.ms,
        target: { ratio: 3 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [start]
