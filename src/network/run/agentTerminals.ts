/**
 * The terminals of a network run's command-line agent nodes: each runs in
 * a home of its own (or the user's config) and calls its model through a
 * proxy the run owns, which counts the node's exact usage into its
 * firings, refuses calls past what is left of its budgets, and keeps the
 * calls for the trace and for a tape.
 *
 * @internal
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  anthropicMessages,
  geminiProtocol,
  openAgentPty,
  openaiResponsesProtocol,
  openClaudePty,
  openPty,
  startModelProxy,
  terminalInterpreter,
  type Approvals,
  type ModelProxy,
  type ParsedResponse,
  type ProxyBudget,
  type ProxyCall,
  type ProxyUpstream,
  type Terminal,
  type TerminalInterpreter,
} from '../../interpreters/index.js'
import { claudeWezterm, forkPty, type NodeContext, type PtyNode } from '../../node/index.js'
import { LiveHandles, type Budget } from '../../runtime/index.js'
import type { CliAgent, CliProvider, NetworkNode } from '../model/Network.js'
import type { NetworkAgentOptions } from './runOptions.js'

/**
 * A CLI agent node's answer: what its parser read, and the model calls the
 * firing made (in the trace and on a recording with the rest of the output).
 *
 * @category network run
 */
export interface AgentAnswer extends ParsedResponse {
  readonly modelCalls: readonly ProxyCall[]
}

/** Each program's own API, and the variable and header its key goes in. */
const ownApi: Readonly<
  Record<CliAgent, { readonly baseUrl: string; readonly key: string; readonly header: string }>
> = {
  'claude-cli': {
    baseUrl: 'https://api.anthropic.com',
    key: 'ANTHROPIC_API_KEY',
    header: 'x-api-key',
  },
  'codex-cli': {
    baseUrl: 'https://api.openai.com',
    key: 'OPENAI_API_KEY',
    header: 'authorization',
  },
  'gemini-cli': {
    baseUrl: 'https://generativelanguage.googleapis.com',
    key: 'GEMINI_API_KEY',
    header: 'x-goog-api-key',
  },
}

/** A forward to `baseUrl` carrying the run's key for `agent`'s API, when it has one. */
const forwardTo = (agent: CliAgent, baseUrl: string): ProxyUpstream => {
  const api = ownApi[agent]
  const key = process.env[api.key]
  if (key === undefined || key === '') return { _tag: 'forward', baseUrl }
  const value = api.header === 'authorization' ? `Bearer ${key}` : key
  return { _tag: 'forward', baseUrl, headers: { [api.header]: value } }
}

/** What a node's calls added up to, as the network counts them. */
interface Counted {
  calls: number
  tokens: number
  cost: number
}

const tokensOf = (c: ProxyCall): number =>
  c.response.usage.input_tokens + c.response.usage.output_tokens

/**
 * The CLI agents of one network run: the `pty` interpreter its nodes step
 * with, the proxies and homes it owns.
 *
 * @internal
 */
export class AgentTerminals {
  /** Steps `pty` nodes: a CLI agent node's on its agent terminal, any other on a plain PTY. */
  readonly interpreter: TerminalInterpreter<PtyNode>
  /**
   * The terminals the firings start themselves (of nodes the run's session
   * does not start): kept across firings, stopped by {@link AgentTerminals.close}.
   */
  readonly handles: LiveHandles
  readonly #options: NetworkAgentOptions
  /** How the agents' permission prompts are answered: the options', else the run's approvals. */
  readonly #approvals: Approvals | undefined
  readonly #nodeOf: (id: string) => NetworkNode | undefined
  /** Proxies by upstream (`run`, or `<agent> <forward URL>`), started on first need. */
  readonly #proxies = new Map<string, Promise<ModelProxy>>()
  /** The proxy of each prepared node. */
  readonly #proxyOf = new Map<string, ModelProxy>()
  /** Per node: its calls the network counted so far. */
  readonly #counted = new Map<string, Counted>()
  /** Per node: what the proxy lets it spend, in the proxy's running totals. */
  readonly #limits = new Map<string, ProxyBudget>()
  #homes: string | undefined
  #closed = false

