import { randomBytes } from 'node:crypto'
import { createServer, request as httpRequest, Agent as HttpAgent } from 'node:http'
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https'
import type { AddressInfo } from 'node:net'
import { Stopped, taggedError, UsageError } from '../../../errors.js'
import { withCost, type Pricing } from '../../llm/httpProvider.js'
import type { ModelResponse, Provider } from '../../llm/Provider.js'
import { ProviderHttpError } from '../../llm/ProviderError.js'
import { addUsage, noUsage, type AgentUsage, type ProxyCall } from './ProxyCall.js'
import {
  ProxyRequestInvalid,
  type DecodedCall,
  type EncodedResponse,
  type ProxyProtocol,
} from './ProxyProtocol.js'

/**
 * A replayed agent asked for a model call its tape does not have.
 *
 * @category proxy
 */
export class TapeExhausted extends taggedError('TapeExhausted', 'failed')<{
  readonly agent: string
  readonly index: number
}> {
  constructor(agent: string, index: number) {
    super(`Nerve: the tape has no call ${index} of agent "${agent}"`, { agent, index })
  }
}

/**
 * Where the model proxy gets its answers: a Nerve {@link Provider} (a
 * scripted one in tests, any real one), the real API (`forward`: every
 * request passes through unchanged, streamed as it comes, `headers` added
 * — e.g. the real key, so the agent holds only a throwaway one), or a tape
 * of recorded calls (`replay`: each agent's calls answered in the order
 * they were recorded, no API at all).
 *
 * @category proxy
 */
export type ProxyUpstream =
  | { readonly _tag: 'provider'; readonly provider: Provider }
  | {
      readonly _tag: 'forward'
      readonly baseUrl: string
      readonly headers?: Readonly<Record<string, string>>
    }
  | { readonly _tag: 'replay'; readonly calls: readonly ProxyCall[] }

/**
 * The most one agent may spend through the proxy; a call past any of them
 * is refused (in the protocol's error shape, status 400), not sent.
 *
 * @category proxy
 */
export interface ProxyBudget {
  readonly maxCalls?: number
  /** Input plus output tokens, as the API reported them. */
  readonly maxTokens?: number
  readonly maxCost?: number
}

/**
 * Options of {@link startModelProxy}.
 *
 * @category proxy
 */
export interface ModelProxyOptions {
  /** The protocols it speaks (one module each, e.g. {@link anthropicMessages}). */
  readonly protocols: readonly ProxyProtocol[]
  readonly upstream: ProxyUpstream
  /**
   * Per agent: one budget for every agent, or a function giving each
   * agent's (asked on each of its calls, so it may change as a run goes).
   * Default: none.
   */
  readonly budget?: ProxyBudget | ((agent: string) => ProxyBudget | undefined)
  /** Prices per million tokens, for calls whose answer has no cost. */
  readonly pricing?: Pricing
  /** Called with each call once its answer went out (the trace, a tape). */
  readonly onCall?: (call: ProxyCall) => void
  /** Loopback port. Default: any free one. */
  readonly port?: number
}

/**
 * A running model proxy, on loopback.
 *
 * @category proxy
 */
export interface ModelProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** The base URL to give agent `agent` (its calls are counted apart): `<url>/agents/<agent>`. */
  baseUrl(agent: string): string
  /**
   * The API key to give agent `agent`: made for it on first ask, random,
   * good for this proxy only. A request counts as the agent whose key it
   * carries (`x-api-key`, `x-goog-api-key`, `Authorization: Bearer`, or a
   * `key` query parameter); one with no key the proxy made is refused.
   */
  key(agent: string): string
  /** What agent `agent`'s calls cost so far. */
  usage(agent: string): AgentUsage
  /** The calls so far, in the order their answers went out (of one agent, when given). */
  calls(agent?: string): readonly ProxyCall[]
  /** Stops listening and ends open connections. */
  close(): Promise<void>
}

const AGENT_PATH = /^\/agents\/([^/?]+)(\/.*)?$/

/** The agent a request's path names (none without the prefix; undefined when it cannot be read), and the path without the prefix. */
const route = (
  url: string,
): { readonly named: string | null | undefined; readonly path: string } => {
  const m = AGENT_PATH.exec(url)
  if (m === null) return { named: null, path: url }
  let named: string | undefined
  try {
    named = decodeURIComponent(m[1]!)
  } catch {
    named = undefined
  }
  return { named, path: m[2] ?? '/' }
}

/** The most bytes of a request body: a model call's history is far less. */
const MAX_BODY = 16 * 1024 * 1024

