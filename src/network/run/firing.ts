import { createHash } from 'node:crypto'
import type { Envelope } from '../model/Envelope.js'

/**
 * How a firing's answer reads: its text, structured data (a command's exit
 * code), whether it says Done, and whether it failed.
 *
 * @internal
 */
export interface Answer {
  readonly text: string
  readonly structured?: unknown
  readonly done: boolean
  readonly failed: boolean
}

/** A line that is only `DONE` (any case, optional punctuation), or an answer starting with it. */
const DONE = /(^|\n)\s*(DONE|Done|done)\s*[.!]?\s*($|\n)|^\s*DONE\b/

/**
 * Whether an answer carries the Done signal: a line saying `DONE`, or an
 * answer starting with `DONE`.
 *
 * @category network
 * @example
 * import { saysDone } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * assert.strictEqual(saysDone('All tests pass.\nDONE'), true)
 * assert.strictEqual(saysDone('DONE: shipped'), true)
 * assert.strictEqual(saysDone('not done yet'), false)
 */
export const saysDone = (text: string): boolean => DONE.test(text)

/** A short content digest for stall detection. */
export const digestOf = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, 16)

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/** Reads what a session node answered. */
export const answerOf = (output: unknown): Answer => {
  if (typeof output === 'string') return { text: output, done: saysDone(output), failed: false }
  if (isRecord(output) && typeof output.exitCode === 'number') {
    const text = typeof output.output === 'string' ? output.output : ''
    return {
      text: `exit ${output.exitCode}\n${text}`,
      structured: { exitCode: output.exitCode },
      done: false,
      failed: output.exitCode !== 0,
    }
  }
  if (isRecord(output) && typeof output.text === 'string') {
    return { text: output.text, done: saysDone(output.text), failed: false }
  }
  const text = (JSON.stringify(output) as string | undefined) ?? String(output)
  return { text, structured: output, done: false, failed: false }
}

const describe = (e: Envelope): string => {
  const parts = [`[${e.kind} from ${e.fromNodeId}] ${e.payload.message}`]
  if (e.payload.structured !== undefined)
    parts.push(`structured: ${JSON.stringify(e.payload.structured)}`)
  for (const a of e.payload.artifacts ?? []) parts.push(`artifact ${a.type}: ${a.ref}`)
  return parts.join('\n')
}

/** The message a node is sent for the envelopes of one firing. */
export const inputText = (envelopes: readonly Envelope[]): string =>
  envelopes.map(describe).join('\n\n')

/** The text of an auto node's tick: what is new since its last iteration. */
export const tickText = (
  iteration: number,
  envelopes: readonly Envelope[],
  notes: readonly string[],
): string => {
  const lines = [`tick ${iteration}`]
  if (envelopes.length > 0) lines.push('new events:', inputText(envelopes))
  else lines.push('no new events')
  lines.push(...notes)
  return lines.join('\n')
}
