import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/errors.js'
import { addStep, listSteps } from '../../src/graph/build.js'
import { decodeGraph } from '../../src/graph/decodeGraph.js'
import { encodeGraph } from '../../src/graph/encodeGraph.js'
import { fail, fallback, retry, skip, type ErrorPolicy } from '../../src/graph/ErrorPolicy.js'
import { graph, isGraph, type Graph } from '../../src/graph/Graph.js'
import type { StepSpec } from '../../src/graph/Step.js'
import { nodeRegistry } from '../../src/node/NodeRegistry.js'
import { fn } from '../../src/node/FunctionNode.js'
import { makeNode, type Node } from '../../src/node/Node.js'

const f0 = fn('f0', () => 0)
const f1 = fn('f1', () => 1)
const registry = nodeRegistry(f0, f1)
const bash = makeNode({ id: 'sh', kind: 'bash', persistent: false, metadata: {}, command: 'ls' })
const pty = makeNode({
  id: 'term',
  kind: 'pty',
  persistent: true,
  metadata: { owner: 'me' },
  command: 'bash',
  env: { A: '1' },
})

describe('encodeGraph', () => {
  it('describes nodes without code, refers to function nodes and writes links as edges', () => {
    const sub = pipe(graph('sub', { maxParallel: 2 }), addStep({ id: 'x', node: f0 }))
    const g = pipe(
      graph('g', { metadata: { v: 1 } }),
      addStep({ id: 'a', node: pty, input: [1], timeoutMs: 5, parser: 'json' }),
      addStep({ id: 'b', node: sub, dependsOn: ['a'], onError: skip('none') }),
      addStep({ id: 'c', nodeRef: 'writer', links: { docs: ['a', 'b'] }, onError: fallback(bash) }),
    )
    expect(encodeGraph(g)).toEqual({
      id: 'g',
      metadata: { v: 1 },
      nodes: {
        term: {
          kind: 'pty',
          persistent: true,
          metadata: { owner: 'me' },
          command: 'bash',
          env: { A: '1' },
        },
        sub: { kind: 'graph', maxParallel: 2, steps: [{ id: 'x', node: 'f0' }] },
        sh: { kind: 'bash', command: 'ls' },
      },
      steps: [
        { id: 'a', node: 'term', input: [1], timeoutMs: 5, parser: 'json' },
        { id: 'b', node: 'sub', dependsOn: ['a'], onError: { type: 'skip', value: 'none' } },
        { id: 'c', nodeRef: 'writer', onError: { type: 'fallback', node: 'sh' } },
      ],
      edges: [
        { from: 'a', to: 'c', channel: 'link', handle: 'docs' },
        { from: 'b', to: 'c', channel: 'link', handle: 'docs' },
      ],
    })
  })

  it('writes the same node once however many steps use it', () => {
    const g = pipe(graph('g'), addStep({ id: 'a', node: bash }), addStep({ id: 'b', node: bash }))
    expect(Object.keys(encodeGraph(g).nodes ?? {})).toEqual(['sh'])
  })

  it('throws a UsageError for what a file cannot hold', () => {
    const withFn = pipe(graph('g'), addStep({ id: 'a', node: f0, inputFn: () => 1 }))
    expect(() => encodeGraph(withFn)).toThrow(UsageError)
    expect(() => encodeGraph(withFn)).toThrow(/step "a" of graph "g" has an inputFn/)
    const clash = pipe(
      graph('g'),
      addStep({ id: 'a', node: f0 }),
      addStep({ id: 'b', node: fn('f0', () => 2) }),
    )
    expect(() => encodeGraph(clash)).toThrow(/two different nodes have the id "f0"/)
    const clash2 = pipe(
      graph('g'),
      addStep({ id: 'a', node: bash }),
      addStep({ id: 'b', node: { ...bash, command: 'pwd' } as Node }),
    )
    expect(() => encodeGraph(clash2)).toThrow(/two different nodes have the id "sh"/)
    expect(() => encodeGraph(f0 as never)).toThrow(/expects a Graph/)
  })
})

