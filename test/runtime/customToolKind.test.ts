import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  defaultInterpreters,
  graph,
  llm,
  llmInterpreter,
  makeNode,
  type Node,
  run,
  tool,
} from 'nerve-agents'
import { decodeGraph, type Interpreter, interpreters } from 'nerve-agents/core'
import { scriptedProvider, toolUse } from 'nerve-agents/testing'

/**
 * The user's own node kind, which neither the runtime nor the LLM
 * interpreter knows: a unit converter whose step answers its factor and
 * whose artifact is a tool converting with it.
 */
interface ConverterNode extends Node {
  readonly kind: 'converter'
  readonly from: string
  readonly to: string
  readonly factor: number
}

const converter = (id: string, from: string, to: string, factor: number): ConverterNode =>
  makeNode({ id, kind: 'converter', persistent: false, metadata: {}, from, to, factor })

const converterInterpreter = (): Interpreter<ConverterNode> & { made: string[] } => {
  const made: string[] = []
  return {
    kind: 'converter',
    made,
    execute: (node) => node.factor,
    materialize(node) {
      made.push(node.id)
      return tool(
        {
          name: `${node.from}_to_${node.to}`,
          description: `Converts ${node.from} to ${node.to}.`,
          input_schema: { type: 'object', properties: { value: { type: 'number' } } },
        },
        t.type({ value: t.number }),
        ({ value }) => Promise.resolve(String(value * node.factor)),
      )
    },
  }
}

const toolResults = (request: { messages: readonly { content: unknown }[] }): unknown[] =>
  request.messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => b.content)
      : [],
  )

describe('a node kind of the user’s own that materializes tools', () => {
  it('gives them to an agent linked to it, though neither the kernel nor the agent knows the kind', async () => {
    const conv = converterInterpreter()
    const model = scriptedProvider([
      [toolUse('km_to_mi', { value: 10 }), toolUse('kg_to_lb', { value: 2 })],
      'About 6.2 miles and 4.4 pounds.',
    ])
    const g = pipe(
      graph('g'),
      addStep({ id: 'km', node: converter('km', 'km', 'mi', 0.62) }),
      addStep({ id: 'kg', node: converter('kg', 'kg', 'lb', 2.2) }),
      addStep({
        id: 'agent',
        node: llm('agent'),
        input: 'Convert.',
        links: { tools: ['km', 'kg'] },
      }),
    )
    const r = await run(g, {
      interpreters: interpreters(
        ...defaultInterpreters.values(),
        llmInterpreter({ providers: model }),
        conv,
      ),
    })
    expect(r.results).toEqual({ km: 0.62, kg: 2.2, agent: 'About 6.2 miles and 4.4 pounds.' })
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['km_to_mi', 'kg_to_lb'])
    expect(toolResults(model.requests[1]!)).toEqual(['6.2', '4.4'])
    expect(conv.made.sort()).toEqual(['kg', 'km'])
  })

  it('works from a graph file too, where the kind is only a name', async () => {
    const decoded = decodeGraph({
      id: 'g',
      nodes: {
        km: { kind: 'converter', from: 'km', to: 'mi', factor: 0.62 },
        agent: { kind: 'llm' },
      },
      steps: [
        { id: 'km', node: 'km' },
        { id: 'agent', node: 'agent', input: 'How far is 5 km?' },
      ],
      edges: [{ from: 'km', to: 'agent', channel: 'link', port: 'tools' }],
    })
    if (E.isLeft(decoded)) throw new Error(JSON.stringify(decoded.left))
    const model = scriptedProvider([[toolUse('km_to_mi', { value: 5 })], '3.1 miles.'])
    const r = await run(decoded.right, {
      interpreters: interpreters(llmInterpreter({ providers: model }), converterInterpreter()),
    })
    expect(r.results.agent).toBe('3.1 miles.')
    expect(toolResults(model.requests[1]!)).toEqual(['3.1'])
  })

  it('needs no word about tools, agents or MCP in the kernel', () => {
    const dir = join(import.meta.dirname, '../../src/runtime')
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)],
      )
    // Its code, that is: a comment may say what a step is for.
    const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    const mentions = files(dir).filter((f) => /\b(tools?|llm|agent|mcp|toolset)\b/i.test(code(f)))
    expect(mentions).toEqual([])
  })
})
