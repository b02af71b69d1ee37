import type { ServerResponse } from 'node:http'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  AgentFailed,
  anthropic,
  empty,
  gemini,
  messages,
  openaiChat,
  openaiResponses,
  ProviderHttpError,
  ProviderMalformed,
  ProviderStreamCut,
  ProviderTimeout,
  runAgent,
  system,
  toolbox,
  user,
  type AgentOptions,
  type Block,
  type Conversation,
  type Provider,
  type RetryNotice,
  type Tool,
} from 'nerve'
import { fakeClock } from 'nerve/testing'
import { json, sse, startServer, type TestServer } from './server.js'

// End-to-end faults: the agent loop over the real HTTP providers, against a
// local server that fails on purpose.

type Event = { readonly event?: string; readonly data: unknown }

interface ProviderOptions {
  readonly stream: boolean
  readonly timeoutMs?: number
}

/** What a test needs of one protocol: its provider, and answers in its shapes. */
interface Protocol {
  readonly name: string
  readonly provider: (url: string, options: ProviderOptions) => Provider
  /** A whole answer that says `text`. */
  readonly text: (text: string) => unknown
  /** A whole answer that asks for the `ping` tool, with no input. */
  readonly toolCall: unknown
  /** An answer saying `text`, streamed in two pieces; the last event is the protocol's end event. */
  readonly stream: (text: string) => readonly Event[]
  /** A whole answer that asks for the `ping` tool, then has a field of the wrong type. */
  readonly wrongField: unknown
}

const halves = (text: string): readonly [string, string] => {
  const i = Math.ceil(text.length / 2)
  return [text.slice(0, i), text.slice(i)]
}

const anthropicProtocol: Protocol = {
  name: 'anthropic',
  provider: (url, options) => anthropic({ apiKey: 'sk-test', baseUrl: url, ...options }),
  text: (text) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-1',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 },
  }),
  toolCall: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-1',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'ping', input: {} }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 },
  },
  stream: (text) => [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test-1',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    },
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    },
    ...halves(text).map((piece) => ({
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: piece },
      },
    })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 2 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ],
  wrongField: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-1',
    content: [
      { type: 'tool_use', id: 'toolu_1', name: 'ping', input: {} },
      { type: 'text', text: 5 },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 },
  },
}

const responsesAnswer = (output: readonly unknown[]) => ({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-test-1',
  output,
  usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
})
const responsesMessage = (text: unknown) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
})
const responsesCall = {
  id: 'fc_1',
  type: 'function_call',
  call_id: 'call_1',
  name: 'ping',
  arguments: '{}',
  status: 'completed',
}

const openaiResponsesProtocol: Protocol = {
  name: 'openai-responses',
  provider: (url, options) =>
    openaiResponses({ apiKey: 'sk-test', baseUrl: `${url}/v1`, ...options }),
  text: (text) => responsesAnswer([responsesMessage(text)]),
  toolCall: responsesAnswer([responsesCall]),
  stream: (text) => [
    {
      event: 'response.created',
      data: {
        type: 'response.created',
        response: { ...responsesAnswer([]), status: 'in_progress' },
      },
    },
    {
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
      },
    },
    ...halves(text).map((delta) => ({
      event: 'response.output_text.delta',
      data: { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta },
    })),
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: responsesAnswer([responsesMessage(text)]) },
    },
  ],
  wrongField: responsesAnswer([responsesCall, responsesMessage(5)]),
}

const chatAnswer = (message: Record<string, unknown>, finish: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-test-1',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
})
const chatCall = { id: 'call_1', type: 'function', function: { name: 'ping', arguments: '{}' } }
const chatChunk = (delta: Record<string, unknown>, finish: string | null = null): Event => ({
  data: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'gpt-test-1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  },
})

const openaiChatProtocol: Protocol = {
  name: 'openai-chat',
  provider: (url, options) => openaiChat({ apiKey: 'sk-test', baseUrl: `${url}/v1`, ...options }),
  text: (text) => chatAnswer({ content: text }, 'stop'),
  toolCall: chatAnswer({ content: null, tool_calls: [chatCall] }, 'tool_calls'),
  stream: (text) => [
    chatChunk({ role: 'assistant', content: '' }),
    ...halves(text).map((content) => chatChunk({ content })),
    chatChunk({}, 'stop'),
    { data: '[DONE]' },
  ],
  wrongField: chatAnswer({ content: 7, tool_calls: [chatCall] }, 'tool_calls'),
}

