import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { addStep, listSteps } from '../../src/graph/build.js'
import { decodeGraph } from '../../src/graph/decodeGraph.js'
import { encodeGraph } from '../../src/graph/encodeGraph.js'
import { graph } from '../../src/graph/Graph.js'
import { nodeKinds } from '../../src/node/nodeKinds.js'

/** One option of a kind: values it accepts, and a value its codec must refuse. */
interface Field {
  readonly ok: fc.Arbitrary<unknown>
  readonly bad: unknown
}

const text = fc.stringMatching(/^[a-z][a-z0-9 ._-]{0,10}$/)
const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/)
const envOf = fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,5}$/), text, { maxKeys: 3 })
const uuid = fc.uuid({ version: 4 })
const ms = fc.integer({ min: 1, max: 100_000 })
const risk = fc.constantFrom('low', 'medium', 'high')
const common: Readonly<Record<string, Field>> = {
  metadata: { ok: fc.dictionary(word, fc.integer(), { maxKeys: 2 }), bad: 'meta' },
  timeoutMs: { ok: ms, bad: 0 },
}
const terminal: Readonly<Record<string, Field>> = {
  ...common,
  args: { ok: fc.array(text, { maxLength: 3 }), bad: [1] },
  cwd: { ok: text, bad: '' },
  env: { ok: envOf, bad: { A: 1 } },
  parser: { ok: word, bad: '' },
  quietMs: { ok: fc.nat({ max: 1000 }), bad: -1 },
}

/** Every built-in kind's options, field by field, with the fields a node must have. */
const KINDS: Readonly<Record<string, { fields: Record<string, Field>; required: string[] }>> = {
  bash: {
    fields: {
      ...common,
      command: { ok: text, bad: '  ' },
      cwd: { ok: text, bad: 3 },
      env: { ok: envOf, bad: { A: 1 } },
      allowFailure: { ok: fc.boolean(), bad: 'yes' },
      maxOutputBytes: { ok: fc.nat(), bad: 1.5 },
    },
    required: [],
  },
  pty: {
    fields: {
      ...terminal,
      command: { ok: text, bad: ' ' },
      cols: { ok: fc.integer({ min: 1, max: 10_000 }), bad: 0 },
      rows: { ok: fc.integer({ min: 1, max: 10_000 }), bad: 10_001 },
    },
    required: ['command'],
  },
  tmux: {
    fields: {
      ...terminal,
      command: { ok: text, bad: ' ' },
      socket: { ok: word, bad: 'a b' },
      socketPath: { ok: text, bad: '' },
      cols: { ok: fc.integer({ min: 1, max: 10_000 }), bad: 0 },
      rows: { ok: fc.integer({ min: 1, max: 10_000 }), bad: -2 },
    },
    required: [],
  },
  wezterm: {
    fields: {
      ...terminal,
      command: { ok: text, bad: ' ' },
      wezterm: { ok: text, bad: '' },
      scrollbackLines: { ok: fc.nat({ max: 10_000 }), bad: 2.5 },
    },
    required: [],
  },
  'claude-wezterm': {
    fields: {
      ...terminal,
      claude: { ok: text, bad: '' },
      sessionId: { ok: uuid, bad: 'not-a-uuid' },
      forkFrom: { ok: uuid, bad: 42 },
    },
    required: [],
  },
  llm: {
    fields: {
      metadata: common.metadata!,
      provider: { ok: word, bad: 'no spaces allowed' },
      model: { ok: text, bad: ' ' },
      system: { ok: text, bad: 7 },
      tools: { ok: fc.uniqueArray(word, { maxLength: 3 }), bad: ['a', 'a'] },
      maxToolRounds: { ok: fc.nat({ max: 50 }), bad: -1 },
      toolChoice: { ok: fc.constantFrom({ type: 'auto' }, { type: 'none' }), bad: { type: 'x' } },
      parallelToolCalls: { ok: fc.boolean(), bad: 1 },
      maxTokens: { ok: fc.nat({ max: 9999 }), bad: 0.5 },
      temperature: { ok: fc.double({ min: 0, max: 2, noNaN: true }), bad: -0.5 },
    },
    required: [],
  },
  toolset: {
    fields: {
      ...common,
      builtin: {
        ok: fc.uniqueArray(fc.constantFrom('bash', 'read', 'write', 'edit', 'glob', 'grep')),
        bad: ['rm'],
      },
      root: { ok: text, bad: '' },
      tools: { ok: fc.constant([]), bad: [1] },
      maxOutputBytes: { ok: fc.nat(), bad: 1.5 },
    },
    required: [],
  },
  'mcp-server': {
    fields: {
      ...common,
      command: { ok: text, bad: ' ' },
      args: { ok: fc.array(text, { maxLength: 3 }), bad: [1] },
      env: { ok: envOf, bad: { A: 1 } },
      cwd: { ok: text, bad: '' },
      only: { ok: fc.array(word, { maxLength: 3 }), bad: [''] },
      risk: {
        ok: fc.oneof(risk, fc.dictionary(word, risk, { maxKeys: 3 })),
        bad: { search: 'huge' },
      },
    },
    required: ['command'],
  },
}

