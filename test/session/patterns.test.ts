import { describe, expect, it } from 'vitest'
import {
  conversationOf,
  createSession,
  debateLoop,
  devCoachLoop,
  interpreters,
  llm,
  llmInterpreter,
  messages,
  type ModelRequest,
  type Provider,
} from 'nerve'
import { scriptedProvider } from 'nerve/testing'

const lastText = (r: ModelRequest): string => {
  const c = r.messages.at(-1)?.content
  return typeof c === 'string' ? c : ''
}

const session = (providers: Record<string, Provider>) => {
  const s = createSession({ interpreters: interpreters(llmInterpreter({ providers })) })
  for (const name of Object.keys(providers)) s.register(llm(name, { provider: name }))
  return s
}

describe('devCoachLoop', () => {
  it('loops until the coach says the acceptance phrase, each agent keeping its conversation', async () => {
    const s = session({
      dev: scriptedProvider([(r) => `draft for: ${lastText(r)}`], { loop: true }),
      coach: scriptedProvider(['Too long.', 'Still long.', 'Fine — lgtm.']),
    })
    const turns: string[] = []
    const result = await devCoachLoop(s, {
      developer: 'dev',
      coach: 'coach',
      task: 'write a haiku',
      acceptance: 'LGTM',
      onTurn: (t) => turns.push(`${t.round}:${t.speaker}`),
    })
    expect(result.accepted).toBe(true)
    expect(result.rounds).toBe(3)
    expect(result.answer).toBe('draft for: Still long.')
    expect(turns).toEqual(['1:dev', '1:coach', '2:dev', '2:coach', '3:dev', '3:coach'])
    expect(messages(conversationOf(s, 'dev')!)).toHaveLength(6)
    expect(messages(conversationOf(s, 'coach')!)).toHaveLength(6)
    await s.close()
  })

  it('stops at the round limit when the coach never accepts', async () => {
    const s = session({
      dev: scriptedProvider(['try'], { loop: true }),
      coach: scriptedProvider(['no'], { loop: true }),
    })
    const result = await devCoachLoop(s, {
      developer: 'dev',
      coach: 'coach',
      task: 't',
      maxRounds: 2,
    })
    expect(result).toMatchObject({ accepted: false, rounds: 2, answer: 'try' })
    expect(result.transcript).toHaveLength(4)
    await s.close()
  })

  it('names a missing node and a bad round count', async () => {
    const s = session({ dev: scriptedProvider([]) })
    await expect(devCoachLoop(s, { developer: 'dev', coach: 'nobody', task: 't' })).rejects.toThrow(
      /options.coach: no node named "nobody"/,
    )
    await expect(
      devCoachLoop(s, { developer: 'dev', coach: 'dev', task: 't', maxRounds: 0 }),
    ).rejects.toThrow(/rounds must be an integer ≥ 1/)
    await s.close()
  })
})

describe('debateLoop', () => {
  it('alternates the two agents for N rounds, each answering the other', async () => {
    const s = session({
      pro: scriptedProvider([(r) => `pro on "${lastText(r)}"`], { loop: true }),
      con: scriptedProvider([(r) => `con on "${lastText(r)}"`], { loop: true }),
    })
    const transcript = await debateLoop(s, {
      first: 'pro',
      second: 'con',
      topic: 'tabs',
      rounds: 2,
    })
    expect(transcript.map((t) => `${t.round} ${t.speaker}: ${t.text}`)).toEqual([
      '1 pro: pro on "tabs"',
      '1 con: con on "pro on "tabs""',
      '2 pro: pro on "con on "pro on "tabs"""',
      '2 con: con on "pro on "con on "pro on "tabs""""',
    ])
    await s.close()
  })
})
