/**
 * The file formats, checkable: `nerve schema graph|network` prints the JSON
 * Schema made from the codecs that decode the files, the committed
 * `schemas/` are that output, the examples name them in `$schema` and
 * satisfy them, and what the schema refuses the decoder refuses too — with
 * a did-you-mean.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeKinds } from '../../src/node/index.js'
import { problems, type Schema } from './jsonSchemaCheck.js'
import { ensureBuilt, nerve, root } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-schema-'))
beforeAll(() => {
  ensureBuilt()
}, 180_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const json = (file: string): Schema => JSON.parse(readFileSync(file, 'utf8')) as Schema

describe('nerve schema', () => {
  it('prints the schemas committed in schemas/, one per format', async () => {
    for (const format of ['graph', 'network']) {
      const r = await nerve(['schema', format])
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual(json(join(root, `schemas/${format}.schema.json`)))
    }
    const bad = await nerve(['schema', 'pipeline'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(
      /^error: UnknownFormat at pipeline: no format "pipeline": one of graph, network/,
    )
  })

  it('lists every step key and every built-in node kind with its options', () => {
    const graph = json(join(root, 'schemas/graph.schema.json')) as {
      properties: {
        steps: { items: { properties: object } }
        nodes: { additionalProperties: { anyOf: Schema[] } }
      }
    }
    expect(Object.keys(graph.properties.steps.items.properties)).toEqual([
      'id',
      'node',
      'nodeRef',
      'input',
      'dependsOn',
      'onError',
      'timeoutMs',
      'parser',
    ])
    const kinds = graph.properties.nodes.additionalProperties.anyOf.map(
      (s) => (s.properties as Record<string, Schema> | undefined)?.kind?.const,
    )
    expect(kinds).toEqual(expect.arrayContaining(['graph', ...nodeKinds.keys()]))
    const bash = graph.properties.nodes.additionalProperties.anyOf.find(
      (s) => ((s.properties as Record<string, Schema>).kind as Schema).const === 'bash',
    )!
    expect(Object.keys(bash.properties as object)).toContain('command')
  })

  it('is named by each example, which it accepts and the CLI runs', async () => {
    for (const [file, format] of [
      ['examples/fan-out.json', 'graph'],
      ['examples/release-check.json', 'graph'],
      ['examples/review.network.json', 'network'],
    ] as const) {
      const example = json(join(root, file))
      expect(resolve(dirname(join(root, file)), example.$schema as string)).toBe(
        join(root, `schemas/${format}.schema.json`),
      )
      expect(problems(json(join(root, `schemas/${format}.schema.json`)), example)).toEqual([])
    }
    const valid = await nerve(['graph', 'validate', 'examples/fan-out.json'])
    expect(valid.stdout).toBe('examples/fan-out.json: valid (6 steps)\n')
  })
})

describe('a key or kind that is not in the format', () => {
  it('is refused by schema and decoder alike, and the decoder says what was meant', async () => {
    const file = join(dir, 'after.json')
    const graph = {
      id: 'g',
      nodes: { sh: { kind: 'bash' } },
      steps: [
        { id: 'a', node: 'sh', input: 'echo a' },
        { id: 'b', node: 'sh', input: 'echo b', after: ['a'] },
      ],
    }
    writeFileSync(file, JSON.stringify(graph))
    expect(problems(json(join(root, 'schemas/graph.schema.json')), graph)).toEqual([
      '/steps/1/after: not allowed',
    ])
    const r = await nerve(['graph', 'validate', file])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe(`${file}/steps/1/after: is not a known key; did you mean "dependsOn"?\n`)
    const json1 = await nerve(['graph', 'validate', file, '--json'])
    expect((JSON.parse(json1.stdout) as { errors: unknown[] }).errors[0]).toMatchObject({
      _tag: 'UnknownKey',
      path: '/steps/1/after',
      hint: 'dependsOn',
    })
  })

  it('names the node kind a file most likely meant, and the option', async () => {
    const file = join(dir, 'kind.json')
    writeFileSync(
      file,
      JSON.stringify({
        id: 'g',
        nodes: { sh: { kind: 'shell' }, t: { kind: 'pty', comand: 'bash' } },
        steps: [
          { id: 'a', node: 'sh' },
          { id: 'b', node: 't' },
        ],
      }),
    )
    const r = await nerve(['graph', 'validate', file])
    expect(r.code).toBe(2)
    expect(r.stdout).toContain(
      `${file}/nodes/sh/kind: "shell" is not a node kind; did you mean "bash"?`,
    )
    expect(r.stdout).toContain(
      `${file}/nodes/t/comand: is not a known key; did you mean "command"?`,
    )
  })

  it('in a network file too', async () => {
    const file = join(dir, 'net.json')
    writeFileSync(file, JSON.stringify({ id: 'n', nodes: [{ id: 'a', rol: 'Coder' }] }))
    const r = await nerve(['network', 'show', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      `error: NetworkFileInvalid at /nodes/0/rol: ${file}/nodes/0/rol: is not a known key; did you mean "role"?\n`,
    )
  })
})

describe('docs/files.md', () => {
  it('names every key of both formats', () => {
    const keys = new Set<string>()
    const walk = (s: unknown): void => {
      if (typeof s !== 'object' || s === null) return
      if (Array.isArray(s)) {
        s.forEach(walk)
        return
      }
      const o = s as Record<string, unknown>
      if (typeof o.properties === 'object' && o.properties !== null) {
        for (const k of Object.keys(o.properties)) keys.add(k)
      }
      Object.values(o).forEach(walk)
    }
    walk(json(join(root, 'schemas/graph.schema.json')))
    walk(json(join(root, 'schemas/network.schema.json')))
    const doc = readFileSync(join(root, 'docs/files.md'), 'utf8')
    expect([...keys].filter((k) => !doc.includes(`\`${k}\``) && !doc.includes(`"${k}"`))).toEqual(
      [],
    )
  })
})
