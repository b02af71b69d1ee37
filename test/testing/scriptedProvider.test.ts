import { describe, expect, it } from 'vitest'
import { scriptedProvider, ScriptExhausted } from 'nerve-agents/testing'

const signal = new AbortController().signal
const ask = { system: '', messages: [], tools: [] }

describe('scriptedProvider', () => {
  it('counts down what is left, records each request, and fails past the end', async () => {
    const model = scriptedProvider(['one', 'two'])
    expect(model.remaining).toBe(2)
    await model.call(ask, { signal })
    expect(model.remaining).toBe(1)
    await model.call({ ...ask, system: 'second' }, { signal })
    expect(model.remaining).toBe(0)
    expect(model.requests.map((r) => r.system)).toEqual(['', 'second'])
    await expect(model.call(ask, { signal })).rejects.toBeInstanceOf(ScriptExhausted)
    expect(model.remaining).toBe(0)
  })

  it('never runs out when it loops', async () => {
    const model = scriptedProvider(['a', 'b'], { loop: true })
    const texts = []
    for (let i = 0; i < 5; i++) texts.push((await model.call(ask, { signal })).content[0])
    expect(texts.map((b) => (b?.type === 'text' ? b.text : ''))).toEqual(['a', 'b', 'a', 'b', 'a'])
    expect(model.remaining).toBe(Infinity)
  })
})
