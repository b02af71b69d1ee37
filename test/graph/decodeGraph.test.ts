import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { listSteps } from '../../src/graph/build.js'
import { executionOrder } from '../../src/graph/compile.js'
import { decodeGraph, graphCodec } from '../../src/graph/decodeGraph.js'
import { isGraph, type Graph } from '../../src/graph/Graph.js'
import { showGraphFileError, type GraphFileError } from '../../src/graph/GraphFileError.js'
import { nodeRegistry } from '../../src/node/NodeRegistry.js'
import { fn } from '../../src/node/FunctionNode.js'

const echo = fn('echo', (ctx) => ctx.input)
const nodes = nodeRegistry(echo)
const decode = (u: unknown) => decodeGraph(u, { nodes })
const errorsOf = (u: unknown): readonly GraphFileError[] => {
  const r = decode(u)
  return E.isLeft(r) ? r.left : []
}
const ok = (u: unknown): Graph => {
  const r = decode(u)
  if (E.isLeft(r)) throw new Error(r.left.map(showGraphFileError).join('\n'))
  return r.right
}
const step = (id: string, more: Record<string, unknown> = {}) => ({ id, node: 'echo', ...more })

describe('decodeGraph reads', () => {
  it('steps with function nodes from the registry and dependencies from dependsOn and flow edges', () => {
    const g = ok({
      id: 'g',
      steps: [step('c', { dependsOn: ['b'] }), step('b'), step('a')],
      edges: [{ from: 'a', to: 'b', channel: 'flow' }],
    })
    expect(listSteps(g)[0]!.node).toBe(echo)
    expect(listSteps(g).map((s) => s.dependsOn)).toEqual([['b'], ['a'], []])
    expect(executionOrder(g)).toEqual(E.right(['a', 'b', 'c']))
  })

  it('links from link edges, grouped by handle', () => {
    const g = ok({
      id: 'g',
      steps: [step('a'), step('b'), step('c')],
      edges: [
        { from: 'a', to: 'c', channel: 'link', handle: 'docs' },
        { from: 'b', to: 'c', channel: 'link', handle: 'docs' },
        { from: 'a', to: 'b', channel: 'link', handle: 'src' },
      ],
    })
    expect(listSteps(g).map((s) => s.links)).toEqual([{}, { src: ['a'] }, { docs: ['a', 'b'] }])
  })

  it('nodes described in the file, which win over the registry', () => {
    const g = ok({
      id: 'g',
      nodes: {
        echo: { kind: 'bash', command: 'echo', persistent: false, metadata: { a: 1 } },
        sub: { kind: 'graph', maxParallel: 2, steps: [{ id: 'x', node: 'echo' }] },
      },
      steps: [step('a'), { id: 'b', node: 'sub' }, { id: 'c', nodeRef: 'writer' }],
    })
    const [a, b, c] = listSteps(g)
    expect(a!.node).toEqual({
      id: 'echo',
      kind: 'bash',
      persistent: false,
      metadata: { a: 1 },
      command: 'echo',
    })
    expect(isGraph(b!.node) && b!.node.maxParallel).toBe(2)
    expect(isGraph(b!.node) && listSteps(b!.node)[0]!.node).toBe(a!.node)
    expect(c!.nodeRef).toBe('writer')
  })

  it('policies, inputs, timeouts, parsers and graph options', () => {
    const g = ok({
      id: 'g',
      maxParallel: 3,
      metadata: { owner: 'me' },
      steps: [
        step('a', {
          input: { q: [1] },
          timeoutMs: 10,
          parser: 'json',
          onError: {
            type: 'retry',
            count: 2,
            delayMs: 5,
            backoff: 2,
            maxDelayMs: 9,
            jitter: 0.5,
            then: { type: 'fallback', node: 'echo' },
          },
        }),
        step('b', { onError: { type: 'skip', value: null } }),
        step('c', { onError: { type: 'retry', count: 1 } }),
      ],
    })
    expect(g.maxParallel).toBe(3)
    expect(g.metadata).toEqual({ owner: 'me' })
    const [a, b, c] = listSteps(g)
    expect(a).toMatchObject({ input: { q: [1] }, timeoutMs: 10, parser: 'json' })
    expect(a!.onError).toEqual({
      _tag: 'retry',
      count: 2,
      delayMs: 5,
      backoff: 2,
      maxDelayMs: 9,
      jitter: 0.5,
      then: { _tag: 'fallback', node: echo },
    })
    expect(b!.onError).toEqual({ _tag: 'skip', value: null })
    expect(c!.onError).toEqual({
      _tag: 'retry',
      count: 1,
      delayMs: 0,
      backoff: 1,
      jitter: 0,
      then: { _tag: 'fail' },
    })
  })
})