/** The body, or undefined once it passed {@link MAX_BODY} (the rest is not read). */
const readBody = (req: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (c: Buffer): void => {
      size += c.length
      if (size <= MAX_BODY) {
        chunks.push(c)
        return
      }
      req.off('data', onData)
      req.pause()
      resolve(undefined)
    }
    req.on('data', onData)
    req.on('end', () => {
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
    req.on('error', reject)
  })

/** The key a request carries, in any of the places the protocols put one. */
const keyOf = (req: IncomingMessage): string | undefined => {
  const h = req.headers
  const header = (name: string): string | undefined => {
    const v = h[name]
    return typeof v === 'string' && v !== '' ? v : undefined
  }
  return (
    header('x-api-key') ??
    header('x-goog-api-key') ??
    /^Bearer\s+(\S+)$/i.exec(header('authorization') ?? '')?.[1] ??
    new URL(req.url ?? '/', 'http://proxy').searchParams.get('key') ??
    undefined
  )
}

/**
 * How every key a proxy makes ends. Claude Code approves a key by its last
 * 20 characters: one approval in a home covers the keys of every agent
 * that shares it (a node and its forks). The 43 random characters before
 * it are the secret.
 */
const KEY_END = '-nerve-proxy-key-0AA'

/** Headers and a query parameter that carry an agent's key: not passed on (the upstream's own are). */
const KEY_HEADERS = new Set(['x-api-key', 'x-goog-api-key', 'authorization'])

/** A request the proxy passes through in `forward` mode besides model calls: one that spends nothing. */
const isFree = (method: string, path: string): boolean =>
  method === 'GET' || method === 'HEAD' || /count_?tokens|:countTokens/i.test(path)

const send = (res: ServerResponse, out: EncodedResponse): void => {
  res.writeHead(out.status, { 'content-type': out.contentType })
  for (const chunk of out.chunks) res.write(chunk)
  res.end()
}

/** Answers `status` with `{ error: message }` and closes the connection. */
const refuse = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' })
  res.end(JSON.stringify({ error: message }))
}

const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade'])

