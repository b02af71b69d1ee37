import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { expect, it, onTestFinished, vi } from 'vitest'
import {
  messages,
  systemPrompt,
  toolDefinitions,
  UsageError,
  type ImageBlock,
  type Message,
  type ToolDefinition,
} from 'nerve'
import { conversation } from 'nerve/testing'
import type { Pricing, ProviderOptions } from '../../../src/interpreters/llm/httpProvider.js'
import type {
  ModelDelta,
  ModelRequest,
  ModelResponse,
  Provider,
} from '../../../src/interpreters/llm/Provider.js'
import {
  ProviderHttpError,
  ProviderMalformed,
  ProviderStreamCut,
  ProviderTimeout,
} from '../../../src/interpreters/llm/ProviderError.js'
import { json, sse, startServer, type Received, type TestServer } from './server.js'

// What the tests of the HTTP providers share: a server per test, fixtures,
// and the suites every protocol must pass.

/** How the test server answers one request. */
export type Handler = (req: Received, res: ServerResponse) => void | Promise<void>

/** One server-sent event to send: its `event:` name, if any, and its data (JSON, or a raw string). */
export interface StreamEvent {
  readonly event?: string
  readonly data: unknown
}

/** Starts a server on loopback for the running test; it is closed when the test finishes. */
export const serve = async (handle: Handler): Promise<TestServer> => {
  const s = await startServer(handle)
  onTestFinished(() => s.close())
  return s
}

/** Answers with `body` as JSON. */
export const answering =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    json(res, body, status, headers)
  }

/** Answers with `events` as server-sent events, then ends. */
export const streaming =
  (events: readonly StreamEvent[]): Handler =>
  (_req, res) => {
    sse(res, events)
  }

/** The text of `events` on the wire, each line ended by `eol`. */
const wire = (events: readonly StreamEvent[], eol = '\n'): string =>
  events
    .map((e) => {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data)
      return `${e.event === undefined ? '' : `event: ${e.event}${eol}`}data: ${data}${eol}${eol}`
    })
    .join('')

/** Sets an environment variable for the running test (`undefined` unsets it). */
export const stubEnv = (name: string, value: string | undefined): void => {
  vi.stubEnv(name, value)
  onTestFinished(() => {
    vi.unstubAllEnvs()
  })
}

/** A signal nobody aborts. */
export const signal = (): AbortSignal => new AbortController().signal

/** What `work` rejects with; the test fails if it succeeds. */
export const failureOf = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => expect.fail('the call succeeded'),
    (e: unknown) => e,
  )

/** A tiny PNG, and the same as a data URL. */
export const image: ImageBlock = {
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
}
export const imageUrl = 'data:image/png;base64,iVBORw0KGgo='

export const readSchema = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
}
export const readTool: ToolDefinition = {
  name: 'read',
  description: 'Reads a file',
  input_schema: readSchema,
}

/** A request with no tools and one user message. */
export const ask: ModelRequest = {
  system: '',
  messages: [{ type: 'message', role: 'user', content: 'hi' }],
  tools: [],
}

/**
 * A request with a system prompt, `read` forced, no parallel calls, limits,
 * and one round trip: a question in two user messages (text, then an
 * image); the assistant's thinking (Anthropic's signed one, and Gemini's
 * with the signature of the call), text and a call of `read`; its result
 * (text and an image).
 */
export const roundTrip: ModelRequest = {
  system: 'You are terse.',
  messages: [
    { type: 'message', role: 'user', content: 'What is in a.png?' },
    { type: 'message', role: 'user', content: [image] },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read it.', signature: 'c2lnMQ==' },
        { type: 'thinking', thinking: 'Read it.', signature: 'gemini:c2lnMQ==' },
        { type: 'text', text: 'Let me look.' },
        { type: 'thinking', thinking: '', signature: 'gemini:c2ln' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'the picture:' }, image],
          is_error: false,
        },
      ],
    },
  ],
  tools: [readTool],
  toolChoice: { type: 'tool', name: 'read' },
  parallelToolCalls: false,
  maxTokens: 1024,
  temperature: 0.5,
}

/** Encrypted reasoning as OpenAI issues it (a Fernet token: it starts with `gAAAAA`). */
export const OPENAI_REASONING = 'gAAAAABoFirstReasoning=='

/**
 * The start of a conversation with two parallel calls: a question in two
 * user messages (text, then an image and text); the assistant's reasoning
 * (OpenAI's, then Anthropic's redacted and signed), text and two calls of
 * `read`; their results (text and an image; an error) and more text.
 */
export const twoCalls: readonly Message[] = [
  { type: 'message', role: 'user', content: 'Look at this' },
  { type: 'message', role: 'user', content: [image, { type: 'text', text: 'and read a.txt' }] },
  {
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'I should read it.', signature: OPENAI_REASONING },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgyAnthropicData' },
      { type: 'thinking', thinking: 'Theirs.', signature: 'ErUBCkYIBBgC' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b.txt' } },
    ],
  },
  {
    type: 'message',
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'call_1',
        content: [{ type: 'text', text: 'hello' }, image],
      },
      { type: 'tool_result', tool_use_id: 'call_2', content: 'not found', is_error: true },
      { type: 'text', text: 'Thanks' },
    ],
  },
]

