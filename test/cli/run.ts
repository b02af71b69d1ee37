/**
 * Runs the built `nerve` executable (dist/, what users run) as a child
 * process. `ensureBuilt` compiles first when a source file is newer than the
 * build, so the suite never tests a stale executable.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect } from 'vitest'

export const root = fileURLToPath(new URL('../../', import.meta.url))
export const bin = join(root, 'dist/cli/main.js')

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (m, e) =>
      Math.max(
        m,
        e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
      ),
    0,
  )

/** `npm run build`, as a user runs it. */
export const build = (): void => {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
}

export const ensureBuilt = (): void => {
  let built = 0
  try {
    built = statSync(bin).mtimeMs
  } catch {
    // not built yet
  }
  if (built < newest(join(root, 'src'))) {
    build()
  }
}

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `nerve ...args` with `env` added, optionally feeding `stdin`, in `cwd` (default: the repository). */
export const nerve = (
  args: readonly string[],
  env: Record<string, string> = {},
  stdin?: string,
  cwd: string = root,
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(stdin ?? '')
  })

/**
 * A temporary directory `nerve-<name>-…` for one test file, removed after its
 * tests; the build is brought up to date before them.
 */
export const testDir = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `nerve-${name}-`))
  beforeAll(ensureBuilt, 180_000)
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/**
 * A daemon of one test file's own, its home in a {@link testDir}: started
 * (`--detach`) before the tests and stopped after them. `env` points `nerve`
 * at it.
 */
export const testDaemon = (name: string) => {
  const dir = testDir(name)
  const home = join(dir, 'home')
  const env = { NERVE_HOME: home, HOME: join(dir, 'user'), XDG_RUNTIME_DIR: '' }
  beforeAll(async () => {
    const r = await nerve(['server', 'start', '--detach'], env)
    expect(r.code, r.stderr).toBe(0)
  }, 60_000)
  // After hooks run last-registered first: the daemon stops before its directory goes.
  afterAll(async () => {
    await nerve(['server', 'stop'], env)
  })
  return { dir, home, env }
}

/** A graph whose first step is an approval gate: the example of docs/approvals.md. */
export const gateGraph = {
  id: 'gate',
  nodes: {
    gate: { kind: 'approval', action: 'ship', reason: 'a person signs it off' },
    ship: { kind: 'bash', command: 'echo shipped' },
  },
  steps: [
    { id: 'gate', node: 'gate', input: 'v1.2' },
    { id: 'ship', node: 'ship', dependsOn: ['gate'] },
  ],
}
