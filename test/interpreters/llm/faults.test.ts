import type { ServerResponse } from 'node:http'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  type Block,
  type Conversation,
  empty,
  messages,
  type Provider,
  system,
  type Tool,
  toolbox,
  user,
} from 'nerve-agents'
import {
  AgentFailed,
  type AgentOptions,
  ProviderHttpError,
  ProviderMalformed,
  type ProviderOptions,
  ProviderStreamCut,
  ProviderTimeout,
  type RetryNotice,
  runAgent,
} from 'nerve-agents/interpreters'
import { fakeClock } from 'nerve-agents/testing'
import { anthropicCase } from './fixtures/anthropic.js'
import { geminiCase } from './fixtures/gemini.js'
import { chatCase } from './fixtures/openaiChat.js'
import { responsesCase } from './fixtures/openaiResponses.js'
import type { ProtocolCase } from './providerKit.js'
import { json, sse, sseText, startServer, type StreamEvent, type TestServer } from './server.js'

// End-to-end faults: the agent loop over the real HTTP providers, against a
// local server that fails on purpose.

const protocols: readonly ProtocolCase[] = [anthropicCase, responsesCase, chatCase, geminiCase]

/** The protocol's provider, at the test server. */
const providerOf = (p: ProtocolCase, s: TestServer, options: ProviderOptions): Provider =>
  p.provider({ baseUrl: s.url, ...options })

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
  (list: readonly StreamEvent[], cut = false): Respond =>
  (res) => {
    sse(res, list, cut)
  }
/** Sends the headers and the first events, then nothing more. */
const stallAfter =
  (list: readonly StreamEvent[]): Respond =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(sseText(list))
  }
const never: Respond = () => undefined
/** The protocol's answer saying `text`, streamed or whole. */
const good = (p: ProtocolCase, stream: boolean, text: string): Respond =>
  stream ? events(p.saysStreamed(text)) : body(p.says(text))

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
      const { result, retries, clock } = run(providerOf(p, s, { stream }))
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
      const cut = p.saysStreamed('Half an answer').slice(0, -1)
      const s = await serve(events(cut, broken), good(p, true, 'The whole answer.'))
      const deltas: string[] = []
      const { result, retries } = run(providerOf(p, s, { stream: true }), {
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
        ? events([...p.saysStreamed('Hi').slice(0, 1), { data: '{oops' }])
        : (res) => {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end('<html>Bad Gateway</html>')
          }
      const s = await serve(notJson, good(p, stream, 'too late'))
      const { result, retries } = run(providerOf(p, s, { stream }))
      const e = await failure(result)
      expect(e.cause).toBeInstanceOf(ProviderMalformed)
      expect(s.received).toHaveLength(1)
      expect(retries).toEqual([])
      endsWholeInError(e.conversation)
      expect(messages(e.conversation).map((m) => m.role)).toEqual(['user'])
    },
  )

  it('fails at once on an answer with a field of the wrong type, neither recording nor running its tool call', async () => {
    const s = await serve(body(p.wrongField.body), good(p, false, 'too late'))
    const { result, retries, pinged } = run(providerOf(p, s, { stream: false }))
    const e = await failure(result)
    expect(e.cause).toBeInstanceOf(ProviderMalformed)
    expect(e.cause).toMatchObject({ path: p.wrongField.path })
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
      const stall = stream ? stallAfter(p.saysStreamed('Never finished').slice(0, 2)) : never
      const s = await serve((res) => {
        closed = new Promise((resolve) => res.on('close', resolve))
        stall(res)
        setTimeout(() => {
          controller.abort()
        }, 20)
      })
      const { result, retries } = run(providerOf(p, s, { stream }), { signal: controller.signal })
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
    const { result, retries } = run(providerOf(p, s, { stream: false }), {
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
    const s = await serve(body(p.callsPing), status(500))
    const { result, retries, clock, pinged } = run(providerOf(p, s, { stream: false }))
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
    const { result, retries } = run(providerOf(p, s, { stream: false }), {
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
      const stall = stream ? stallAfter(p.saysStreamed('Slow').slice(0, 1)) : never
      const s = await serveWith(finished)(stall)
      const { result, retries } = run(providerOf(p, s, { stream, timeoutMs: 100 }), {
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