const geminiAnswer = (parts: readonly unknown[], finishReason?: string) => ({
  candidates: [
    {
      content: { role: 'model', parts },
      index: 0,
      ...(finishReason !== undefined && { finishReason }),
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
  modelVersion: 'gemini-test-1',
})
const geminiCall = { functionCall: { name: 'ping', args: {} } }

const geminiProtocol: Protocol = {
  name: 'gemini',
  provider: (url, options) => gemini({ apiKey: 'g-test', baseUrl: url, ...options }),
  text: (text) => geminiAnswer([{ text }], 'STOP'),
  toolCall: geminiAnswer([geminiCall], 'STOP'),
  stream: (text) => {
    const [a, b] = halves(text)
    return [{ data: geminiAnswer([{ text: a }]) }, { data: geminiAnswer([{ text: b }], 'STOP') }]
  },
  wrongField: geminiAnswer([geminiCall, { text: 5 }], 'STOP'),
}

const protocols: readonly Protocol[] = [
  anthropicProtocol,
  openaiResponsesProtocol,
  openaiChatProtocol,
  geminiProtocol,
]

// ---------------------------------------------------------------- the server

type Respond = (res: ServerResponse) => void

/**
 * Starts a server that answers its n-th request with the n-th responder, and
 * every later one with the last; `finished` closes it after the test.
 */
const serveWith =
  (finished: (close: () => Promise<void>) => void) =>
  async (...script: readonly Respond[]): Promise<TestServer> => {
    let n = 0
    const s = await startServer((_req, res) => {
      script[Math.min(n++, script.length - 1)]!(res)
    })
    finished(() => s.close())
    return s
  }
const serve = serveWith((close) => {
  onTestFinished(close)
})

const status =
  (code: number, headers: Record<string, string> = {}): Respond =>
  (res) => {
    json(res, { error: { message: `failed with ${code}` } }, code, headers)
  }
const body =
  (answer: unknown): Respond =>
  (res) => {
    json(res, answer)
  }
const events =
  (list: readonly Event[], cut = false): Respond =>
  (res) => {
    sse(res, list, cut)
  }
/** Sends the headers and the first events, then nothing more. */
const stallAfter = (list: readonly Event[]): Respond => {
  const text = list.map(
    (e) => `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
  )
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(text.join(''))
  }
}
const never: Respond = () => undefined
/** The protocol's answer saying `text`, streamed or whole. */
const good = (p: Protocol, stream: boolean, text: string): Respond =>
  stream ? events(p.stream(text)) : body(p.text(text))

// ---------------------------------------------------------------- the runs

const start = pipe(empty, system('You help.'), user('go'))

/** A `ping` tool answering `pong`, and the inputs it was called with. */
const pingTool = (): { readonly tool: Tool; readonly pinged: unknown[] } => {
  const pinged: unknown[] = []
  const tool: Tool = {
    definition: {
      name: 'ping',
      description: 'Answers pong',
      input_schema: { type: 'object', properties: {} },
    },
    run: (input) => {
      pinged.push(input)
      return Promise.resolve('pong')
    },
  }
  return { tool, pinged }
}

/** Runs the agent with a `ping` tool and retry waits on a fake clock; keeps the retry notices. */
const run = (provider: Provider, options: AgentOptions = {}) => {
  const retries: RetryNotice[] = []
  const clock = fakeClock({ auto: true })
  const { tool, pinged } = pingTool()
  const result = runAgent(provider, start, {
    tools: toolbox(tool),
    clock,
    onRetry: (notice) => retries.push(notice),
    ...options,
  })
  return { result, retries, clock, pinged }
}

const failure = async (work: Promise<unknown>): Promise<AgentFailed> => {
  const e = await work.then(
    () => expect.fail('the run succeeded'),
    (x: unknown) => x,
  )
  expect(e).toBeInstanceOf(AgentFailed)
  return e as AgentFailed
}

/** `work`, or 'hung' if it has not settled within `ms` (a safety net, not a timing). */
const unlessHung = <T>(work: Promise<T>, ms = 1000): Promise<T | 'hung'> => {
  let timer: NodeJS.Timeout | undefined
  const safety = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => {
      resolve('hung')
    }, ms)
  })
  return Promise.race([work, safety]).finally(() => {
    clearTimeout(timer)
  })
}

const contentOf = (m: { readonly content: string | readonly Block[] }): readonly Block[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content

/**
 * The conversation ends in an `error` stop reason, and every assistant tool
 * use is answered, in order, by the next message's tool results.
 */
const endsWholeInError = (c: Conversation): void => {
  expect(c.data).toMatchObject({ type: 'stop_reason', reason: 'error' })
  const ms = messages(c)
  ms.forEach((m, i) => {
    if (m.role !== 'assistant') return
    const uses = contentOf(m).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
    if (uses.length === 0) return
    const next = ms[i + 1]
    expect(next?.role).toBe('user')
    const results = next === undefined ? [] : contentOf(next)
    expect(results.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))).toEqual(uses)
  })
}

const modes = [false, true]

describe.each(protocols)('runAgent over $name', (p) => {
  it.each(modes)(
    'retries a 500 after the backoff and a 429 after its Retry-After: 0, then succeeds (stream: %s)',
    async (stream) => {
      const s = await serve(
        status(500),
        status(429, { 'retry-after': '0' }),
        good(p, stream, 'Hello there.'),
      )
      const { result, retries, clock } = run(p.provider(s.url, { stream }))
      const r = await result
      expect(r.text).toBe('Hello there.')
      expect(clock.now()).toBe(500)
      expect(r.stopReason).toBe('end_turn')
      expect(r.calls).toBe(1)
      expect(s.received).toHaveLength(3)
      expect(retries).toMatchObject([
        { retry: 1, delayMs: 500, error: { _tag: 'ProviderHttpError', status: 500 } },
        { retry: 2, delayMs: 0, error: { _tag: 'ProviderHttpError', status: 429 } },
      ])
    },
  )

  it.each([
    ['a broken connection', true],
    ['a clean end', false],
  ])(
    'retries a stream cut before its end event by %s, recording only the whole answer',
    async (_how, broken) => {
      const cut = p.stream('Half an answer').slice(0, -1)
      const s = await serve(events(cut, broken), good(p, true, 'The whole answer.'))
      const deltas: string[] = []
      const { result, retries } = run(p.provider(s.url, { stream: true }), {
        onDelta: (d) => {
          if (d.type === 'text') deltas.push(d.text)
        },
      })
      const r = await result
      expect(s.received).toHaveLength(2)
      expect(retries).toHaveLength(1)
      expect(retries[0]?.error).toBeInstanceOf(ProviderStreamCut)
      expect(deltas.join('')).toContain('Half')
      expect(r.text).toBe('The whole answer.')
      const ms = messages(r.conversation)
      expect(ms.map((m) => m.role)).toEqual(['user', 'assistant'])
      expect(contentOf(ms[1]!)).toEqual([{ type: 'text', text: 'The whole answer.' }])
    },
  )

  it.each(modes)(
    'fails at once on a body that is not JSON, recording no answer (stream: %s)',
    async (stream) => {
      const notJson: Respond = stream
        ? events([...p.stream('Hi').slice(0, 1), { data: '{oops' }])
        : (res) => {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end('<html>Bad Gateway</html>')
          }
      const s = await serve(notJson, good(p, stream, 'too late'))
      const { result, retries } = run(p.provider(s.url, { stream }))
      const e = await failure(result)
      expect(e.cause).toBeInstanceOf(ProviderMalformed)
      expect(s.received).toHaveLength(1)
      expect(retries).toEqual([])
      endsWholeInError(e.conversation)
      expect(messages(e.conversation).map((m) => m.role)).toEqual(['user'])
    },
  )

  it('fails at once on an answer with a field of the wrong type, neither recording nor running its tool call', async () => {
    const s = await serve(body(p.wrongField), good(p, false, 'too late'))
    const { result, retries, pinged } = run(p.provider(s.url, { stream: false }))
    const e = await failure(result)
    expect(e.cause).toBeInstanceOf(ProviderMalformed)
    expect(e.cause).toMatchObject({ path: expect.stringMatching(/^\/./) as unknown })
    expect(s.received).toHaveLength(1)
    expect(retries).toEqual([])
    expect(pinged).toEqual([])
    endsWholeInError(e.conversation)
    expect(messages(e.conversation).map((m) => m.role)).toEqual(['user'])
  })

  it.each(modes)(
    'stops with cancelled, without hanging, when aborted during a stalled call, and closes the connection (stream: %s)',
    async (stream) => {
      const controller = new AbortController()
      let closed: Promise<void> | undefined
      const stall = stream ? stallAfter(p.stream('Never finished').slice(0, 2)) : never
      const s = await serve((res) => {
        closed = new Promise((resolve) => res.on('close', resolve))
        stall(res)
        setTimeout(() => {
          controller.abort()
        }, 20)
      })
      const { result, retries } = run(p.provider(s.url, { stream }), { signal: controller.signal })
      const r = await unlessHung(result)
      if (r === 'hung') return expect.fail('runAgent did not settle after the abort')
      expect(r.stopReason).toBe('cancelled')
      expect(messages(r.conversation).map((m) => m.role)).toEqual(['user'])
      expect(r.conversation.data).toMatchObject({ type: 'stop_reason', reason: 'cancelled' })
      expect(retries).toEqual([])
      expect(s.received).toHaveLength(1)
      expect(closed).toBeDefined()
      expect(await unlessHung(closed!)).not.toBe('hung')
    },
  )

  it('stops with cancelled, without hanging, when aborted while it waits to retry', async () => {
    const s = await serve(status(503))
    const controller = new AbortController()
    const clock = fakeClock() // never moves: only the abort ends the wait
    let waiting = -1
    const { result, retries } = run(p.provider(s.url, { stream: false }), {
      clock,
      signal: controller.signal,
      onRetry: (n) => {
        retries.push(n)
        setTimeout(() => {
          waiting = clock.pending
          controller.abort()
        }, 20)
      },
    })
    const r = await unlessHung(result)
    if (r === 'hung') return expect.fail('runAgent did not settle after the abort')
    expect(waiting).toBe(1)
    expect(r.stopReason).toBe('cancelled')
    expect(retries.map((n) => n.delayMs)).toEqual([500])
    expect(s.received).toHaveLength(1)
    expect(messages(r.conversation).map((m) => m.role)).toEqual(['user'])
  })

  it('keeps the tool round whole when every call after it fails with 500', async () => {
    const s = await serve(body(p.toolCall), status(500))
    const { result, retries, clock, pinged } = run(p.provider(s.url, { stream: false }))
    const e = await failure(result)
    expect(e.cause).toBeInstanceOf(ProviderHttpError)
    expect(e.cause).toMatchObject({ status: 500 })
    expect(clock.now()).toBe(3500)
    expect(pinged).toEqual([{}])
    expect(s.received).toHaveLength(5)
    expect(retries.map((n) => n.delayMs)).toEqual([500, 1000, 2000])
    endsWholeInError(e.conversation)
    const ms = messages(e.conversation)
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const use = contentOf(ms[1]!).find((b) => b.type === 'tool_use')
    expect(use).toMatchObject({ type: 'tool_use', name: 'ping' })
    expect(contentOf(ms[2]!)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: use?.type === 'tool_use' ? use.id : '',
        content: 'pong',
        is_error: false,
      },
    ])
  })

  it('fails at once with the 429 when its Retry-After is longer than retry.maxDelayMs', async () => {
    const s = await serve(status(429, { 'retry-after': '5' }), good(p, false, 'too late'))
    const { result, retries } = run(p.provider(s.url, { stream: false }), {
      retry: { maxDelayMs: 1000 },
    })
    const e = await failure(result)
    expect(e.cause).toBeInstanceOf(ProviderHttpError)
    expect(e.cause).toMatchObject({ status: 429, retryAfterMs: 5000 })
    expect(s.received).toHaveLength(1)
    expect(retries).toEqual([])
    endsWholeInError(e.conversation)
  })
})

// Real timers: the provider's own timeout. Each test waits 2 × 100 ms, so they run side by side.
describe.concurrent.each(protocols)('runAgent over a stalled $name server', (p) => {
  it.for(modes)(
    'gives up with a ProviderTimeout after one retry (stream: %s)',
    async (stream, { onTestFinished: finished }) => {
      const stall = stream ? stallAfter(p.stream('Slow').slice(0, 1)) : never
      const s = await serveWith(finished)(stall)
      const { result, retries } = run(p.provider(s.url, { stream, timeoutMs: 100 }), {
        retry: { maxRetries: 1 },
      })
      const e = await failure(result)
      expect(e.cause).toBeInstanceOf(ProviderTimeout)
      expect(s.received).toHaveLength(2)
      expect(retries.map((n) => [n.retry, n.delayMs, n.error._tag])).toEqual([
        [1, 500, 'ProviderTimeout'],
      ])
      endsWholeInError(e.conversation)
    },
  )
})