/** JSON as JSON.parse gives it (no -0, no undefined). */
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/)

const fileGraph: fc.Arbitrary<Graph> = fc
  .record({
    sub: fc.array(fc.constantFrom(f0, f1, bash), { minLength: 1, maxLength: 3 }),
    n: fc.integer({ min: 0, max: 8 }),
    maxParallel: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    metadata: fc.option(fc.dictionary(name, json, { maxKeys: 2 }), { nil: undefined }),
  })
  .chain(({ sub, n, maxParallel, metadata }) => {
    const nested = sub.reduce(
      (g, node, i) => addStep({ id: `x${i}`, node, dependsOn: i > 0 ? [`x${i - 1}`] : [] })(g),
      graph('nested'),
    )
    const pool: readonly Node[] = [f0, f1, bash, pty, nested]
    const policy: fc.Arbitrary<ErrorPolicy> = fc.oneof(
      fc.constant(fail),
      json.map(skip),
      fc.constantFrom(...pool).map(fallback),
      fc
        .record({
          count: fc.nat(5),
          delayMs: fc.nat(1000),
          backoff: fc.integer({ min: 1, max: 4 }),
          maxDelayMs: fc.option(fc.nat(5000), { nil: undefined }),
          jitter: fc.constantFrom(0, 0.25, 1),
          then: fc.oneof(fc.constant(fail), json.map(skip), fc.constantFrom(...pool).map(fallback)),
        })
        .map((o) => retry(o)),
    )
    const step = (i: number): fc.Arbitrary<StepSpec> =>
      fc
        .record({
          target: fc.oneof(
            fc.constantFrom(...pool).map((node) => ({ node })),
            name.map((nodeRef) => ({ nodeRef })),
          ),
          input: fc.option(json, { nil: undefined }),
          dependsOn:
            i === 0 ? fc.constant<number[]>([]) : fc.uniqueArray(fc.nat(i - 1), { maxLength: 3 }),
          onError: policy,
          timeoutMs: fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: undefined }),
          parser: fc.option(name, { nil: undefined }),
          links: fc.dictionary(
            name,
            fc
              .uniqueArray(fc.nat(Math.max(0, n - 1)), { maxLength: 3 })
              .map((ts) => ts.filter((t) => t !== i).map((t) => `s${t}`)),
            { maxKeys: 2 },
          ),
        })
        .map(
          (s) =>
            ({
              id: `s${i}`,
              ...s.target,
              ...(s.input !== undefined && { input: s.input }),
              dependsOn: s.dependsOn.map((d) => `s${d}`),
              onError: s.onError,
              ...(s.timeoutMs !== undefined && { timeoutMs: s.timeoutMs }),
              ...(s.parser !== undefined && { parser: s.parser }),
              links: Object.fromEntries(Object.entries(s.links).filter(([, ts]) => ts.length > 0)),
            }) as StepSpec,
        )
    return fc.tuple(...Array.from({ length: n }, (_, i) => step(i))).map((steps) =>
      steps.reduce(
        (g, s) => addStep(s)(g),
        graph('top', {
          ...(maxParallel !== undefined && { maxParallel }),
          ...(metadata !== undefined && { metadata }),
        }),
      ),
    )
  })

describe('graph codec', () => {
  it('round trip: decode(JSON of encode(g)) is g again (law)', () => {
    fc.assert(
      fc.property(fileGraph, (g) => {
        const file = encodeGraph(g)
        const decoded = decodeGraph(JSON.parse(JSON.stringify(file)), { nodes: registry })
        if (E.isLeft(decoded)) throw new Error(JSON.stringify(decoded.left))
        const back = decoded.right
        expect(encodeGraph(back)).toEqual(file)
        expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(g)))
        // Function nodes come back as the very nodes of the registry.
        listSteps(back).forEach((s, i) => {
          const original = listSteps(g)[i]!.node
          if (original === f0 || original === f1) expect(s.node).toBe(original)
          if (isGraph(original)) expect(isGraph(s.node)).toBe(true)
        })
      }),
    )
  })
})
