import { describe, expect, it } from 'vitest'
import { createSession, llm, llmInterpreter, messages, type Provider } from 'nerve-agents'
import { interpreters } from 'nerve-agents/core'
import { type ModelRequest } from 'nerve-agents/interpreters'
import {
  COACH_VERDICT_FORMAT,
  conversationOf,
  debateLoop,
  devCoachLoop,
  readCoachVerdict,
} from 'nerve-agents/session'
import { scriptedProvider } from 'nerve-agents/testing'

const lastText = (r: ModelRequest): string => {
  const c = r.messages.at(-1)?.content
  return typeof c === 'string' ? c : ''
}

const session = (providers: Record<string, Provider>) => {
  const s = createSession({ interpreters: interpreters(llmInterpreter({ providers })) })
  for (const name of Object.keys(providers)) s.register(llm(name, { provider: name }))
  return s
}

const verdict = (approved: boolean, feedback: string) => JSON.stringify({ approved, feedback })

describe('readCoachVerdict', () => {
  it('reads a verdict from JSON text, a fenced JSON block after prose, or an object', () => {
    expect(readCoachVerdict(verdict(true, 'ok'))).toEqual({ approved: true, feedback: 'ok' })
    expect(readCoachVerdict('  {"approved": false}  ')).toEqual({ approved: false, feedback: '' })
    expect(
      readCoachVerdict(
        'Looks close.\n```json\n{"approved": false, "feedback": "add tests"}\n```\n',
      ),
    ).toEqual({ approved: false, feedback: 'add tests' })
    expect(readCoachVerdict({ approved: true, feedback: 'fine' })).toEqual({
      approved: true,
      feedback: 'fine',
    })
  })

  it('finds no verdict in prose, however approving it sounds, nor in a wrong shape', () => {
    for (const answer of [
      'Not approved: no tests.',
      'APPROVED',
      'I approve.',
      'true',
      '{"approved": "yes"}',
      '{"approved": true, "feedback": 3}',
      null,
      42,
    ]) {
      expect(readCoachVerdict(answer)).toBeUndefined()
    }
  })
})

describe('devCoachLoop', () => {
  it('loops until the coach’s verdict approves, each agent keeping its conversation', async () => {
    const s = session({
      dev: scriptedProvider([(r) => `draft for: ${lastText(r)}`], { loop: true }),
      coach: scriptedProvider([
        verdict(false, 'Too long.'),
        verdict(false, 'Still long.'),
        verdict(true, 'Fine.'),
      ]),
    })
    const turns: string[] = []
    const result = await devCoachLoop(s, {
      developer: 'dev',
      coach: 'coach',
      task: 'write a haiku',
      onTurn: (t) => turns.push(`${t.round}:${t.speaker}`),
    })
    expect(result.accepted).toBe(true)
    expect(result.rounds).toBe(3)
    expect(result.answer).toBe('draft for: Still long.')
    expect(result.verdict).toEqual({ approved: true, feedback: 'Fine.' })
    expect(result.transcript.map((t) => t.verdict?.approved)).toEqual([
      undefined,
      false,
      undefined,
      false,
      undefined,
      true,
    ])
    expect(turns).toEqual(['1:dev', '1:coach', '2:dev', '2:coach', '3:dev', '3:coach'])
    expect(messages(conversationOf(s, 'dev')!)).toHaveLength(6)
    expect(messages(conversationOf(s, 'coach')!)).toHaveLength(6)
    await s.close()
  })

  it('does not take "Not approved: no tests." (or any prose) for approval', async () => {
    const s = session({
      dev: scriptedProvider(['v1', 'v2', 'v3'], { loop: true }),
      coach: scriptedProvider([
        'Not approved: no tests.',
        'APPROVED, mostly — but add tests.',
        verdict(true, 'Tests pass.'),
      ]),
    })
    const result = await devCoachLoop(s, { developer: 'dev', coach: 'coach', task: 'Add tests.' })
    expect(result).toMatchObject({ accepted: true, rounds: 3, answer: 'v3' })
    expect(result.transcript[1]).not.toHaveProperty('verdict')
    await s.close()
  })

  it('asks the coach for the verdict format, and tells the developer the feedback (or the prose)', async () => {
    const coach = scriptedProvider([
      'No verdict here.',
      verdict(false, 'Handle 15.'),
      verdict(true, ''),
    ])
    const dev = scriptedProvider(['v1', 'v2', 'v3'])
    const s = session({ dev, coach })
    await devCoachLoop(s, { developer: 'dev', coach: 'coach', task: 'fizzbuzz' })
    expect(lastText(coach.requests[0]!)).toContain(COACH_VERDICT_FORMAT)
    expect(dev.requests.map(lastText)).toEqual(['fizzbuzz', 'No verdict here.', 'Handle 15.'])
    await s.close()
  })

  it('uses a verdict reader of the caller’s, and refuses the old acceptance phrase', async () => {
    const s = session({
      dev: scriptedProvider(['work'], { loop: true }),
      coach: scriptedProvider(['SHIP IT'], { loop: true }),
    })
    const result = await devCoachLoop(s, {
      developer: 'dev',
      coach: 'coach',
      task: 't',
      verdict: (a) => (a === 'SHIP IT' ? { approved: true, feedback: '' } : undefined),
    })
    expect(result).toMatchObject({ accepted: true, rounds: 1 })
    await expect(
      devCoachLoop(s, { developer: 'dev', coach: 'coach', task: 't', acceptance: 'OK' } as never),
    ).rejects.toThrow(/options.acceptance is gone/)
    await s.close()
  })

  it('stops at the round limit when the coach never accepts', async () => {
    const s = session({
      dev: scriptedProvider(['try'], { loop: true }),
      coach: scriptedProvider([verdict(false, 'no')], { loop: true }),
    })
    const result = await devCoachLoop(s, {
      developer: 'dev',
      coach: 'coach',
      task: 't',
      maxRounds: 2,
    })
    expect(result).toMatchObject({ accepted: false, rounds: 2, answer: 'try' })
    expect(result.verdict).toEqual({ approved: false, feedback: 'no' })
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
