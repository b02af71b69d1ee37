import type { Budget } from '../../runtime/index.js'
import type { Trigger } from './triggers/index.js'

export type { Trigger }

/**
 * How an edge hands envelopes to its downstream node. `queue` (the default)
 * keeps every envelope in order and drops none; `latest` keeps only the
 * newest one not yet processed and counts the ones it dropped; `debounce`
 * holds envelopes until no new one has come for `ms` milliseconds, then
 * delivers the last.
 *
 * @category network
 */
export type Delivery =
  | { readonly type: 'queue' }
  | { readonly type: 'latest' }
  | { readonly type: 'debounce'; readonly ms: number }

/**
 * A node's mode. `interactive`: fires on what it is sent (by edges, or by
 * the user through the run). `auto`: a loop — each iteration gets a `tick`
 * envelope with what is new since the last one, until a Done signal, an
 * accepted check, or a safety limit.
 *
 * @category network
 */
export type NodeMode = 'interactive' | 'auto'

/**
 * The network-wide mode: in `planning` agents may write only under `docs/`
 * and shell tools need approval; in `implementation` changes are applied,
 * the high-risk ones after approval.
 *
 * @category network
 */
export type WorkflowMode = 'planning' | 'implementation'

/**
 * The command-line agents a node can drive through a terminal.
 *
 * @category network
 */
export type CliAgent = 'claude-cli' | 'codex-cli' | 'gemini-cli'

/**
 * One reply of a mock provider's script: a text, or a turn with text and
 * tool calls (the tools run, and the next reply answers their results).
 *
 * @category network
 */
export type MockReply =
  | string
  | {
      readonly text?: string
      readonly tools?: readonly {
        readonly name: string
        readonly input: Readonly<Record<string, unknown>>
      }[]
    }

/**
 * A command-line agent node's provider: the program, and how the run
 * starts it. By default the run prepares a home of the node's own for an
 * unattended run and points the program at the run's model proxy, which
 * counts its exact usage, enforces its budget and keeps its calls.
 *
 * @category network
 */
export interface CliProvider {
  readonly type: 'cli'
  readonly agent: CliAgent
  /** The executable (a path, or a name on the PATH). Default: the installed program (see `claudeBinary`, `codexBinary`, `geminiBinary`). */
  readonly command?: string
  /** Arguments after the ones Nerve gives. */
  readonly args?: readonly string[]
  /** The model to ask for. Default: the program's (Gemini CLI: `gemini-2.5-pro`). */
  readonly model?: string
  /** Run with the user's own config (`~/.claude.json`, `~/.codex`, `~/.gemini`) instead of a home the run prepares. Default: false. */
  readonly ownConfig?: boolean
  /**
   * The API base URL the run's proxy forwards this node's calls to (e.g. a
   * gateway of your own). Default: the run's upstream (`agents.upstream`),
   * else the program's own API.
   */
  readonly forward?: string
}

/**
 * What runs a node's work. `mock`: a scripted model answering the given
 * replies in turn (deterministic; the last one repeats). `llm`: a model
 * provider the run is given by name (the API providers). `cli`: a
 * command-line agent in a terminal, read by its parser ({@link CliProvider}).
 * `command`: a shell command run in the workspace on each firing (a
 * verifier's test command).
 *
 * @category network
 */
export type ProviderSpec =
  | { readonly type: 'mock'; readonly script: readonly MockReply[] }
  | { readonly type: 'llm'; readonly provider: string; readonly model?: string }
  | CliProvider
  | { readonly type: 'command'; readonly command: string }

/**
 * A check that ends an auto node's loop when it passes: `command` run in
 * the workspace exits 0.
 *
 * @category network
 */
export interface Acceptance {
  readonly command: string
  /** Default 60 000. */
  readonly timeoutMs?: number
}