describe('decodeGraph fails fast with a JSON path for', () => {
  it.each<[string, unknown, GraphFileError[]]>([
    [
      'a file that is not an object',
      3,
      [{ _tag: 'WrongType', path: '', expected: 'GraphFile', actual: 3 }],
    ],
    ['a missing id', { steps: [] }, [{ _tag: 'MissingKey', path: '/id' }]],
    [
      'steps of the wrong type',
      { id: 'g', steps: {} },
      [{ _tag: 'WrongType', path: '/steps', expected: 'Array<Step>', actual: {} }],
    ],
    [
      'an unknown top-level key, with the key it most likely meant',
      { id: 'g', steps: [], stepz: [] },
      [{ _tag: 'UnknownKey', path: '/stepz', hint: 'steps' }],
    ],
    [
      'an unknown step key, with the key it most likely meant',
      { id: 'g', steps: [step('a', { dependOn: ['b'] })] },
      [{ _tag: 'UnknownKey', path: '/steps/0/dependOn', hint: 'dependsOn' }],
    ],
    [
      'an unknown key close to none, without a hint',
      { id: 'g', steps: [step('a', { colour: 'red' })] },
      [{ _tag: 'UnknownKey', path: '/steps/0/colour' }],
    ],
    [
      'a dependency of the wrong type',
      { id: 'g', steps: [step('a', { dependsOn: ['b', 2] })] },
      [{ _tag: 'WrongType', path: '/steps/0/dependsOn/1', expected: 'string', actual: 2 }],
    ],
    [
      'an unknown channel',
      { id: 'g', steps: [step('a'), step('b')], edges: [{ from: 'a', to: 'b', channel: 'pipe' }] },
      [
        {
          _tag: 'WrongType',
          path: '/edges/0/channel',
          expected: '"flow" | "link"',
          actual: 'pipe',
        },
      ],
    ],
    [
      'a policy type it does not know',
      { id: 'g', steps: [step('a', { onError: { type: 'pray' } })] },
      [
        {
          _tag: 'WrongType',
          path: '/steps/0/onError/type',
          expected: '"fail" | "retry" | "skip" | "fallback"',
          actual: 'pray',
        },
      ],
    ],
    [
      'a missing channel',
      { id: 'g', steps: [step('a'), step('b')], edges: [{ from: 'a', to: 'b' }] },
      [{ _tag: 'MissingChannelMetadata', path: '/edges/0/channel', field: 'channel' }],
    ],
    [
      'a link without a handle',
      { id: 'g', steps: [step('a'), step('b')], edges: [{ from: 'a', to: 'b', channel: 'link' }] },
      [{ _tag: 'MissingChannelMetadata', path: '/edges/0/handle', field: 'handle' }],
    ],
    [
      'a flow with a handle',
      {
        id: 'g',
        steps: [step('a'), step('b')],
        edges: [{ from: 'a', to: 'b', channel: 'flow', handle: 'h' }],
      },
      [{ _tag: 'InvalidValue', path: '/edges/0/handle', reason: 'a flow edge has no handle' }],
    ],
    [
      'an unknown node reference',
      { id: 'g', steps: [step('a'), { id: 'b', node: 'ghost' }] },
      [{ _tag: 'UnknownNode', path: '/steps/1/node', ref: 'ghost' }],
    ],
    [
      'an unknown dependency',
      { id: 'g', steps: [step('a'), step('b'), step('c'), step('d', { dependsOn: ['x'] })] },
      [{ _tag: 'UnknownStep', path: '/steps/3/dependsOn/0', stepId: 'x' }],
    ],
    [
      'unknown edge ends',
      { id: 'g', steps: [step('a')], edges: [{ from: 'p', to: 'q', channel: 'flow' }] },
      [
        { _tag: 'UnknownStep', path: '/edges/0/from', stepId: 'p' },
        { _tag: 'UnknownStep', path: '/edges/0/to', stepId: 'q' },
      ],
    ],
    [
      'an unknown fallback node',
      { id: 'g', steps: [step('a', { onError: { type: 'fallback', node: 'ghost' } })] },
      [{ _tag: 'UnknownNode', path: '/steps/0/onError/node', ref: 'ghost' }],
    ],
    [
      'a duplicate step id',
      { id: 'g', steps: [step('a'), step('a')] },
      [{ _tag: 'DuplicateId', path: '/steps/1/id', id: 'a' }],
    ],
    [
      'a function node in the nodes table',
      { id: 'g', nodes: { f: { kind: 'function' } }, steps: [] },
      [{ _tag: 'FunctionNodeInFile', path: '/nodes/f/kind', id: 'f' }],
    ],
    [
      'a table node whose id is not its key',
      { id: 'g', nodes: { f: { kind: 'bash', id: 'g' } }, steps: [] },
      [{ _tag: 'InvalidValue', path: '/nodes/f/id', reason: 'differs from the key "f"' }],
    ],
    [
      'a table key that is not a name (escaped in the pointer)',
      { id: 'g', nodes: { 'a/b~': { kind: 'bash' } }, steps: [] },
      [
        {
          _tag: 'InvalidName',
          path: '/nodes/a~1b~0',
          name: 'a/b~',
          reason: expect.stringContaining('"/"') as string,
        },
      ],
    ],
    [
      'bad names',
      {
        id: ' ',
        steps: [{ id: '', nodeRef: 'a b', parser: '-p' }],
      },
      [
        { _tag: 'InvalidName', path: '/id', name: ' ', reason: 'is blank' },
        { _tag: 'InvalidName', path: '/steps/0/id', name: '', reason: 'is empty' },
        {
          _tag: 'InvalidName',
          path: '/steps/0/nodeRef',
          name: 'a b',
          reason: expect.any(String) as string,
        },
        {
          _tag: 'InvalidName',
          path: '/steps/0/parser',
          name: '-p',
          reason: 'starts with "-", not a letter or digit',
        },
      ],
    ],
    [
      'both node and nodeRef, and neither',
      { id: 'g', steps: [{ id: 'a', node: 'echo', nodeRef: 'x' }, { id: 'b' }] },
      [
        { _tag: 'InvalidValue', path: '/steps/0', reason: 'has both node and nodeRef' },
        { _tag: 'InvalidValue', path: '/steps/1', reason: 'needs node or nodeRef' },
      ],
    ],
    [
      'self-dependencies and repeated dependencies',
      {
        id: 'g',
        steps: [step('a', { dependsOn: ['a'] }), step('b', { dependsOn: ['a', 'a'] })],
        edges: [
          { from: 'a', to: 'b', channel: 'flow' },
          { from: 'b', to: 'b', channel: 'flow' },
        ],
      },
      [
        {
          _tag: 'InvalidValue',
          path: '/steps/0/dependsOn/0',
          reason: 'a step cannot depend on itself',
        },
        { _tag: 'InvalidValue', path: '/steps/1/dependsOn/1', reason: 'lists "a" twice' },
        { _tag: 'InvalidValue', path: '/edges/0', reason: 'repeats a dependency of "b"' },
        { _tag: 'InvalidValue', path: '/edges/1', reason: 'an edge cannot join a step to itself' },
      ],
    ],
    [
      'invalid policies',
      {
        id: 'g',
        steps: [
          step('a', { onError: { type: 'retry', jitter: 2, value: 1 } }),
          step('b', {
            onError: { type: 'retry', count: -1, backoff: 0.5, then: { type: 'fallback' } },
          }),
          step('c', { onError: { type: 'skip', node: 'echo' } }),
        ],
      },
      [
        {
          _tag: 'InvalidValue',
          path: '/steps/0/onError/value',
          reason: 'is not a field of a "retry" policy',
        },
        { _tag: 'MissingKey', path: '/steps/0/onError/count' },
        {
          _tag: 'InvalidValue',
          path: '/steps/1/onError/count',
          reason: 'must be an integer ≥ 0, got -1',
        },
        {
          _tag: 'InvalidValue',
          path: '/steps/1/onError/backoff',
          reason: 'must be a finite number ≥ 1, got 0.5',
        },
        { _tag: 'MissingKey', path: '/steps/1/onError/then/node' },
        {
          _tag: 'InvalidValue',
          path: '/steps/2/onError/node',
          reason: 'is not a field of a "skip" policy',
        },
      ],
    ],
    [
      'a bad timeout and maxParallel',
      { id: 'g', maxParallel: 0, steps: [step('a', { timeoutMs: -1 })] },
      [
        { _tag: 'InvalidValue', path: '/steps/0/timeoutMs', reason: 'must be a number > 0' },
        { _tag: 'InvalidValue', path: '/maxParallel', reason: 'must be a positive integer' },
      ],
    ],
    [
      'a cycle through dependsOn and edges',
      {
        id: 'g',
        steps: [step('a', { dependsOn: ['c'] }), step('b'), step('c')],
        edges: [
          { from: 'a', to: 'b', channel: 'flow' },
          { from: 'b', to: 'c', channel: 'flow' },
        ],
      },
      [{ _tag: 'CycleInFile', path: '/steps/0', cycle: ['a', 'c', 'b', 'a'] }],
    ],
    [
      'a cycle inside a nested graph',
      {
        id: 'g',
        nodes: {
          sub: {
            kind: 'graph',
            steps: [step('x', { dependsOn: ['y'] }), step('y', { dependsOn: ['x'] })],
          },
        },
        steps: [{ id: 'a', node: 'sub' }],
      },
      [{ _tag: 'CycleInFile', path: '/nodes/sub/steps/0', cycle: ['x', 'y', 'x'] }],
    ],
    [
      'nested graphs that contain each other',
      {
        id: 'g',
        nodes: {
          p: { kind: 'graph', steps: [{ id: 'x', node: 'q' }] },
          q: {
            kind: 'graph',
            steps: [{ id: 'y', node: 'echo', onError: { type: 'fallback', node: 'p' } }],
          },
          r: { kind: 'graph', steps: [{ id: 'z', node: 'r' }] },
        },
        steps: [{ id: 'a', node: 'p' }],
      },
      [
        { _tag: 'CycleInFile', path: '/nodes/p', cycle: ['p', 'q', 'p'] },
        { _tag: 'CycleInFile', path: '/nodes/r', cycle: ['r', 'r'] },
      ],
    ],
  ])('%s', (_, file, errors) => {
    expect(errorsOf(file)).toEqual(errors)
  })

  it('checks the shape before anything else', () => {
    const errors = errorsOf({ id: 'g', steps: [{ id: 'a', node: 'ghost', extra: 1 }] })
    expect(errors).toEqual([{ _tag: 'UnknownKey', path: '/steps/0/extra' }])
  })

  it('renders each error with its path', () => {
    const lines = errorsOf({
      id: 'g',
      steps: [step('a', { dependsOn: ['x'] }), { id: 'b', node: 'ghost' }],
      edges: [{ from: 'a', to: 'b' }],
    }).map(showGraphFileError)
    expect(lines).toEqual([
      '/steps/0/dependsOn/0: "x" is not a step of this graph',
      '/steps/1/node: no node "ghost" in the file\'s nodes or the registry',
      '/edges/0/channel: an edge needs a channel, "flow" or "link"',
    ])
  })
})

describe('graphCodec', () => {
  it('decodes and encodes like decodeGraph and encodeGraph', () => {
    const codec = graphCodec({ nodes })
    const file = { id: 'g', steps: [{ id: 'a', node: 'echo' }] }
    const g = codec.decode(file)
    expect(E.isRight(g) && codec.is(g.right)).toBe(true)
    expect(E.isRight(g) && codec.encode(g.right)).toEqual(file)
    const bad = codec.decode({ id: 'g', steps: [{ id: 'a', node: 'zz' }] })
    expect(E.isLeft(bad) && bad.left.map((e) => e.message)).toEqual([
      '/steps/0/node: no node "zz" in the file\'s nodes or the registry',
    ])
  })
})