const optionsOf = (kind: string): fc.Arbitrary<Record<string, unknown>> => {
  const { fields, required } = KINDS[kind]!
  const arbs = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.ok]))
  return fc.record(arbs, { requiredKeys: required })
}

/** A one-step graph file whose node `n` is the node described by `options`. */
const fileOf = (kind: string, options: Record<string, unknown>) => ({
  id: 'g',
  nodes: { n: { kind, ...options } },
  steps: [{ id: 's', node: 'n' }],
})

describe('node kinds', () => {
  it('cover every kind a graph file may describe', () => {
    expect([...nodeKinds.keys()].sort()).toEqual(Object.keys(KINDS).sort())
  })

  for (const kind of Object.keys(KINDS)) {
    it(`build a ${kind} node from options its codec accepts, which a graph file gives back equal (law)`, () => {
      const known = nodeKinds.get(kind)!
      fc.assert(
        fc.property(optionsOf(kind), (options) => {
          expect(E.isRight(known.options.decode(options))).toBe(true)
          const node = known.build('n', options)
          expect([node.kind, node.persistent]).toEqual([kind, known.persistent])
          const file: unknown = JSON.parse(
            JSON.stringify(encodeGraph(pipe(graph('g'), addStep({ id: 's', node })))),
          )
          const decoded = decodeGraph(file)
          if (E.isLeft(decoded)) throw new Error(JSON.stringify(decoded.left))
          expect(listSteps(decoded.right)[0]!.node).toEqual(node)
        }),
        { numRuns: 60 },
      )
    })

    it(`fail a ${kind} node of a graph file with a corrupted option at that option's path`, () => {
      const { fields } = KINDS[kind]!
      fc.assert(
        fc.property(optionsOf(kind), fc.constantFrom(...Object.keys(fields)), (options, field) => {
          const corrupted = { ...options, [field]: fields[field]!.bad }
          // The rule between resume and the session ids is not what this property is about.
          const decoded = decodeGraph(fileOf(kind, corrupted))
          expect(E.isLeft(decoded)).toBe(true)
          const paths = E.isLeft(decoded) ? decoded.left.map((e) => e.path) : []
          expect(paths.length).toBeGreaterThan(0)
          expect(paths.every((p) => p.startsWith(`/nodes/n/${field}`))).toBe(true)
        }),
        { numRuns: 60 },
      )
    })
  }

  it('fail an mcp-server node without a transport or with both, or with a bad risk, at its path', () => {
    const reason = 'give either command (stdio) or url (Streamable HTTP), one of them'
    expect(decodeGraph(fileOf('mcp-server', {}))).toEqual(
      E.left([{ _tag: 'InvalidValue', path: '/nodes/n', reason }]),
    )
    expect(
      decodeGraph(fileOf('mcp-server', { command: 'srv', url: 'http://127.0.0.1:1/mcp' })),
    ).toEqual(E.left([{ _tag: 'InvalidValue', path: '/nodes/n', reason }]))
    expect(decodeGraph(fileOf('mcp-server', { command: 'srv', risk: { drop: 'severe' } }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n/risk/drop',
          reason: 'must be "low", "medium" or "high", got "severe"',
        },
      ]),
    )
    expect(decodeGraph(fileOf('mcp-server', { command: 'srv', risk: ['low'] }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n/risk',
          reason: 'must be "low", "medium" or "high", or an object of those by tool name',
        },
      ]),
    )
    expect(decodeGraph(fileOf('mcp-server', { url: 'ftp://x' }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n/url',
          reason: 'must be an http(s) URL, got "ftp://x"',
        },
      ]),
    )
  })

  it('fail a graph file node with a bad cols, a missing command or an unknown key, each at its path', () => {
    expect(decodeGraph(fileOf('pty', { command: 'bash', cols: 0 }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n/cols',
          reason: 'must be an integer from 1 to 10000, got 0',
        },
      ]),
    )
    expect(decodeGraph(fileOf('pty', { cols: 80 }))).toEqual(
      E.left([{ _tag: 'MissingKey', path: '/nodes/n/command' }]),
    )
    expect(decodeGraph(fileOf('bash', { command: 'ls', shell: 'zsh' }))).toEqual(
      E.left([{ _tag: 'UnknownKey', path: '/nodes/n/shell' }]),
    )
    expect(decodeGraph(fileOf('bash', { command: 'ls', persistent: true }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n/persistent',
          reason: 'a bash node is not persistent',
        },
      ]),
    )
    expect(decodeGraph(fileOf('tmux', { paneId: '%3', command: 'bash' }))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/nodes/n',
          reason: 'give either paneId (attach) or command (spawn), not both',
        },
      ]),
    )
  })
})
