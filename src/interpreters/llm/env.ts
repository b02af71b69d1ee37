import { anthropic } from './anthropic.js'
import { gemini } from './gemini.js'
import { openaiChat } from './openaiChat.js'
import { openaiResponses } from './openaiResponses.js'
import type { Provider } from './Provider.js'

/**
 * The provider the environment asks for, in this order of preference:
 * `OPENAI_BASE_URL` gives {@link openaiChat} on that server (a local
 * Ollama or vLLM; with `OPENAI_API_KEY` if set and the model
 * `OPENAI_MODEL`); `ANTHROPIC_API_KEY` gives {@link anthropic},
 * `OPENAI_API_KEY` {@link openaiResponses}, `GEMINI_API_KEY` or
 * `GOOGLE_API_KEY` {@link gemini}, each with its default model. Undefined
 * when none is set (a blank value counts as unset). With `stream: true`
 * the provider asks for its answers as server-sent events, reported as
 * they come (what a chat shows as it streams).
 *
 * @category providers
 * @example
 * import { providerFromEnv } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.strictEqual(providerFromEnv({}), undefined)
 * assert.strictEqual(providerFromEnv({ OPENAI_API_KEY: 'sk-test' })?.name, 'openai-responses')
 * assert.strictEqual(providerFromEnv({ OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'llama3.2' })?.name, 'openai-chat')
 */
export const providerFromEnv = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { readonly stream?: boolean } = {},
): Provider | undefined => {
  const stream = options.stream === true ? { stream: true } : {}
  const set = (name: string) => {
    const v = env[name]
    return v !== undefined && v.trim() !== '' ? v : undefined
  }
  const openaiKey = set('OPENAI_API_KEY')
  const baseUrl = set('OPENAI_BASE_URL')
  if (baseUrl !== undefined) {
    const model = set('OPENAI_MODEL')
    return openaiChat({
      ...stream,
      baseUrl,
      ...(openaiKey !== undefined && { apiKey: openaiKey }),
      ...(model !== undefined && { model }),
    })
  }
  const anthropicKey = set('ANTHROPIC_API_KEY')
  if (anthropicKey !== undefined) return anthropic({ ...stream, apiKey: anthropicKey })
  if (openaiKey !== undefined) return openaiResponses({ ...stream, apiKey: openaiKey })
  const geminiKey = set('GEMINI_API_KEY') ?? set('GOOGLE_API_KEY')
  if (geminiKey !== undefined) return gemini({ ...stream, apiKey: geminiKey })
  return undefined
}