class Proxy implements ModelProxy {
  url = ''
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) refuse(res, 500, e instanceof Error ? e.message : String(e))
      else res.destroy()
    })
  })
  /** The names the proxy answers to: loopback, with its port. */
  private hosts = new Set<string>()
  /** The agent each key was made for, and each agent's key. */
  private readonly agentOf = new Map<string, string>()
  private readonly keys = new Map<string, string>()
  private readonly spent = new Map<string, AgentUsage>()
  private readonly made: ProxyCall[] = []
  /** Per agent, the index of its next call. */
  private readonly next = new Map<string, number>()
  private readonly tape = new Map<string, ProxyCall[]>()
  private readonly httpAgent = new HttpAgent({ keepAlive: true })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true })

  constructor(private readonly options: ModelProxyOptions) {
    if (options.upstream._tag === 'replay') {
      for (const call of options.upstream.calls) {
        const list = this.tape.get(call.agent) ?? []
        list.push(call)
        this.tape.set(call.agent, list)
      }
      for (const list of this.tape.values()) list.sort((a, b) => a.index - b.index)
    }
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      // A request has its headers 10 s after it began and its body within 30 s (a model call's is at hand).
      this.server.headersTimeout = 10_000
      this.server.requestTimeout = 30_000
      this.server.listen(port, '127.0.0.1', () => {
        const { port: bound } = this.server.address() as AddressInfo
        this.url = `http://127.0.0.1:${bound}`
        this.hosts = new Set(['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${bound}`))
        resolve()
      })
    })
  }

  baseUrl(agent: string): string {
    return `${this.url}/agents/${encodeURIComponent(agent)}`
  }

  key(agent: string): string {
    let key = this.keys.get(agent)
    if (key === undefined) {
      // Shaped as an Anthropic key (Claude Code reads it as one); any client sends it as it is.
      key = `sk-ant-api03-${randomBytes(32).toString('base64url')}${KEY_END}`
      this.keys.set(agent, key)
      this.agentOf.set(key, agent)
    }
    return key
  }

  /**
   * The agent a request is from, or why it is refused: a name other than
   * its own loopback one (a page that rebound a name of its own to it), a
   * page's origin, no key of the proxy's, a path naming another agent.
   */
  private from(req: IncomingMessage, named: string | null | undefined): string | [number, string] {
    if (!this.hosts.has(req.headers.host ?? ''))
      return [403, 'Nerve: a request to another host name']
    if (req.headers.origin !== undefined) return [403, 'Nerve: a request from a web page']
    const key = keyOf(req)
    const agent = key === undefined ? undefined : this.agentOf.get(key)
    if (agent === undefined) return [401, 'Nerve: no key this proxy gave an agent']
    if (named === undefined || (named !== null && named !== agent))
      return [403, `Nerve: the key is agent "${agent}"'s, the path names another`]
    return agent
  }

  usage(agent: string): AgentUsage {
    return this.spent.get(agent) ?? noUsage
  }

  calls(agent?: string): readonly ProxyCall[] {
    return agent === undefined ? [...this.made] : this.made.filter((c) => c.agent === agent)
  }

  close(): Promise<void> {
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve()
      })
      this.server.closeAllConnections()
    })
  }

  private refusal(agent: string): string | undefined {
    const given = this.options.budget
    const budget = typeof given === 'function' ? given(agent) : given
    if (budget === undefined) return undefined
    const u = this.usage(agent)
    const tokens = u.usage.input_tokens + u.usage.output_tokens
    if (budget.maxCalls !== undefined && u.calls >= budget.maxCalls)
      return `${u.calls} calls of ${budget.maxCalls}`
    if (budget.maxTokens !== undefined && tokens >= budget.maxTokens)
      return `${tokens} tokens of ${budget.maxTokens}`
    if (budget.maxCost !== undefined && u.cost >= budget.maxCost)
      return `a cost of ${u.cost} of ${budget.maxCost}`
    return undefined
  }

  private count(agent: string, change: (u: AgentUsage) => AgentUsage): void {
    this.spent.set(agent, Object.freeze(change(this.usage(agent))))
  }

  private record(
    agent: string,
    protocol: ProxyProtocol,
    call: DecodedCall,
    response: ModelResponse,
    began: number,
    index: number,
  ): void {
    const priced = response.cost === undefined ? withCost(response, this.options.pricing) : response
    this.count(agent, (u) => ({
      ...u,
      calls: u.calls + 1,
      usage: addUsage(u.usage, priced.usage),
      cost: u.cost + (priced.cost ?? 0),
    }))
    const done: ProxyCall = Object.freeze({
      agent,
      protocol: protocol.name,
      index,
      request: call.request,
      response: priced,
      at: new Date(performance.timeOrigin + began).toISOString(),
      ms: performance.now() - began,
    })
    this.made.push(done)
    this.options.onCall?.(done)
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const began = performance.now()
    const { named, path } = route(req.url ?? '/')
    const method = req.method ?? 'GET'
    const protocol = this.options.protocols.find((p) => p.isModelCall(method, path))
    // In the protocol's error shape when it is a model call: the agent shows the message.
    const no = (status: number, message: string): void => {
      if (protocol === undefined) {
        refuse(res, status, message)
        return
      }
      res.setHeader('connection', 'close')
      send(res, protocol.error(status, message))
    }
    const agent = this.from(req, named)
    if (typeof agent !== 'string') {
      no(...agent)
      return
    }
    const raw = await readBody(req)
    if (raw === undefined) {
      no(413, `Nerve: a body over ${MAX_BODY} bytes`)
      return
    }
    const { upstream } = this.options
    if (protocol === undefined) {
      if (upstream._tag === 'forward') {
        if (isFree(method, path)) return this.forward(req, res, path, raw, undefined)
        refuse(res, 403, `Nerve: ${method} ${path} is not a model call the proxy counts`)
        return
      }
      let body: unknown
      try {
        body = parseJson(raw)
      } catch (e) {
        refuse(res, 400, `Nerve: the body is not JSON: ${(e as Error).message}`)
        return
      }
      for (const p of this.options.protocols) {
        const out = p.aside?.(method, path, body)
        if (out !== undefined) {
          send(res, out)
          return
        }
      }
      refuse(res, 404, `no model call at ${method} ${path}`)
      return
    }
    let call: DecodedCall
    try {
      call = protocol.decode(parseJson(raw), path)
    } catch (e) {
      if (e instanceof ProxyRequestInvalid || e instanceof SyntaxError) {
        send(res, protocol.error(400, e.message))
        return
      }
      throw e
    }
    const refused = this.refusal(agent)
    if (refused !== undefined) {
      this.count(agent, (u) => ({ ...u, refused: u.refused + 1 }))
      send(res, protocol.error(400, `Nerve: agent "${agent}" is over its budget (${refused})`))
      return
    }
    const index = this.next.get(agent) ?? 0
    this.next.set(agent, index + 1)
    if (upstream._tag === 'forward') {
      return this.forward(req, res, path, raw, { protocol, call, began, agent, index })
    }
    const id = `msg_nerve_${index}_${agent.replace(/[^\w-]/g, '_')}`
    let response: ModelResponse
    try {
      response = await this.answer(upstream, agent, index, call, res)
    } catch (e) {
      const status = e instanceof ProviderHttpError ? e.status : 502
      send(res, protocol.error(status, e instanceof Error ? e.message : String(e)))
      return
    }
    send(res, protocol.encode(response, call, id))
    this.record(agent, protocol, call, response, began, index)
  }

  private async answer(
    upstream: Exclude<ProxyUpstream, { readonly _tag: 'forward' }>,
    agent: string,
    index: number,
    call: DecodedCall,
    res: ServerResponse,
  ): Promise<ModelResponse> {
    if (upstream._tag === 'replay') {
      const recorded = this.tape.get(agent)?.find((c) => c.index === index)
      if (recorded === undefined) {
        throw new TapeExhausted(agent, index)
      }
      return recorded.response
    }
    const controller = new AbortController()
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort(new Stopped('the agent hung up'))
    }
    res.on('close', onClose)
    try {
      return await upstream.provider.call(call.request, { signal: controller.signal })
    } finally {
      res.off('close', onClose)
    }
  }

  /** Passes a request through to the real API, streaming its answer back as it comes. */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    raw: Buffer,
    model:
      | {
          readonly protocol: ProxyProtocol
          readonly call: DecodedCall
          readonly began: number
          readonly agent: string
          readonly index: number
        }
      | undefined,
  ): Promise<void> {
    const upstream = this.options.upstream as Extract<ProxyUpstream, { _tag: 'forward' }>
    const target = new URL(upstream.baseUrl.replace(/\/$/, '') + path)
    target.searchParams.delete('key')
    const headers: OutgoingHttpHeaders = {}
    for (const [k, v] of Object.entries(req.headers))
      if (!HOP_HEADERS.has(k) && !KEY_HEADERS.has(k)) headers[k] = v
    Object.assign(headers, upstream.headers, { 'content-length': raw.length })
    const secure = target.protocol === 'https:'
    const reader = model?.protocol.reader(model.call)
    return new Promise<void>((resolve, reject) => {
      const out = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: req.method ?? 'GET',
          headers,
          agent: secure ? this.httpsAgent : this.httpAgent,
        },
        (answer) => {
          const pass: Record<string, string | string[]> = {}
          for (const [k, v] of Object.entries(answer.headers)) {
            if (v !== undefined && !HOP_HEADERS.has(k)) pass[k] = v
          }
          res.writeHead(answer.statusCode ?? 502, pass)
          answer.setEncoding('utf8')
          answer.on('data', (chunk: string) => {
            res.write(chunk)
            reader?.push(chunk)
          })
          answer.on('end', () => {
            res.end()
            const response = reader?.result()
            if (model !== undefined && response !== undefined && answer.statusCode === 200) {
              this.record(
                model.agent,
                model.protocol,
                model.call,
                response,
                model.began,
                model.index,
              )
            }
            resolve()
          })
          answer.on('error', reject)
        },
      )
      out.on('error', (e) => {
        if (model !== undefined && !res.headersSent) {
          send(res, model.protocol.error(502, `Nerve: the upstream failed: ${e.message}`))
          resolve()
        } else reject(e)
      })
      out.end(raw)
    })
  }
}

