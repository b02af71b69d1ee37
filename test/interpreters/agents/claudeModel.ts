import type { Block } from '../../../src/conversation/Entry.js'
import type { ModelRequest } from '../../../src/interpreters/llm/Provider.js'
import { scriptedProvider, type ScriptedTurn } from '../../../src/testing/index.js'

/** The text of the user's last prompt, Claude Code's system reminders left out. */
export const promptOf = (request: ModelRequest): string => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)
  if (last === undefined) return ''
  if (typeof last.content === 'string') return last.content
  return last.content
    .filter((b): b is Extract<Block, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .filter((t) => !t.startsWith('<system-reminder>'))
    .join(' ')
    .trim()
}

/** The tool result the last user message carries, if any. */
const resultOf = (request: ModelRequest): string | undefined => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)
  if (last === undefined || typeof last.content === 'string') return undefined
  const r = last.content.find((b) => b.type === 'tool_result')
  if (r?.type !== 'tool_result') return undefined
  return typeof r.content === 'string'
    ? r.content
    : r.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
}

const usage = { input_tokens: 100, output_tokens: 7 }

/**
 * The scripted model the real Claude Code talks to in the tests: `Answer
 * to: <prompt>`; a prompt with `WRITE <file>` asks for Bash to write the
 * file, and the call with its result (and no prompt) answers `Tool said:
 * <result>`; a
 * prompt with `SLOW` answers after 30 s (to be interrupted).
 */
export const claudeModel = () =>
  scriptedProvider(
    [
      (request, index): ScriptedTurn => {
        const prompt = promptOf(request)
        const result = resultOf(request)
        // After a denied tool, the next prompt comes in the message that carries the refusal.
        if (result !== undefined && prompt === '') return { content: `Tool said: ${result}`, usage }
        const write = /WRITE (\S+)/.exec(prompt)
        if (write !== null) {
          return {
            content: [
              {
                type: 'tool_use',
                id: `toolu_${index}`,
                name: 'Bash',
                input: { command: `echo hi > ${write[1]!}`, description: 'Write a file' },
              },
            ],
            usage,
          }
        }
        if (prompt.includes('SLOW')) return { content: 'too late', delayMs: 30_000, usage }
        return { content: `Answer to: ${prompt}`, usage }
      },
    ],
    { loop: true },
  )
