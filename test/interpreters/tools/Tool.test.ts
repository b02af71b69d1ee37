import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../src/errors.js'
import {
  callTool,
  tool,
  toolbox,
  toolDefinitionsOf,
  type Tool,
  type ToolOutput,
} from '../../../src/interpreters/tools/index.js'
import { ctxOf } from './fixture.js'

const definition = (name: string, required: readonly string[] = []) => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: 'object', required },
})

const echo = tool(definition('echo', ['text']), t.type({ text: t.string }), ({ text }) =>
  Promise.resolve(text),
)

const useOf = (name: string, input: Readonly<Record<string, unknown>> = {}) =>
  ({ type: 'tool_use', id: 'call-1', name, input }) as const

describe('toolbox', () => {
  it('keeps the tools by name in the order given', () => {
    const other = tool(definition('other'), t.type({}), () => Promise.resolve('x'))
    expect([...toolbox(other, echo).keys()]).toEqual(['other', 'echo'])
  })

  it('throws a UsageError naming a name given to two tools', () => {
    expect(() => toolbox(echo, echo)).toThrow(UsageError)
    expect(() => toolbox(echo, echo)).toThrow(/two tools are named "echo"/)
  })

  it('throws a UsageError for something that is not a tool', () => {
    expect(() => toolbox({} as Tool)).toThrow(/argument 0 is not a tool/)
  })
})

describe('tool', () => {
  it('refuses a name model providers would refuse', () => {
    expect(() => tool(definition('has space'), t.type({}), () => Promise.resolve(''))).toThrow(
      UsageError,
    )
    expect(() => tool(definition(''), t.type({}), () => Promise.resolve(''))).toThrow(UsageError)
  })

  it('refuses an input schema that is not an object schema', () => {
    const bad = { name: 'x', description: '', input_schema: { type: 'string' } }
    expect(() => tool(bad, t.type({}), () => Promise.resolve(''))).toThrow(/input_schema/)
  })

  it('gives run the decoded input', async () => {
    const seen: unknown[] = []
    const spy = tool(definition('spy'), t.type({ n: t.number }), (input) => {
      seen.push(input)
      return Promise.resolve('ok')
    })
    await spy.run({ n: 3 }, ctxOf())
    expect(seen).toEqual([{ n: 3 }])
  })

  it('answers an input that does not decode with an error naming each bad field', async () => {
    const strict = tool(
      definition('strict', ['a', 'b']),
      t.intersection([t.type({ a: t.string, b: t.number }), t.partial({ c: t.boolean })]),
      () => Promise.resolve('never'),
    )
    const out = (await strict.run({ b: 'two', c: 1 }, ctxOf())) as ToolOutput
    expect(out.is_error).toBe(true)
    expect(out.content).toBe(
      'invalid input for tool "strict": field "a" is missing (expected string); ' +
        'field "b" must be number, got "two"; field "c" must be boolean, got 1',
    )
  })

  it('names a nested field by its path', async () => {
    const nested = tool(definition('nested'), t.type({ at: t.type({ line: t.number }) }), () =>
      Promise.resolve(''),
    )
    const out = (await nested.run({ at: { line: null } }, ctxOf())) as ToolOutput
    expect(out.content).toMatch(/field "at\.line" must be number, got null/)
  })

  it('freezes its value', () => {
    expect(Object.isFrozen(echo)).toBe(true)
    expect(Object.isFrozen(echo.definition)).toBe(true)
  })
})

describe('callTool', () => {
  it('answers with the tool output, content alone wrapped', async () => {
    const out = await callTool(toolbox(echo), useOf('echo', { text: 'hi' }), ctxOf())
    expect(out).toEqual({ content: 'hi' })
    expect(Object.isFrozen(out)).toBe(true)
  })

  it('passes through is_error and a nested conversation', async () => {
    const answer: ToolOutput = {
      content: [{ type: 'text', text: 'no' }],
      is_error: true,
      conversation: { heads: [], system_prompt: 'sub', summary: 'none' },
    }
    const sub = tool(definition('sub'), t.type({}), () => Promise.resolve(answer))
    expect(await callTool(toolbox(sub), useOf('sub'), ctxOf())).toEqual(answer)
  })

  it('answers an unknown tool with an error naming it and the tools there are', async () => {
    const other = tool(definition('other'), t.type({}), () => Promise.resolve(''))
    const out = await callTool(toolbox(echo, other), useOf('fly'), ctxOf())
    expect(out).toEqual({
      content: 'unknown tool "fly"; the tools are "echo", "other"',
      is_error: true,
    })
  })

  it('answers a tool that throws with an error carrying the message', async () => {
    const boom: Tool = {
      definition: definition('boom'),
      run: () => {
        throw new Error('kaput')
      },
    }
    expect(await callTool(toolbox(boom), useOf('boom'), ctxOf())).toEqual({
      content: 'tool "boom" failed: kaput',
      is_error: true,
    })
  })

  it('answers a tool that rejects with an error carrying the reason', async () => {
    const boom = tool(definition('boom'), t.type({}), () => Promise.reject(new Error('gone')))
    const out = await callTool(toolbox(boom), useOf('boom'), ctxOf())
    expect(out).toEqual({ content: 'tool "boom" failed: gone', is_error: true })
  })

  it('answers bad input with an error naming the field', async () => {
    const out = await callTool(toolbox(echo), useOf('echo', { text: 7 }), ctxOf())
    expect(out).toEqual({
      content: 'invalid input for tool "echo": field "text" must be string, got 7',
      is_error: true,
    })
  })

  it('answers a tool that answers without content with an error', async () => {
    const odd: Tool = { definition: definition('odd'), run: () => Promise.resolve({} as never) }
    const out = await callTool(toolbox(odd), useOf('odd'), ctxOf())
    expect(out.is_error).toBe(true)
    expect(out.content).toMatch(/answered without content/)
  })

  it('does not start a tool once the call is aborted', async () => {
    let ran = false
    const spy = tool(definition('spy'), t.type({}), () => {
      ran = true
      return Promise.resolve('')
    })
    const controller = new AbortController()
    controller.abort()
    const out = await callTool(toolbox(spy), useOf('spy'), ctxOf(controller.signal))
    expect([ran, out.is_error]).toEqual([false, true])
  })
})

describe('toolDefinitionsOf', () => {
  it('lists the definitions in the order of the toolbox', () => {
    const other = tool(definition('other'), t.type({}), () => Promise.resolve(''))
    expect(toolDefinitionsOf(toolbox(other, echo)).map((d) => d.name)).toEqual(['other', 'echo'])
  })
})