const parseJson = (raw: Buffer): unknown =>
  raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'))

/**
 * Starts a model proxy: a loopback HTTP server between CLI agents and their
 * model API. Give each agent `proxy.baseUrl(name)` as its API's base URL
 * (Claude Code's `ANTHROPIC_BASE_URL`) and `proxy.key(name)` as its API key:
 * the proxy answers only requests that carry a key it made, addressed to
 * its loopback name and sent by no web page (with `forward`, the real key
 * is added upstream: nothing else on the machine may spend it), with a
 * body of at most 16 MiB. It reads each model call
 * with the protocol it matches, refuses it past the agent's budget, gets
 * the answer from its upstream (a provider, the real API, or a tape), and
 * counts the exact usage the answer reports (never an estimate read off a
 * screen). Each call is kept ({@link ModelProxy.calls}) and given to
 * `onCall`: the trace, a tape to replay with no API.
 *
 * @category proxy
 * @example
 * import { anthropicMessages, startModelProxy } from 'nerve-agents/interpreters'
 * import { scriptedProvider } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const proxy = await startModelProxy({
 *   protocols: [anthropicMessages],
 *   upstream: { _tag: 'provider', provider: scriptedProvider(['Hello']) },
 * })
 * const answer = await fetch(`${proxy.baseUrl('a')}/v1/messages`, {
 *   method: 'POST',
 *   headers: { 'x-api-key': proxy.key('a') },
 *   body: JSON.stringify({ model: 'm', max_tokens: 9, messages: [{ role: 'user', content: 'hi' }] }),
 * })
 * assert.strictEqual(((await answer.json()) as { content: { text: string }[] }).content[0]!.text, 'Hello')
 * assert.strictEqual(proxy.usage('a').calls, 1)
 * await proxy.close()
 */
export const startModelProxy = async (options: ModelProxyOptions): Promise<ModelProxy> => {
  if (options.protocols.length === 0) {
    throw new UsageError('startModelProxy', 'protocols must name at least one protocol')
  }
  const proxy = new Proxy(options)
  await proxy.listen(options.port ?? 0)
  return proxy
}
