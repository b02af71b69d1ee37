/**
 * `nerve init` as a new user runs it in an empty directory: starter files
 * that name their schemas, satisfy them, and run at once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { problems, type Schema } from './jsonSchemaCheck.js'
import { nerve, testDir } from './run.js'

const dir = testDir('init')
const project = join(dir, 'project')
const env = { NERVE_HOME: join(dir, 'home'), HOME: join(dir, 'user') }
const json = (file: string): Schema => JSON.parse(readFileSync(file, 'utf8')) as Schema

describe('nerve init', () => {
  it('writes a starter graph and network that name their schemas, satisfy them, and run at once', async () => {
    mkdirSync(project)
    const r = await nerve(['init'], env, undefined, project)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Wrote hello\.graph\.json, hello\.network\.json/)
    for (const [file, format] of [
      ['hello.graph.json', 'graph'],
      ['hello.network.json', 'network'],
    ] as const) {
      const starter = json(join(project, file))
      const schemaFile = resolve(project, starter.$schema as string)
      expect(schemaFile).toBe(join(project, 'nerve-schemas', `${format}.schema.json`))
      const printed = await nerve(['schema', format])
      expect(json(schemaFile)).toEqual(JSON.parse(printed.stdout))
      expect(problems(json(schemaFile), starter)).toEqual([])
    }
    const graph = await nerve(['graph', 'run', 'hello.graph.json'], env, undefined, project)
    expect(graph.code, graph.stdout + graph.stderr).toBe(0)
    expect(graph.stdout).toMatch(/^ {2}answer │ echo: Say hello to Nerve$/m)
    expect(graph.stdout).toMatch(/^run \S+ completed$/m)
    const network = await nerve(['network', 'run', 'hello.network.json'], env, undefined, project)
    expect(network.code, network.stdout + network.stderr).toBe(0)
    expect(network.stdout).toMatch(/^message writer → reviewer: Queues hold each message/m)
    expect(network.stderr).toMatch(/^network hello-team done: \d+ envelopes$/m)
  })

  it('leaves files already there alone, unless --force', async () => {
    writeFileSync(join(project, 'hello.graph.json'), '{"mine": true}\n')
    const again = await nerve(['init'], env, undefined, project)
    expect(again.code).toBe(4)
    expect(again.stderr).toMatch(
      /^error: FileExists at \S+hello\.graph\.json: hello\.graph\.json, /,
    )
    expect(readFileSync(join(project, 'hello.graph.json'), 'utf8')).toBe('{"mine": true}\n')
    const forced = await nerve(['init', '--force'], env, undefined, project)
    expect(forced.code, forced.stderr).toBe(0)
    expect(json(join(project, 'hello.graph.json')).id).toBe('hello')
  })
})