/**
 * A node of a network: frozen plain data. `role` names the template it was
 * built from (its `system` instructions and `tools` come from it unless
 * set); `assignment` lists the path prefixes its changes are expected
 * under (a change elsewhere is high-risk); `budget` limits its firings
 * together (the runtime's {@link Budget}).
 *
 * @category network
 */
export interface NetworkNode {
  readonly id: string
  readonly role: string
  readonly mode: NodeMode
  readonly trigger: Trigger
  readonly provider: ProviderSpec
  readonly system: string
  readonly tools: readonly string[]
  /** The first message of an auto node's loop (sent once; ticks follow). */
  readonly prompt?: string
  readonly budget?: Budget
  readonly acceptance?: Acceptance
  readonly assignment?: readonly string[]
}

/**
 * Which way an edge carries envelopes: `both` (the default) or `one-way`,
 * from `from` to `to`.
 *
 * @category network
 */
export type Direction = 'both' | 'one-way'

/**
 * An edge: `from` and `to` are node ids; its id is `from->to` or
 * `from<->to`. A bidirectional edge has one inbox per direction, each with
 * the edge's delivery.
 *
 * @category network
 */
export interface Edge {
  readonly id: string
  readonly from: string
  readonly to: string
  readonly direction: Direction
  readonly delivery: Delivery
}

/**
 * The safety limits of a network run. `maxInFlight`: the most firings at
 * once across the network. `maxIterations`: the most firings of one node
 * inside a loop (a cycle of the network, or an auto node's own loop).
 * `stallAfter`: the same output or error digest, or no file change, this
 * many times in a row halts the loop. `maxSpawned`: the most nodes the
 * run's agents may spawn (the Orchestrator's `spawn_agent`).
 *
 * @category network
 */
export interface Limits {
  readonly maxInFlight: number
  readonly maxIterations: number
  readonly stallAfter: number
  readonly maxSpawned: number
}

/**
 * A named group of nodes with a budget of its own: its usage is the sum of
 * what its nodes' firings used while they belonged to it (tokens, API
 * calls, cost, firing time, firings), and when that goes over `budget`
 * every node of it is halted. Sub-networks may overlap or nest (one's
 * nodes a subset of another's); a firing counts against the node's own
 * budget, every sub-network it belongs to, and the network's.
 *
 * @category network
 */
export interface Subnetwork {
  readonly id: string
  readonly nodes: readonly string[]
  readonly budget?: Budget
}

/**
 * A live agent network as a frozen value: nodes and edges by id, the
 * workflow mode, the safety limits, a budget for the whole network and
 * the sub-networks with budgets of their own.
 * Built and edited by pure builders ({@link addNode}, {@link connect}, …);
 * {@link change} gives each edit its JSON patches and their inverse.
 *
 * @category network
 */
export interface Network {
  readonly _tag: 'Network'
  readonly id: string
  readonly workflow: WorkflowMode
  readonly limits: Limits
  readonly budget?: Budget
  readonly nodes: Readonly<Record<string, NetworkNode>>
  readonly edges: Readonly<Record<string, Edge>>
  /** Absent when there are none. */
  readonly subnetworks?: Readonly<Record<string, Subnetwork>>
}

/**
 * The default limits: 4 in flight, 25 iterations per loop, a stall after 3,
 * 8 spawned nodes.
 *
 * @category network
 */
export const defaultLimits: Limits = Object.freeze({
  maxInFlight: 4,
  maxIterations: 25,
  stallAfter: 3,
  maxSpawned: 8,
})

/**
 * The id of the edge between `from` and `to` in that direction.
 *
 * @category network
 * @example
 * import { edgeId } from 'nerve-agents'
 * import assert from 'assert'
 *
 * assert.strictEqual(edgeId('a', 'b', 'both'), 'a<->b')
 * assert.strictEqual(edgeId('a', 'b', 'one-way'), 'a->b')
 */
export const edgeId = (from: string, to: string, direction: Direction): string =>
  direction === 'both' ? `${from}<->${to}` : `${from}->${to}`

