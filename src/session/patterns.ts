import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { UsageError } from '../errors.js'
import type { Session } from './Session.js'

/**
 * One turn of a loop between agents: the round (from 1), who spoke and what.
 * A coach's turn of {@link devCoachLoop} also carries the verdict read from
 * it (absent when its answer held none).
 *
 * @category patterns
 */
export interface LoopTurn {
  readonly round: number
  readonly speaker: string
  readonly text: string
  readonly verdict?: CoachVerdict
}

/**
 * A coach's decision on one round of {@link devCoachLoop}: whether the work
 * is approved, and what the developer is told.
 *
 * @category patterns
 */
export interface CoachVerdict {
  readonly approved: boolean
  readonly feedback: string
}

/**
 * The wire form of a {@link CoachVerdict}: `{ "approved": boolean, "feedback"?: string }`.
 *
 * @category patterns
 */
export const CoachVerdictCodec: t.Type<
  { approved: boolean; feedback?: string },
  { approved: boolean; feedback?: string }
> = t.intersection([t.type({ approved: t.boolean }), t.partial({ feedback: t.string })])

/** The JSON a text holds: all of it, or else its last ```json fenced block. */
const jsonIn = (text: string): unknown => {
  const tryParse = (s: string): unknown => {
    try {
      return JSON.parse(s) as unknown
    } catch {
      return undefined
    }
  }
  const whole = tryParse(text.trim())
  if (whole !== undefined) return whole
  const fences = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)]
  const last = fences.at(-1)?.[1]
  return last === undefined ? undefined : tryParse(last.trim())
}

/**
 * Reads a coach's verdict from its answer: a value of the verdict's shape
 * (from a node that answers objects), or text that is that JSON or ends in
 * a fenced JSON block with it. Anything else — prose in particular, however
 * approving it sounds — is no verdict: `undefined`.
 *
 * @category patterns
 * @example
 * import { readCoachVerdict } from 'nerve-agents/session'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(readCoachVerdict('{"approved": true, "feedback": "Good."}'), {
 *   approved: true,
 *   feedback: 'Good.',
 * })
 * assert.strictEqual(readCoachVerdict('Not approved: no tests.'), undefined)
 * assert.strictEqual(readCoachVerdict('APPROVED'), undefined)
 */
export const readCoachVerdict = (answer: unknown): CoachVerdict | undefined => {
  const value = typeof answer === 'string' ? jsonIn(answer) : answer
  const decoded = CoachVerdictCodec.decode(value)
  if (E.isLeft(decoded)) return undefined
  return Object.freeze({ approved: decoded.right.approved, feedback: decoded.right.feedback ?? '' })
}

/**
 * What the coach is told to answer with, appended to its review prompt by default.
 *
 * @category patterns
 */
export const COACH_VERDICT_FORMAT =
  'Answer with JSON only, no other text: {"approved": true or false, "feedback": "what to change, or why it is right"}.'

/**
 * Options of {@link devCoachLoop}. `developer` and `coach` name nodes of the
 * session (LLM nodes, or any node that answers text).
 *
 * @category patterns
 */
export interface DevCoachOptions {
  readonly developer: string
  readonly coach: string
  /** What the developer is asked first. */
  readonly task: string
  /** The most developer/coach rounds. Default: 5. */
  readonly maxRounds?: number
  /**
   * What the coach is asked about the developer's answer. Default: the task,
   * the answer, then {@link COACH_VERDICT_FORMAT}.
   */
  readonly review?: (answer: string, round: number) => string
  /**
   * Reads the coach's verdict from its answer (the node's raw answer).
   * Default: {@link readCoachVerdict}.
   */
  readonly verdict?: (answer: unknown) => CoachVerdict | undefined
  /**
   * What the developer is told after a review that did not approve. Default:
   * the verdict's feedback, or the coach's words when they held no verdict.
   */
  readonly revise?: (feedback: string, round: number) => string
  readonly signal?: AbortSignal
  /** Called after each turn. */
  readonly onTurn?: (turn: LoopTurn) => void
}

/**
 * What {@link devCoachLoop} answers: whether the coach accepted, after how
 * many rounds, the developer's last answer, the coach's last verdict and
 * every turn.
 *
 * @category patterns
 */
export interface DevCoachResult {
  readonly accepted: boolean
  readonly rounds: number
  readonly answer: string
  /** The last verdict the coach gave; absent when it never gave one. */
  readonly verdict?: CoachVerdict
  readonly transcript: readonly LoopTurn[]
}

const rounds = (api: string, n: unknown): number => {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    throw new UsageError(api, `the number of rounds must be an integer ≥ 1, got ${String(n)}`)
  }
  return n
}

/** An answer as text: itself, its `text` field, or its JSON. */
const textOf = (answer: unknown): string => {
  if (typeof answer === 'string') return answer
  const text = (answer as { text?: unknown } | null)?.text
  return typeof text === 'string' ? text : JSON.stringify(answer)
}

/** Executes a node of the session and answers what it answered. */
const ask = (
  session: Session,
  name: string,
  input: string,
  signal: AbortSignal | undefined,
): Promise<unknown> => session.execute(name, input, signal === undefined ? {} : { signal })

