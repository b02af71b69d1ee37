/**
 * cli.start: the cold start of the built `nerve --version` (a new node
 * process each time, what a user waits for), against `node -e 0` measured
 * in the same run. Goal: at most 3× the bare node start.
 *
 * cli.node.list: a whole cold command against a running daemon, `nerve node
 * list --json` (start, connect, LIST_NODES, print), against a bare Node
 * script that connects to the same socket, sends `LIST_NODES` and exits on
 * the answer. Goal: at most 1.5× the bare script.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../src/server/index.js'
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

/** Builds dist/ when it is not there (the benchmarks measure what users run: the bundled executable). */
const ensureDist = (log: (line: string) => void, name: string): void => {
  if (existsSync(bin)) return
  log(`${name}: building dist/ first`)
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'ignore' },
  )
  execFileSync(process.execPath, [join(root, 'src/cli/build.js')], { cwd: root, stdio: 'ignore' })
}

/** The bare client: connect, one LIST_NODES line, exit on the first line back. */
const bareList = (socket: string): string =>
  `const s = require('node:net').connect(${JSON.stringify(socket)}, () => s.write(${JSON.stringify(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'LIST_NODES', params: {} })}\n`,
  )})); s.on('data', (d) => { if (d.includes(10)) process.exit(0) })`

const nodeList: Benchmark = {
  name: 'cli.node.list',
  async run({ rounds, log }): Promise<readonly Result[]> {
    ensureDist(log, 'cli.node.list')
    const home = mkdtempSync(join(tmpdir(), 'nerve-bench-cli-'))
    const socket = join(home, 'nerve.sock')
    const server = await startServer({ engineOptions: { history: false }, socket, pidFile: false })
    try {
      const { ours, baseline } = await interleaveAsync({
        rounds: rounds ?? 20,
        warmup: 3,
        ours: () => timed([bin, 'node', 'list', '--json', '--socket', socket]),
        baseline: () => timed(['-e', bareList(socket)]),
      })
      return [
        {
          name: 'cli.node.list',
          unit: 'ms',
          median: ours.ms,
          baseline: 'a bare node script sending LIST_NODES on the socket, same run',
          baselineMedian: baseline.ms,
          target: { ratio: 1.5 },
        },
      ]
    } finally {
      await server.close()
      rmSync(home, { recursive: true, force: true })
    }
  },
}

const start: Benchmark = {
  name: 'cli.start',
  async run({ rounds, log }): Promise<readonly Result[]> {
    ensureDist(log, 'cli.start')
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

export const benchmarks: readonly Benchmark[] = [start, nodeList]
