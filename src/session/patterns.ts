import { UsageError } from '../errors.js'
import type { Session } from './Session.js'

/**
 * One turn of a loop between agents: the round (from 1), who spoke and what.
 *
 * @category patterns
 */
export interface LoopTurn {
  readonly round: number
  readonly speaker: string
  readonly text: string
}

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
  /** The phrase in the coach's answer that ends the loop (case-insensitive). Default: `APPROVED`. */
  readonly acceptance?: string
  /** The most developer/coach rounds. Default: 5. */
  readonly maxRounds?: number
  /** What the coach is asked about the developer's answer. Default: the task, then the answer. */
  readonly review?: (answer: string, round: number) => string
  /** What the developer is told after a review. Default: the coach's words. */
  readonly revise?: (feedback: string, round: number) => string
  readonly signal?: AbortSignal
  /** Called after each turn. */
  readonly onTurn?: (turn: LoopTurn) => void
}

/**
 * What {@link devCoachLoop} answers: whether the coach accepted, after how
 * many rounds, the developer's last answer and every turn.
 *
 * @category patterns
 */
export interface DevCoachResult {
  readonly accepted: boolean
  readonly rounds: number
  readonly answer: string
  readonly transcript: readonly LoopTurn[]
}

const rounds = (api: string, n: unknown): number => {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    throw new UsageError(api, `the number of rounds must be an integer ≥ 1, got ${String(n)}`)
  }
  return n
}

/** Executes a node of the session and reads its answer as text. */
const say = async (
  session: Session,
  name: string,
  input: string,
  signal: AbortSignal | undefined,
): Promise<string> => {
  const answer = await session.execute(name, input, signal === undefined ? {} : { signal })
  if (typeof answer === 'string') return answer
  const text = (answer as { text?: unknown } | null)?.text
  return typeof text === 'string' ? text : JSON.stringify(answer)
}

/**
 * A developer and a coach take turns: the developer works on the task (with
 * its tools), the coach reviews the answer, and the developer revises from
 * the review — until the coach's answer holds the acceptance phrase or the
 * rounds run out. Both are nodes of the session, so each keeps its own
 * conversation across rounds (and either can be forked mid-way).
 *
 * @category patterns
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
  const phrase = (options.acceptance ?? 'APPROVED').toLowerCase()
  const review =
    options.review ?? ((answer: string) => `The task:\n${options.task}\n\nThe work:\n${answer}`)
  const revise = options.revise ?? ((feedback: string) => feedback)
  const transcript: LoopTurn[] = []
  const turn = (round: number, speaker: string, text: string) => {
    const t = Object.freeze({ round, speaker, text })
    transcript.push(t)
    options.onTurn?.(t)
  }
  let prompt = options.task
  let answer = ''
  for (let round = 1; round <= max; round++) {
    answer = await say(session, options.developer, prompt, options.signal)
    turn(round, options.developer, answer)
    const feedback = await say(session, options.coach, review(answer, round), options.signal)
    turn(round, options.coach, feedback)
    if (feedback.toLowerCase().includes(phrase)) {
      return Object.freeze({ accepted: true, rounds: round, answer, transcript })
    }
    prompt = revise(feedback, round)
  }
  return Object.freeze({ accepted: false, rounds: max, answer, transcript })
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