  constructor(
    options: NetworkAgentOptions,
    nodeOf: (id: string) => NetworkNode | undefined,
    onPermission?: NonNullable<Approvals['onRequest']>,
    onRespawn?: (nodeId: string) => void,
  ) {
    this.handles = new LiveHandles({ onRespawn: (node) => onRespawn?.(node.id) })
    this.#options = options
    this.#approvals =
      options.approvals?.onRequest !== undefined || onPermission === undefined
        ? options.approvals
        : { ...options.approvals, onRequest: onPermission }
    this.#nodeOf = nodeOf
    this.#homes = options.homes
    const base = terminalInterpreter<PtyNode>('pty', (node) => this.#open(node), forkPty)
    const counted = (node: PtyNode, ctx: NodeContext, r: ParsedResponse): ParsedResponse =>
      this.#proxyOf.has(node.id) ? this.#count(node.id, ctx, r) : r
    const stream = async function* (node: PtyNode, ctx: NodeContext) {
      const r = (yield* base.executeStream!(node, ctx)) as ParsedResponse
      return counted(node, ctx, r)
    }
    this.interpreter = Object.freeze({
      ...base,
      execute: async (node: PtyNode, ctx: NodeContext) =>
        counted(node, ctx, (await base.execute!(node, ctx)) as ParsedResponse),
      executeStream: stream,
    })
  }

  /**
   * Makes ready what `node`'s next firing needs: its proxy started, and
   * (given the firing's `budget`: what is left of every budget it counts
   * against) the most the proxy lets it spend in that firing.
   */
  async prepare(node: NetworkNode, budget?: Budget): Promise<void> {
    const p = node.provider
    if (p.type !== 'cli') return
    const proxy = await this.#proxy(p)
    this.#proxyOf.set(node.id, proxy)
    const c = this.#counted.get(node.id) ?? { calls: 0, tokens: 0, cost: 0 }
    const room = (max: number | undefined, used: number): number | undefined =>
      max === undefined || max === Infinity ? undefined : used + max
    const maxCalls = room(budget?.maxApiCalls, c.calls)
    const maxTokens = room(budget?.maxTokens, c.tokens)
    const maxCost = room(budget?.maxCost, c.cost)
    this.#limits.set(node.id, {
      ...(maxCalls !== undefined && { maxCalls }),
      ...(maxTokens !== undefined && { maxTokens }),
      ...(maxCost !== undefined && { maxCost }),
    })
  }

  /** Every model call of the run's agents so far, in the order answered (a tape to replay). */
  calls(): readonly ProxyCall[] {
    const all = [...new Set(this.#proxyOf.values())].flatMap((p) => p.calls())
    return all.sort((a, b) => a.at.localeCompare(b.at))
  }

  /** Stops every terminal, closes the proxies, removes homes the run made. */
  async close(): Promise<void> {
    await this.handles.stopAll()
    if (this.#closed) return
    this.#closed = true
    const proxies = await Promise.allSettled([...this.#proxies.values()])
    await Promise.all(
      proxies.map((p) => (p.status === 'fulfilled' ? p.value.close() : Promise.resolve())),
    )
    if (this.#homes !== undefined && this.#options.homes === undefined)
      rmSync(this.#homes, { recursive: true, force: true })
  }

  #proxy(p: CliProvider): Promise<ModelProxy> {
    const given = this.#options.upstream
    const replay = given?._tag === 'replay'
    const key =
      p.forward !== undefined && !replay
        ? `${p.agent} ${p.forward}`
        : given !== undefined
          ? 'run'
          : `${p.agent} ${ownApi[p.agent].baseUrl}`
    let proxy = this.#proxies.get(key)
    if (proxy === undefined) {
      const upstream =
        key === 'run' ? given! : forwardTo(p.agent, p.forward ?? ownApi[p.agent].baseUrl)
      proxy = startModelProxy({
        protocols: [anthropicMessages, openaiResponsesProtocol, geminiProtocol],
        upstream,
        budget: (agent) => this.#limits.get(agent),
        ...(this.#options.pricing !== undefined && { pricing: this.#options.pricing }),
        ...(this.#options.onCall !== undefined && { onCall: this.#options.onCall }),
      })
      this.#proxies.set(key, proxy)
    }
    return proxy
  }

  /** Adds the node's calls not counted yet to the firing's usage and its answer. */
  #count(nodeId: string, ctx: NodeContext, r: ParsedResponse): AgentAnswer {
    const c = this.#counted.get(nodeId) ?? { calls: 0, tokens: 0, cost: 0 }
    this.#counted.set(nodeId, c)
    const fresh = this.#proxyOf.get(nodeId)!.calls(nodeId).slice(c.calls)
    const tokens = fresh.reduce((n, call) => n + tokensOf(call), 0)
    const cost = fresh.reduce((n, call) => n + (call.response.cost ?? 0), 0)
    c.calls += fresh.length
    c.tokens += tokens
    c.cost += cost
    ctx.reportUsage({ tokens, apiCalls: fresh.length, cost })
    return Object.freeze({ ...r, modelCalls: Object.freeze(fresh) })
  }

  #home(nodeId: string): string {
    this.#homes ??= mkdtempSync(join(tmpdir(), 'nerve-agents-'))
    const home = join(this.#homes, nodeId)
    mkdirSync(home, { recursive: true })
    return home
  }

  #open(node: PtyNode): Terminal {
    const p = this.#nodeOf(node.id)?.provider
    const proxy = this.#proxyOf.get(node.id)
    if (p?.type !== 'cli' || proxy === undefined) return openPty(node)
    const home = this.#home(node.id)
    const common = {
      proxy,
      ...(p.ownConfig === true && { ownConfig: true }),
      ...(this.#approvals !== undefined && { approvals: this.#approvals }),
    }
    if (p.agent === 'claude-cli') {
      const claude = claudeWezterm(node.id, {
        ...(node.cwd !== undefined && { cwd: node.cwd }),
        ...(p.command !== undefined && { claude: p.command }),
        args: [...(p.model === undefined ? [] : ['--model', p.model]), ...(p.args ?? [])],
        ...(node.timeoutMs !== undefined && { timeoutMs: node.timeoutMs }),
      })
      return openClaudePty(claude, randomUUID(), home, common)
    }
    return openAgentPty(p.agent === 'codex-cli' ? 'codex' : 'gemini', node, {
      ...common,
      home,
      ...(p.model !== undefined && { model: p.model }),
    })
  }
}