/** One protocol, as {@link providerSuite} tests it: its provider and answers in its shapes. */
export interface ProtocolCase {
  /** The provider's name, as its errors carry it. */
  readonly name: string
  /** The provider, made with a test key and `options`. */
  readonly provider: (options: ProviderOptions) => Provider
  /** The request mapping (the body the provider must post for a request with these options). */
  readonly body: (request: ModelRequest, options: ProviderOptions) => unknown
  /** A whole answer with text, tool calls and usage. */
  readonly answer: unknown
  /** The response `answer` maps to, without a cost. */
  readonly expected: ModelResponse
  /** Prices, and the cost of `expected` at these prices. */
  readonly pricing: Pricing
  readonly cost: number
  /**
   * The same answer as the protocol streams it: several deltas, a tool call
   * split over events, its end event last.
   */
  readonly stream: readonly StreamEvent[]
  /** The deltas `stream` gives, in order. */
  readonly deltas: readonly ModelDelta[]
  /** How the index of a streamed event is written in a ProviderMalformed's path. */
  readonly eventPath: (index: number) => string
  /** A body the API sends with an error status. */
  readonly errorBody: unknown
  /** A whole answer with a field of the wrong type, and that field's path. */
  readonly wrongField: { readonly body: unknown; readonly path: string }
  /** A stream with an event with a field of the wrong type, and the path of that field. */
  readonly wrongEvent: { readonly events: readonly StreamEvent[]; readonly path: string }
  /** A stream that ends with the protocol's error event for a server error, and its HTTP status. */
  readonly errorEvent: { readonly events: readonly StreamEvent[]; readonly status: number }
}

/**
 * Registers the tests every HTTP provider must pass, each sending
 * {@link roundTrip}: the whole and streamed answers, its option checks, and
 * its faults.
 */
