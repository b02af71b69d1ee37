/**
 * `nerve graph run|validate` where a new user trips: an approval gate of a
 * run in this process, a run that fails before any step, a node kind no
 * interpreter runs, and where `--server` runs the steps. Through the built
 * executable, with a daemon of its own in the same home.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { gateGraph, nerve, testDaemon } from './run.js'

const { dir, env } = testDaemon('graph')

const file = (name: string, graph: unknown): string => {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(graph))
  return path
}

const gate = join(dir, 'gate.json')
const unknownKind = join(dir, 'unknown-kind.json')

beforeAll(() => {
  file('gate', gateGraph)
  file('unknown-kind', {
    id: 'x',
    nodes: { sh: { kind: 'frobnicate' } },
    steps: [{ id: 'a', node: 'sh', input: 'echo' }],
  })
})

describe('graph run', () => {
  it('denies a local gate at once off a terminal, saying to use --server, and prints no command that cannot reach it', async () => {
    const r = await nerve(['graph', 'run', gate], env)
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /^✖ gate failed: approval approval-\d+ was denied by nerve: no terminal to answer on: run with --server/m,
    )
    expect(r.stdout).not.toContain('shipped')
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/nerve (approve|deny) approval-/)
  }, 20_000)

  it('says why a run failed when no step did, in this process and on the daemon', async () => {
    for (const server of [[], ['--server']]) {
      const r = await nerve(['graph', 'run', unknownKind, ...server], env)
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(
        /^✖ run failed: MissingInterpreter: step "a" runs a "frobnicate" node: no interpreter/m,
      )
    }
  })

  it('runs the steps on the daemon in the directory of the caller, unless their node names one', async () => {
    const here = join(dir, 'here')
    const there = join(dir, 'there')
    mkdirSync(here)
    mkdirSync(there)
    const pwd = file('pwd', {
      id: 'pwd',
      nodes: { sh: { kind: 'bash' }, fixed: { kind: 'bash', cwd: there } },
      steps: [
        { id: 'a', node: 'sh', input: 'pwd' },
        { id: 'b', node: 'fixed', input: 'pwd' },
      ],
    })
    const r = await nerve(['graph', 'run', pwd, '--server'], env, undefined, here)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`  a │ ${realpathSync(here)}\n`)
    expect(r.stdout).toContain(`  b │ ${realpathSync(there)}\n`)
  })
})

describe('graph validate', () => {
  it('reports a node of a kind no interpreter runs, naming the kinds it knows, exit 2', async () => {
    const text = await nerve(['graph', 'validate', unknownKind], env)
    expect(text.code).toBe(2)
    expect(text.stdout).toMatch(
      /\/nodes\/sh\/kind: no interpreter runs "frobnicate" nodes \(known: bash, .*approval/,
    )
    for (const server of [[], ['--server']]) {
      const r = await nerve(['graph', 'validate', unknownKind, '--json', ...server], env)
      expect(r.code).toBe(2)
      const v = JSON.parse(r.stdout) as { valid: boolean; errors: { path: string }[] }
      expect(v).toMatchObject({ valid: false, errors: [{ path: '/nodes/sh/kind' }] })
    }
    const ok = await nerve(['graph', 'validate', gate], env)
    expect(ok.code, ok.stdout).toBe(0)
    expect(ok.stdout).toContain('valid (2 steps)')
  })

  it('lists approval with node kinds, as a kind only graph files make', async () => {
    const r = await nerve(['node', 'kinds'], env)
    expect(r.code, r.stderr).toBe(0)
    const [made, inFiles] = r.stdout.split('In graph files only (node create does not make these):')
    expect(made).toMatch(/^bash /m)
    expect(inFiles).toMatch(/^approval\n {2}a graph step that waits/m)
    const json = JSON.parse((await nerve(['node', 'kinds', '--json'], env)).stdout) as {
      graphFileKinds: { kind: string }[]
    }
    expect(json.graphFileKinds.map((k) => k.kind)).toContain('approval')
  })
})
