import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  ancestors,
  type Conversation,
  defaultInterpreters,
  fn,
  graph,
  llm,
  llmInterpreter,
  type Node,
  run,
  tool,
  toolDefinitions,
  toolset,
} from 'nerve-agents'
import { type Interpreter, interpreters, type StateCell } from 'nerve-agents/core'
import { toolsetTools } from 'nerve-agents/interpreters'
import { scriptedProvider, toolUse } from 'nerve-agents/testing'
import { tempDir } from './tools/fixture.js'

const shout = tool(
  {
    name: 'shout',
    description: 'Says it louder.',
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  t.type({ text: t.string }),
  ({ text }) => Promise.resolve(text.toUpperCase()),
)

const kit = (...more: Interpreter[]) => interpreters(...defaultInterpreters.values(), ...more)

/** The text of the tool results the model was shown in a request. */
const resultsIn = (request: { messages: readonly { content: unknown }[] }): string[] =>
  request.messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)))
      : [],
  )

describe('toolset nodes', () => {
  it('hold a subset of the built-in tools, in a root, and tools given in code', () => {
    expect(toolset('all').builtin).toEqual(['bash', 'read', 'write', 'edit', 'glob', 'grep'])
    expect(toolset('mine', { tools: [shout] }).builtin).toEqual([])
    const fs = toolset('fs', { builtin: ['read', 'grep'], root: '/srv', tools: [shout] })
    expect(toolsetTools(fs).map((x) => x.definition.name)).toEqual(['read', 'grep', 'shout'])
    expect(Object.isFrozen(fs)).toBe(true)
    expect(() => toolset('x', { builtin: ['read', 'read'] })).toThrow(/each tool once/)
    expect(() =>
      toolset('x', {
        builtin: ['bash'],
        tools: [{ ...shout, definition: { ...shout.definition, name: 'bash' } }],
      }),
    ).toThrow(/two tools are named "bash"/)
    expect(() => toolset('x', { tools: [{ name: 'nope' } as never] })).toThrow(
      /tools must be tools/,
    )
  })

  it('give an agent linked to them their tools, which run in the toolset’s root', async () => {
    const root = await tempDir()
    await writeFile(join(root, 'notes.txt'), 'the key is 42\n')
    const model = scriptedProvider([
      [toolUse('read', { path: 'notes.txt' }), toolUse('shout', { text: 'hi' })],
      'The key is 42.',
    ])
    const g = pipe(
      graph('g'),
      addStep({
        id: 'fs',
        node: toolset('fs', { builtin: ['read', 'glob'], root, tools: [shout] }),
      }),
      addStep({
        id: 'coder',
        node: llm('coder'),
        input: 'What is the key?',
        links: { tools: ['fs'] },
      }),
    )
    const r = await run(g, { interpreters: kit(llmInterpreter({ providers: model })) })
    expect(r.results.fs).toEqual(['read', 'glob', 'shout'])
    expect(r.results.coder).toBe('The key is 42.')
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['read', 'glob', 'shout'])
    const results = resultsIn(model.requests[1]!)
    expect(results[0]).toMatch(/the key is 42/)
    expect(results[1]).toBe('HI')
    expect(r.metrics.materializations).toBe(1)
  })

  it('add to the tools an agent names from its interpreter, and are made once per run', async () => {
    const model = scriptedProvider(['one', 'two'])
    const g = pipe(
      graph('g'),
      addStep({ id: 'fs', node: toolset('fs', { builtin: ['glob'], root: '.' }) }),
      addStep({
        id: 'a',
        node: llm('a', { tools: ['shout'] }),
        input: 'x',
        links: { tools: ['fs'] },
      }),
      addStep({ id: 'b', node: llm('b'), input: 'y', dependsOn: ['a'], links: { tools: ['fs'] } }),
    )
    const r = await run(g, {
      interpreters: kit(llmInterpreter({ providers: model, tools: [shout] })),
    })
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['shout', 'glob'])
    expect(model.requests[1]!.tools.map((d) => d.name)).toEqual(['glob'])
    expect(r.metrics.materializations).toBe(1)
    expect(r.metrics.materializeCacheHits).toBe(1)
  })

  it('make a step linked under tools to something else fail with the step’s path', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'n', node: fn('n', () => 42) }),
      addStep({ id: 'coder', node: llm('coder'), input: 'x', links: { tools: ['n'] } }),
    )
    await expect(
      run(g, { interpreters: kit(llmInterpreter({ providers: scriptedProvider(['no']) })) }),
    ).rejects.toMatchObject({
      _tag: 'StepFailed',
      stepId: 'coder',
      cause: { _tag: 'NotTools', path: ['coder'], index: 0, got: 'number' },
    })
  })
})