export const providerSuite = (p: ProtocolCase): void => {
  const call = async (
    handle: Handler,
    options: ProviderOptions = {},
    onDelta?: (d: ModelDelta) => void,
  ) => {
    const s = await serve(handle)
    const all = { baseUrl: s.url, ...options }
    const response = await p.provider(all).call(roundTrip, {
      signal: signal(),
      ...(onDelta && { onDelta }),
    })
    return { response, sent: s.received[0]?.body, body: p.body(roundTrip, all) }
  }
  const failing = (handle: Handler, options: ProviderOptions = {}) =>
    failureOf(call(handle, options))

  it('posts the body of its request mapping, and maps the whole answer, priced and frozen', async () => {
    const { response, sent, body } = await call(answering(p.answer), { pricing: p.pricing })
    expect(sent).toEqual(body)
    expect(response).toEqual({ ...p.expected, cost: p.cost })
    expect(Object.isFrozen(response)).toBe(true)
    expect(Object.isFrozen(response.content)).toBe(true)
    expect(Object.isFrozen(response.content[0])).toBe(true)
  })

  it('gives the same response for the streamed answer, and the deltas in order', async () => {
    const deltas: ModelDelta[] = []
    const options = { stream: true, pricing: p.pricing }
    const { response, sent, body } = await call(streaming(p.stream), options, (d) => deltas.push(d))
    expect(sent).toEqual(body)
    expect(response).toEqual({ ...p.expected, cost: p.cost })
    expect(deltas).toEqual(p.deltas)
  })

  it('reads a stream split across arbitrary chunk boundaries', async () => {
    const text = wire(p.stream, '\r\n')
    const split: Handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (let i = 0; i < text.length; i += 7) {
        res.write(text.slice(i, i + 7))
        await new Promise((resolve) => setImmediate(resolve))
      }
      res.end()
    }
    const deltas: ModelDelta[] = []
    const { response } = await call(split, { stream: true }, (d) => deltas.push(d))
    expect(response).toEqual(p.expected)
    expect(deltas).toEqual(p.deltas)
  })

  it.each<[string, ProviderOptions]>([
    ['timeoutMs', { timeoutMs: 0 }],
    ['baseUrl', { baseUrl: 'not a url' }],
    ['maxTokens', { maxTokens: 1.5 }],
    ['pricing.inputPerMTok', { pricing: { inputPerMTok: -1, outputPerMTok: 1 } }],
  ])('refuses a bad options.%s, naming it', (name, options) => {
    expect(() => p.provider(options)).toThrow(UsageError)
    expect(() => p.provider(options)).toThrow(`options.${name}`)
  })

  it.each([
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
  ])('status %i is a ProviderHttpError, retryable: %s', async (status, retryable) => {
    const e = await failing(answering(p.errorBody, status))
    expect(e).toBeInstanceOf(ProviderHttpError)
    expect(e).toMatchObject({ status, retryable, provider: p.name })
    expect((e as ProviderHttpError).body).toBe(JSON.stringify(p.errorBody))
  })

  it('429 with Retry-After: 2 is retryable after 2000 ms', async () => {
    const e = await failing(answering(p.errorBody, 429, { 'retry-after': '2' }))
    expect(e).toMatchObject({
      _tag: 'ProviderHttpError',
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
    })
  })

  it('a body that is not JSON is malformed at the root', async () => {
    const e = await failing((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<html>oops</html>')
    })
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: '', retryable: false, provider: p.name })
  })

  it('a field of the wrong type is malformed at its path', async () => {
    const e = await failing(answering(p.wrongField.body))
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: p.wrongField.path, retryable: false })
  })

  it('an event that is not JSON is malformed at its index', async () => {
    const e = await failing(streaming([p.stream[0]!, { data: '{oops' }]), { stream: true })
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: p.eventPath(1) })
  })

  it('an event with a field of the wrong type is malformed at its index and field', async () => {
    const e = await failing(streaming(p.wrongEvent.events), { stream: true })
    expect(e).toBeInstanceOf(ProviderMalformed)
    expect(e).toMatchObject({ path: p.wrongEvent.path })
  })

  it('an error event is a ProviderHttpError with the status it stands for', async () => {
    const e = await failing(streaming(p.errorEvent.events), { stream: true })
    expect(e).toBeInstanceOf(ProviderHttpError)
    expect(e).toMatchObject({ status: p.errorEvent.status, retryable: true })
  })

  it('a stream that ends before its end event is cut', async () => {
    const e = await failing(streaming(p.stream.slice(0, -1)), { stream: true })
    expect(e).toBeInstanceOf(ProviderStreamCut)
    expect(e).toMatchObject({ retryable: true })
  })

  it('a connection dropped mid-stream is cut, after the deltas that came', async () => {
    const deltas: ModelDelta[] = []
    const dropped: Handler = (_req, res) => {
      sse(res, p.stream.slice(0, -1), true)
    }
    const e = await failureOf(call(dropped, { stream: true }, (d) => deltas.push(d)))
    expect(e).toBeInstanceOf(ProviderStreamCut)
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas).toEqual(p.deltas.slice(0, deltas.length))
  })

  it('a server that never answers is a timeout', async () => {
    const e = await failing(() => undefined, { timeoutMs: 100 })
    expect(e).toBeInstanceOf(ProviderTimeout)
  })

  it('a stream that stalls is a timeout', async () => {
    const stall: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(wire(p.stream.slice(0, 1)))
    }
    const e = await failing(stall, { stream: true, timeoutMs: 100 })
    expect(e).toBeInstanceOf(ProviderTimeout)
  })

  it('aborting before the headers rejects with the reason', async () => {
    const controller = new AbortController()
    const reason = new Error('user stop')
    const s = await serve(() => {
      controller.abort(reason)
    })
    const work = p.provider({ baseUrl: s.url }).call(roundTrip, { signal: controller.signal })
    expect(await failureOf(work)).toBe(reason)
  })

  it('aborting mid-stream rejects with the reason', async () => {
    const controller = new AbortController()
    const reason = new Error('user stop')
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(wire(p.stream.slice(0, -1)))
    })
    const work = p.provider({ baseUrl: s.url, stream: true }).call(roundTrip, {
      signal: controller.signal,
      onDelta: () => {
        controller.abort(reason)
      },
    })
    expect(await failureOf(work)).toBe(reason)
  })
}

/** A function call or a function output in a request body, by its id. */
export type Step = { readonly call: string } | { readonly output: string }

/** The law {@link requestLaw} checks of one protocol's request mapping. */
export interface RequestLaw<B> {
  readonly map: (request: ModelRequest) => B
  /** The function calls and outputs of a body, in order. */
  readonly steps: (body: B) => readonly Step[]
  /** What else holds of every body in this protocol, and its name in the test's. */
  readonly also: { readonly name: string; readonly check: (body: B) => void }
}

/**
 * Registers the property every request mapping must have: for any
 * conversation, it never throws, its body survives JSON, and every function
 * output follows the call with its id — and the protocol's own law.
 */
export const requestLaw = <B>(law: RequestLaw<B>): void => {
  it(`for any conversation, never throws, builds JSON, sends every function output after its call, and ${law.also.name}`, () => {
    fc.assert(
      fc.property(conversation(), (c) => {
        const body = law.map({
          system: systemPrompt(c),
          messages: messages(c),
          tools: toolDefinitions(c),
        })
        expect(JSON.parse(JSON.stringify(body))).toEqual(body)
        const called = new Set<string>()
        for (const step of law.steps(body)) {
          if ('call' in step) called.add(step.call)
          else expect(called).toContain(step.output)
        }
        law.also.check(body)
      }),
    )
  })
}
