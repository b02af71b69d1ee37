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

  it('keeps only the latest requests it is told to, and counts every call', async () => {
    const model = scriptedProvider(['a', 'b', 'c'], { keep: 2 })
    for (const system of ['1', '2', '3']) await model.call({ ...ask, system }, { signal })
    expect(model.requests.map((r) => r.system)).toEqual(['2', '3'])
    expect([model.calls, model.remaining]).toEqual([3, 0])
    const none = scriptedProvider(['a'], { loop: true, keep: 0 })
    for (let i = 0; i < 3; i++) await none.call(ask, { signal })
    expect([none.requests.length, none.calls]).toEqual([0, 3])
    expect(() => scriptedProvider(['a'], { keep: -1 })).toThrow(/options.keep/)
  })
})
