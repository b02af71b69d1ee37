import { anthropic } from './anthropic.js'
import { gemini } from './gemini.js'
import { openaiResponses } from './openaiResponses.js'
import type { Provider } from './Provider.js'

/**
 * The provider the environment has a key for: `ANTHROPIC_API_KEY` gives
 * {@link anthropic}, `OPENAI_API_KEY` {@link openaiResponses},
 * `GEMINI_API_KEY` or `GOOGLE_API_KEY` {@link gemini} (in that order of
 * preference), each with its default model; undefined when none is set.
 *
 * @category providers
 * @example
 * import { providerFromEnv } from 'nerve'
 * import assert from 'assert'
 *
 * assert.strictEqual(providerFromEnv({}), undefined)
 * assert.strictEqual(providerFromEnv({ OPENAI_API_KEY: 'sk-test' })?.name, 'openai-responses')
 */
export const providerFromEnv = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): Provider | undefined => {
  const set = (name: string) => {
    const v = env[name]
    return v !== undefined && v.trim() !== '' ? v : undefined
  }
  const anthropicKey = set('ANTHROPIC_API_KEY')
  if (anthropicKey !== undefined) return anthropic({ apiKey: anthropicKey })
  const openaiKey = set('OPENAI_API_KEY')
  if (openaiKey !== undefined) return openaiResponses({ apiKey: openaiKey })
  const geminiKey = set('GEMINI_API_KEY') ?? set('GOOGLE_API_KEY')
  if (geminiKey !== undefined) return gemini({ apiKey: geminiKey })
  return undefined
}