/**
 * One way an edge carries envelopes: the edge, and where from and to.
 *
 * @category network
 */
export interface Route {
  readonly edge: Edge
  readonly from: string
  readonly to: string
}

/**
 * Every way envelopes flow out of `nodeId`: one route per edge direction.
 *
 * @category network
 */
export const routesFrom = (net: Network, nodeId: string): readonly Route[] => {
  const out: Route[] = []
  for (const edge of Object.values(net.edges)) {
    if (edge.from === nodeId) out.push({ edge, from: nodeId, to: edge.to })
    else if (edge.direction === 'both' && edge.to === nodeId) {
      out.push({ edge, from: nodeId, to: edge.from })
    }
  }
  return out
}

/**
 * Every way envelopes flow into `nodeId`.
 *
 * @category network
 */
export const routesInto = (net: Network, nodeId: string): readonly Route[] => {
  const out: Route[] = []
  for (const edge of Object.values(net.edges)) {
    if (edge.to === nodeId) out.push({ edge, from: edge.from, to: nodeId })
    else if (edge.direction === 'both' && edge.from === nodeId) {
      out.push({ edge, from: edge.to, to: nodeId })
    }
  }
  return out
}

/**
 * The sub-networks `nodeId` belongs to, in network order.
 *
 * @category network
 */
export const subnetworksOf = (net: Network, nodeId: string): readonly Subnetwork[] =>
  Object.values(net.subnetworks ?? {}).filter((g) => g.nodes.includes(nodeId))

/**
 * The edge joining `a` and `b` in either order and direction, if any.
 *
 * @category network
 */
export const edgeBetween = (net: Network, a: string, b: string): Edge | undefined =>
  net.edges[edgeId(a, b, 'both')] ??
  net.edges[edgeId(b, a, 'both')] ??
  net.edges[edgeId(a, b, 'one-way')] ??
  net.edges[edgeId(b, a, 'one-way')]

/**
 * The loops of a network: its strongly connected components that hold a
 * cycle (two or more nodes, or one node with an edge to itself), each as
 * its node ids in network order. Pure; Tarjan's algorithm, iterative.
 *
 * @category network
 * @example
 * import { addNode, connect, loops, network } from 'nerve-agents'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const net = pipe(
 *   network('team'),
 *   addNode({ id: 'a' }), addNode({ id: 'b' }), addNode({ id: 'c' }),
 *   connect('a', 'b'), connect('b', 'c', { direction: 'one-way' }),
 * )
 * assert.deepStrictEqual(loops(net), [['a', 'b']])
 */
export const loops = (net: Network): readonly (readonly string[])[] => {
  const ids = Object.keys(net.nodes)
  const next = new Map<string, string[]>(ids.map((id) => [id, []]))
  for (const id of ids) for (const r of routesFrom(net, id)) next.get(id)!.push(r.to)
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const found: string[][] = []
  let counter = 0
  for (const start of ids) {
    if (index.has(start)) continue
    const work: [string, number][] = [[start, 0]]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const [v, i] = frame
      const succ = next.get(v)!
      if (i < succ.length) {
        frame[1] = i + 1
        const w = succ[i]!
        if (!index.has(w)) {
          index.set(w, counter)
          low.set(w, counter++)
          stack.push(w)
          onStack.add(w)
          work.push([w, 0])
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent !== undefined) low.set(parent[0], Math.min(low.get(parent[0])!, low.get(v)!))
      if (low.get(v) === index.get(v)) {
        const component: string[] = []
        let w: string
        do {
          w = stack.pop()!
          onStack.delete(w)
          component.push(w)
        } while (w !== v)
        if (component.length > 1 || succ.includes(v)) found.push(component)
      }
    }
  }
  const order = new Map(ids.map((id, i) => [id, i]))
  return found
    .map((c) => c.sort((x, y) => order.get(x)! - order.get(y)!))
    .sort((x, y) => order.get(x[0]!)! - order.get(y[0]!)!)
}
