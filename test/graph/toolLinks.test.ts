import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  fn,
  graph,
  type Graph,
  listSteps,
  llmInterpreter,
  run,
  tool,
  toolset,
} from 'nerve-agents'
import { decodeGraph, encodeGraph, interpreters, nodeRegistry } from 'nerve-agents/core'
import { scriptedProvider, toolUse } from 'nerve-agents/testing'

/** A file whose agent `coder` takes tools from the toolset `fs`, with `edges` added. */
const file = (edges: readonly Record<string, unknown>[], more: Record<string, unknown> = {}) => ({
  id: 'g',
  nodes: {
    fs: { kind: 'toolset', builtin: ['glob'], root: '.' },
    coder: { kind: 'llm', system: 'You code.' },
    sh: { kind: 'bash', command: 'true' },
    ...more,
  },
  steps: [
    { id: 'fs', node: 'fs' },
    { id: 'coder', node: 'coder', input: 'List the files.' },
    { id: 'sh', node: 'sh' },
    { id: 'mine', node: 'mine' },
  ],
  edges,
})

const nodes = nodeRegistry(fn('mine', () => 'mine'))
const decode = (u: unknown) => decodeGraph(u, { nodes })

describe('a graph file', () => {
  it('gives an agent tools with a link edge on the tools port, and the agent uses them', async () => {
    const decoded = decode(file([{ from: 'fs', to: 'coder', channel: 'link', port: 'tools' }]))
    if (E.isLeft(decoded)) throw new Error(JSON.stringify(decoded.left))
    const g: Graph = decoded.right
    expect(listSteps(g)[1]!.links).toEqual({ tools: ['fs'] })
    const model = scriptedProvider([[toolUse('glob', { pattern: 'package.json' })], 'found it'])
    const r = await run(g, {
      interpreters: interpreters(
        ...defaultInterpreters.values(),
        llmInterpreter({ providers: model }),
      ),
    })
    expect(r.results.coder).toBe('found it')
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['glob'])
    // Written back, the link is a handle: reading it again gives the same graph.
    expect(decode(JSON.parse(JSON.stringify(encodeGraph(g))))).toEqual(E.right(g))
  })

  it('fails fast, with the path, on a link to an unknown step', () => {
    expect(decode(file([{ from: 'nope', to: 'coder', channel: 'link', port: 'tools' }]))).toEqual(
      E.left([{ _tag: 'UnknownStep', path: '/edges/0/from', stepId: 'nope' }]),
    )
  })

  it('fails fast on tools from a node that materializes none', () => {
    expect(decode(file([{ from: 'sh', to: 'coder', channel: 'link', port: 'tools' }]))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/edges/0/from',
          reason: 'step "sh" is a bash node, which gives no tools',
        },
      ]),
    )
  })

  it('fails fast on a port the receiving node does not take', () => {
    expect(decode(file([{ from: 'fs', to: 'coder', channel: 'link', port: 'tool' }]))).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/edges/0/port',
          reason: 'a llm node takes no "tool" links (it takes: tools)',
        },
      ]),
    )
    // A kind that resolves no links ignores them, as the runtime does.
    expect(E.isRight(decode(file([{ from: 'fs', to: 'sh', channel: 'link', handle: 'x' }])))).toBe(
      true,
    )
  })

  it('fails on an edge with both handle and port, and on a flow edge with a port', () => {
    expect(
      decode(file([{ from: 'fs', to: 'coder', channel: 'link', port: 'tools', handle: 'tools' }])),
    ).toEqual(
      E.left([
        {
          _tag: 'InvalidValue',
          path: '/edges/0/port',
          reason: 'is another name for handle: give one of them',
        },
      ]),
    )
    expect(decode(file([{ from: 'fs', to: 'coder', channel: 'flow', port: 'tools' }]))).toEqual(
      E.left([{ _tag: 'InvalidValue', path: '/edges/0/port', reason: 'a flow edge has no port' }]),
    )
  })

  it('leaves links between kinds it does not know to their interpreters', () => {
    const ok = decode(
      file([
        { from: 'mine', to: 'coder', channel: 'link', port: 'tools' },
        { from: 'fs', to: 'mine', channel: 'link', port: 'anything' },
      ]),
    )
    expect(E.isRight(ok)).toBe(true)
  })

  it('takes an agent as the tool of another', () => {
    const ok = decode(
      file([{ from: 'helper', to: 'coder', channel: 'link', port: 'tools' }], {
        helper: { kind: 'llm', system: 'You help.' },
      }),
    )
    // `helper` is a node of the table but not a step: an edge joins steps.
    expect(ok).toEqual(E.left([{ _tag: 'UnknownStep', path: '/edges/0/from', stepId: 'helper' }]))
    const withStep = {
      ...file([{ from: 'helper', to: 'coder', channel: 'link', port: 'tools' }], {
        helper: { kind: 'llm', system: 'You help.' },
      }),
    }
    withStep.steps = [...withStep.steps, { id: 'helper', node: 'helper', input: null } as never]
    expect(E.isRight(decode(withStep))).toBe(true)
  })
})

describe('a toolset with tools written in code', () => {
  it('is written to a file as a reference, as code is, and read back from the registry', () => {
    const now = tool(
      { name: 'now', description: 'The time.', input_schema: { type: 'object' } },
      t.type({}),
      () => Promise.resolve('noon'),
    )
    const mine = toolset('mine', { tools: [now] })
    const g = pipe(graph('g'), addStep({ id: 's', node: mine }))
    const written = JSON.parse(JSON.stringify(encodeGraph(g))) as { nodes?: object }
    expect(written.nodes).toBeUndefined()
    expect(decodeGraph(written, { nodes: nodeRegistry(mine) })).toEqual(E.right(g))
  })
})
