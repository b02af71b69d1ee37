import fc from 'fast-check'
import { expect, it, onTestFinished, vi } from 'vitest'
import { messages, systemPrompt, toolDefinitions, UsageError } from 'nerve-agents'
import { conversation } from 'nerve-agents/testing'
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
import { roundTrip } from './fixtures/requests.js'
import {
  answering,
  failureOf,
  serve,
  signal,
  sse,
  sseText,
  streaming,
  type Handler,
  type StreamEvent,
} from './server.js'

// What the tests of the HTTP providers share: the suites every protocol must
// pass, and the helpers their own tests use. The server they run against is
// in server.ts, the requests they send in fixtures/requests.ts, and each
// protocol's answers on the wire in fixtures/<protocol>.ts.

/** Sets an environment variable for the running test (`undefined` unsets it). */
export const stubEnv = (name: string, value: string | undefined): void => {
  vi.stubEnv(name, value)
  onTestFinished(() => {
    vi.unstubAllEnvs()
  })
}

/**
 * The path of the ProviderMalformed that `decode` throws for `body`; the
 * test fails if it throws none, or another error, or a retryable one.
 */
export const malformedPath =
  (decode: (body: unknown) => unknown) =>
  (body: unknown): string => {
    try {
      decode(body)
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderMalformed)
      expect((e as ProviderMalformed).retryable).toBe(false)
      return (e as ProviderMalformed).path
    }
    return expect.fail('decoded without an error')
  }

/** `text` in two pieces, the first the longer by at most one character. */
export const halves = (text: string): readonly [string, string] => {
  const i = Math.ceil(text.length / 2)
  return [text.slice(0, i), text.slice(i)]
}

/**
 * The deltas of a streamed answer that thinks in the `thinking` pieces,
 * writes the `text` pieces, then calls `read` once for each id in `calls`.
 */
export const readingDeltas = (
  thinking: readonly string[],
  text: readonly string[],
  calls: readonly string[],
): readonly ModelDelta[] => [
  ...thinking.map((t): ModelDelta => ({ type: 'thinking', text: t })),
  ...text.map((t): ModelDelta => ({ type: 'text', text: t })),
  ...calls.map((id): ModelDelta => ({ type: 'tool_use', id, name: 'read' })),
]

/**
 * One protocol, as {@link providerSuite} and the agent-level fault tests use
 * it: its provider and answers in its shapes (each in fixtures/<protocol>.ts).
 */
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
  /**
   * A whole answer that asks for the `ping` tool, then has a field of the
   * wrong type; and that field's path.
   */
  readonly wrongField: { readonly body: unknown; readonly path: string }
  /** A stream with an event with a field of the wrong type, and the path of that field. */
  readonly wrongEvent: { readonly events: readonly StreamEvent[]; readonly path: string }
  /** A stream that ends with the protocol's error event for a server error, and its HTTP status. */
  readonly errorEvent: { readonly events: readonly StreamEvent[]; readonly status: number }
  /** A whole answer that says `text` and ends the turn. */
  readonly says: (text: string) => unknown
  /** The same answer streamed, `text` in two pieces; its last event is the protocol's end event. */
  readonly saysStreamed: (text: string) => readonly StreamEvent[]
  /** A whole answer that asks for the `ping` tool, with no input. */
  readonly callsPing: unknown
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
    const text = sseText(p.stream, '\r\n')
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
      res.write(sseText(p.stream.slice(0, 1)))
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
      res.write(sseText(p.stream.slice(0, -1)))
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