/** Executes a node of the session and reads its answer as text. */
const say = async (
  session: Session,
  name: string,
  input: string,
  signal: AbortSignal | undefined,
): Promise<string> => textOf(await ask(session, name, input, signal))

/**
 * A developer and a coach take turns: the developer works on the task (with
 * its tools), the coach reviews the answer, and the developer revises from
 * the review — until the coach approves or the rounds run out. Both are
 * nodes of the session, so each keeps its own conversation across rounds
 * (and either can be forked mid-way).
 *
 * The coach's verdict is structured, never guessed from prose: its answer
 * is decoded as a {@link CoachVerdict} (JSON `{"approved": …, "feedback":
 * …}`, see {@link readCoachVerdict}), and only `approved: true` ends the
 * loop. An answer that holds no verdict is not an approval; the developer
 * is told the coach's words.
 *
 * @category patterns
 * @example
 * import { createSession, llm, llmInterpreter } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { devCoachLoop } from 'nerve-agents/session'
 * import { scriptedProvider } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const providers = {
 *   dev: scriptedProvider(['v1', 'v2']),
 *   coach: scriptedProvider([
 *     'Not approved: no tests.',
 *     '{"approved": true, "feedback": "Tests pass."}',
 *   ]),
 * }
 * const session = createSession({ interpreters: interpreters(llmInterpreter({ providers })) })
 * session.register(llm('dev', { provider: 'dev' }))
 * session.register(llm('coach', { provider: 'coach' }))
 * const loop = await devCoachLoop(session, { developer: 'dev', coach: 'coach', task: 'Add tests.' })
 * assert.deepStrictEqual([loop.accepted, loop.rounds, loop.verdict?.feedback], [true, 2, 'Tests pass.'])
 * await session.close()
 */
export const devCoachLoop = async (
  session: Session,
  options: DevCoachOptions,
): Promise<DevCoachResult> => {
  const api = 'devCoachLoop'
  const max = rounds(api, options.maxRounds ?? 5)
  for (const role of ['developer', 'coach'] as const) {
    if (!session.has(options[role])) {
      throw new UsageError(api, `options.${role}: no node named "${options[role]}" in the session`)
    }
  }
  if ((options as { acceptance?: unknown }).acceptance !== undefined) {
    throw new UsageError(
      api,
      'options.acceptance is gone: the coach answers a JSON verdict (see readCoachVerdict), or give options.verdict',
    )
  }
  const review =
    options.review ??
    ((answer: string) =>
      `The task:\n${options.task}\n\nThe work:\n${answer}\n\n${COACH_VERDICT_FORMAT}`)
  const read = options.verdict ?? readCoachVerdict
  const revise = options.revise ?? ((feedback: string) => feedback)
  const transcript: LoopTurn[] = []
  const turn = (t: LoopTurn) => {
    Object.freeze(t)
    transcript.push(t)
    options.onTurn?.(t)
  }
  let prompt = options.task
  let answer = ''
  let last: CoachVerdict | undefined
  const result = (accepted: boolean, rounds: number): DevCoachResult =>
    Object.freeze({
      accepted,
      rounds,
      answer,
      ...(last !== undefined && { verdict: last }),
      transcript: Object.freeze(transcript),
    })
  for (let round = 1; round <= max; round++) {
    answer = await say(session, options.developer, prompt, options.signal)
    turn({ round, speaker: options.developer, text: answer })
    const raw = await ask(session, options.coach, review(answer, round), options.signal)
    const text = textOf(raw)
    const verdict = read(raw)
    turn({ round, speaker: options.coach, text, ...(verdict !== undefined && { verdict }) })
    if (verdict !== undefined) last = verdict
    if (verdict?.approved === true) return result(true, round)
    prompt = revise(
      verdict === undefined || verdict.feedback === '' ? text : verdict.feedback,
      round,
    )
  }
  return result(false, max)
}

/**
 * Options of {@link debateLoop}: two nodes of the session, the topic, and
 * how many rounds (each round, both speak once).
 *
 * @category patterns
 */
export interface DebateOptions {
  readonly first: string
  readonly second: string
  readonly topic: string
  readonly rounds: number
  /** What a speaker is told, from the other's last words. Default: those words. */
  readonly reply?: (other: string, round: number) => string
  readonly signal?: AbortSignal
  readonly onTurn?: (turn: LoopTurn) => void
}

/**
 * Two agents alternate for a number of rounds: the first opens on the
 * topic, then each answers what the other last said.
 *
 * @category patterns
 */
export const debateLoop = async (
  session: Session,
  options: DebateOptions,
): Promise<readonly LoopTurn[]> => {
  const api = 'debateLoop'
  const max = rounds(api, options.rounds)
  for (const role of ['first', 'second'] as const) {
    if (!session.has(options[role])) {
      throw new UsageError(api, `options.${role}: no node named "${options[role]}" in the session`)
    }
  }
  const reply = options.reply ?? ((other: string) => other)
  const transcript: LoopTurn[] = []
  let last = options.topic
  for (let round = 1; round <= max; round++) {
    for (const speaker of [options.first, options.second]) {
      const input = round === 1 && speaker === options.first ? options.topic : reply(last, round)
      last = await say(session, speaker, input, options.signal)
      const t = Object.freeze({ round, speaker, text: last })
      transcript.push(t)
      options.onTurn?.(t)
    }
  }
  return Object.freeze(transcript)
}