describe('an agent linked as a tool of another', () => {
  it('is a sub-agent with its own tools, whose usage rolls up into the run', async () => {
    const lead = scriptedProvider(
      [
        [toolUse('helper', { task: 'shout hello' })],
        { content: 'Done: HELLO', usage: { input_tokens: 10 } },
      ],
      { usage: { input_tokens: 10 } },
    )
    const helperModel = scriptedProvider([[toolUse('shout', { text: 'hello' })], 'HELLO'], {
      usage: { input_tokens: 100 },
    })
    const g = pipe(
      graph('g'),
      addStep({ id: 'words', node: toolset('words', { tools: [shout] }) }),
      addStep({
        id: 'helper',
        node: llm('helper', { provider: 'small', metadata: { description: 'Shouts things.' } }),
        input: null,
        links: { tools: ['words'] },
      }),
      addStep({
        id: 'lead',
        node: llm('lead'),
        input: 'Shout hello.',
        links: { tools: ['helper'] },
      }),
    )
    const r = await run(g, {
      interpreters: kit(llmInterpreter({ providers: { default: lead, small: helperModel } })),
    })
    expect(r.results.lead).toBe('Done: HELLO')
    expect(r.results.helper).toBeNull()
    expect(lead.requests[0]!.tools).toEqual([
      expect.objectContaining({ name: 'helper', description: 'Shouts things.' }),
    ])
    expect(helperModel.requests[0]!.tools.map((d) => d.name)).toEqual(['shout'])
    expect(resultsIn(helperModel.requests[1]!)).toEqual(['HELLO'])
    expect(resultsIn(lead.requests[1]!)).toEqual(['HELLO'])
    expect(r.metrics.usage.tokens).toBe(220)
    expect(r.metrics.usage.apiCalls).toBe(4)
  })
})

describe('tools that arrive by link', () => {
  it('are offered by one tool-definitions entry, not one per run, when a later run links equal ones', async () => {
    // A kind whose tools are new objects each run, as an MCP server listed again gives them.
    const fresh: Interpreter = {
      kind: 'fresh',
      execute: () => null,
      materialize: () => [{ ...shout, definition: { ...shout.definition } }],
    }
    const model = scriptedProvider(['one', 'two', 'three'])
    const session = nodeRegistryWithCells(llm('agent'))
    const g = (input: string) =>
      pipe(
        graph('g'),
        addStep({ id: 'src', node: { id: 'src', kind: 'fresh', persistent: false, metadata: {} } }),
        addStep({ id: 'agent', node: llm('agent'), input, links: { tools: ['src'] } }),
      )
    const kit2 = kit(llmInterpreter({ providers: model }), fresh)
    await run(g('a'), { interpreters: kit2, session })
    await run(g('b'), { interpreters: kit2, session })
    const head = (session.values.get('agent') as { head: Conversation }).head
    const entries = ancestors(head).filter((v) => v.data.type === 'tool_definitions')
    // The node's own tools (none) when it started, then the linked ones, once.
    expect(entries.map((v) => toolDefinitions(v).map((d) => d.name))).toEqual([[], ['shout']])
    expect(model.requests[1]!.tools.map((d) => d.name)).toEqual(['shout'])
  })
})

/** A registry with cells, as a session is. */
const nodeRegistryWithCells = (...nodes: Node[]) => {
  const values = new Map<string, unknown>()
  return {
    values,
    get: (id: string) => nodes.find((n) => n.id === id),
    cell: (id: string): StateCell => ({ get: () => values.get(id), set: (v) => values.set(id, v) }),
  }
}
