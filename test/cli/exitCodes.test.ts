import fc from 'fast-check'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { errorCategories, taggedError } from '../../src/errors.js'
import { categoryOf, exitCodeOf, exitCodes } from '../../src/cli/exitCodes.js'
import { nerve, testDir } from './run.js'

const dir = testDir('exit')
/** A home with no daemon in it. */
const env = { NERVE_HOME: join(dir, 'home') }

const jsonError = (stdout: string): { tag: string; category: string } =>
  (JSON.parse(stdout.trim()) as { error: { tag: string; category: string } }).error

describe('the exit code table', () => {
  it('gives every category one code: 1 for failed and internal, 2 for input, distinct codes for the rest', () => {
    expect(Object.keys(exitCodes).sort()).toEqual([...errorCategories].sort())
    expect([exitCodes.failed, exitCodes.internal]).toEqual([1, 1])
    expect([exitCodes.invalidInput, exitCodes.invalidGraph]).toEqual([2, 2])
    const codes = Object.values(exitCodes)
    expect(codes.every((c) => Number.isInteger(c) && c >= 1 && c <= 125)).toBe(true)
  })

  it('gives an error the code of its category, whatever its tag (law)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Z][A-Za-z]{0,12}$/),
        fc.constantFrom(...errorCategories),
        (tag, category) => {
          const Made = taggedError(tag, category)
          const e = new Made('it went wrong')
          expect(categoryOf(e)).toBe(category)
          expect(exitCodeOf(e)).toBe(exitCodes[category])
        },
      ),
    )
  })

  it('gives what has no category the internal code', () => {
    expect(exitCodeOf(new TypeError('bug'))).toBe(1)
    expect(exitCodeOf('a string')).toBe(1)
  })
})

describe('nerve exits with the code of its error’s category', () => {
  it('unavailable: no daemon to talk to is 6, with or without --json', async () => {
    const text = await nerve(['node', 'list'], env)
    expect(text.stderr).toMatch(/^error: DaemonNotRunning/)
    expect(text.code).toBe(exitCodes.unavailable)
    const json = await nerve(['node', 'list', '--json'], env)
    expect(jsonError(json.stdout)).toMatchObject({
      tag: 'DaemonNotRunning',
      category: 'unavailable',
    })
    expect(json.code).toBe(6)
  })

  it('notFound: a file that is not there is 3', async () => {
    const r = await nerve(['view', join(dir, 'missing.json')])
    expect(r.stderr).toMatch(/^error: FileUnreadable/)
    expect(r.code).toBe(exitCodes.notFound)
    const json = await nerve(['view', join(dir, 'missing.json'), '--json'])
    expect(jsonError(json.stdout).category).toBe('notFound')
    expect(json.code).toBe(3)
  })

  it('invalidInput: a file that is no conversation says so, with its problems under the first line', async () => {
    const r = await nerve(['view', 'examples/fan-out.json'])
    expect(r.code).toBe(exitCodes.invalidInput)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe(
      "error: Invalid: examples/fan-out.json is not a conversation (Nerve or nano-agent JSON) or a run's trace: invalid input:",
    )
    expect(lines).toContain('  at /head_ids: expected Array<VertexId>, found nothing')
  })

  it('conflict: init over files already there is 4', async () => {
    const project = join(dir, 'project')
    mkdirSync(project, { recursive: true })
    expect((await nerve(['init'], env, undefined, project)).code).toBe(0)
    const again = await nerve(['init'], env, undefined, project)
    expect(again.stderr).toMatch(/^error: FileExists/)
    expect(again.code).toBe(exitCodes.conflict)
  })

  it('invalidInput and invalidGraph: a bad flag, a command line commander refuses, a bad graph file are 2', async () => {
    const flag = await nerve(['schema', 'pipeline', '--json'])
    expect(jsonError(flag.stdout)).toMatchObject({ tag: 'UnknownFormat', category: 'invalidInput' })
    expect(flag.code).toBe(2)
    const usage = await nerve(['frobnicate', '--json'])
    expect(jsonError(usage.stdout)).toMatchObject({ tag: 'UsageError', category: 'invalidInput' })
    expect(usage.code).toBe(2)
    const bad = join(dir, 'bad.graph.json')
    writeFileSync(bad, JSON.stringify({ id: 'g', steps: [{ id: 'a', node: 'nowhere' }] }))
    const graph = await nerve(['graph', 'run', bad])
    expect(graph.stderr).toMatch(/^error: GraphFileInvalid/)
    expect(graph.code).toBe(exitCodes.invalidGraph)
  })
})
