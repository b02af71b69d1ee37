/**
 * client.import: a fresh node process that imports the built
 * `nerve-agents/client`, against one that imports `ws` alone (the one
 * package a client cannot do without), measured in the same run. The SDK
 * loads the protocol and its transports only — no engine, no native addon —
 * so a program that only talks to a daemon starts fast. Goal: at most 2×.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { interleaveAsync, type Benchmark, type Result } from './harness.js'

const root = process.cwd()

/** Milliseconds from spawning a node process that imports `specifier` (from the repository) to its exit. */
const imported = (specifier: string): Promise<{ ms: number }> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`],
      { cwd: root, stdio: 'ignore' },
    )
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve({ ms: performance.now() - t0 })
      else reject(new Error(`importing ${specifier} exited with ${code}`))
    })
  })

const clientImport: Benchmark = {
  name: 'client.import',
  async run({ rounds, log }): Promise<readonly Result[]> {
    if (!existsSync(join(root, 'dist/client/index.js'))) {
      log('client.import: building dist/ first')
      execFileSync(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        { cwd: root, stdio: 'ignore' },
      )
    }
    const { ours, baseline } = await interleaveAsync({
      rounds: rounds ?? 20,
      warmup: 3,
      ours: () => imported('nerve-agents/client'),
      baseline: () => imported('ws'),
    })
    return [
      {
        name: 'client.import',
        unit: 'ms',
        median: ours.ms,
        baseline: "a fresh node importing 'ws' alone, same run",
        baselineMedian: baseline.ms,
        target: { ratio: 2 },
      },
    ]
  },
}

export const benchmarks: readonly Benchmark[] = [clientImport]
