/**
 * Budgets of a network run, rolling up: a firing counts against its node's
 * budget, every sub-network the node belongs to, and the network's. Before
 * a firing, what is left of all of them becomes the firing's runtime
 * Budget; a spent one halts what it covers — the node (a runtime
 * {@link BudgetExceeded}), a sub-network's nodes ({@link SubnetworkBudgetExceeded}),
 * or every node (a `BudgetExceeded` of the network). After a firing, its
 * usage is added at every level and spent sub-network and network budgets
 * halt at once, so their other nodes do not start another firing.
 *
 * @internal
 */
import { BudgetExceeded, type Budget, type RunUsage } from '../../runtime/index.js'
import { subnetworksOf, type NetworkNode } from '../model/Network.js'
import { SubnetworkBudgetExceeded } from './NetworkError.js'
import { remainingBudget, spentLimit, type BudgetScope, type Spent } from './runParts.js'
import { noUsage, type NodeRun, type RunState, type Usage } from './runState.js'

const subnetUsage = (s: RunState, id: string): Usage => {
  let u = s.subnetUsage.get(id)
  if (u === undefined) {
    u = noUsage()
    s.subnetUsage.set(id, u)
  }
  return u
}

const netScope = (s: RunState): BudgetScope => ({
  budget: s.net.budget,
  used: { ...s.netUsage, timeMs: s.clock.now() - s.started },
})

const haltNetwork = (s: RunState, spent: Spent): void => {
  if (s.spent.has('network')) return
  s.spent.add('network')
  s.halt([...s.nodes.keys()], new BudgetExceeded([], spent.limit, spent.max, spent.used))
}

const haltSubnetwork = (s: RunState, id: string, nodes: readonly string[], spent: Spent): void => {
  if (s.spent.has(`subnetwork:${id}`)) return
  s.spent.add(`subnetwork:${id}`)
  s.halt(nodes, new SubnetworkBudgetExceeded(id, nodes, spent.limit, spent.max, spent.used))
}

/**
 * The runtime Budget of `node`'s next firing, counted as started, or
 * `false` when a budget it counts against is spent (what that budget
 * covers is halted).
 */
export const firingBudget = (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
): Budget | undefined | false => {
  const groups = subnetworksOf(s.net, node.id)
  const scopes: BudgetScope[] = [
    { budget: node.budget, used: st.usage },
    ...groups.map((g) => ({ budget: g.budget, used: subnetUsage(s, g.id) })),
    netScope(s),
  ]
  const r = remainingBudget(scopes)
  if (r.exceeded === undefined) {
    // A firing counts as a step when it starts, so firings in flight at once cannot overrun maxSteps.
    st.usage.firings++
    for (const g of groups) subnetUsage(s, g.id).firings++
    s.netUsage.firings++
    return r.budget
  }
  const { scope, ...spent } = r.exceeded
  if (scope === 0) {
    s.halt([node.id], new BudgetExceeded([node.id], spent.limit, spent.max, spent.used))
  } else if (scope === scopes.length - 1) haltNetwork(s, spent)
  else {
    const g = groups[scope - 1]!
    haltSubnetwork(s, g.id, g.nodes, spent)
  }
  return false
}

const add = (to: Usage, u: RunUsage & { readonly timeMs: number }): void => {
  to.tokens += u.tokens
  to.apiCalls += u.apiCalls
  to.cost += u.cost
  to.timeMs += u.timeMs
}

/**
 * Adds what one firing of `node` used to the node, its sub-networks and
 * the network; then halts the sub-networks and the network whose budget
 * it spent.
 */
export const rollUp = (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
  used: RunUsage,
  timeMs: number,
): void => {
  const u = { ...used, timeMs }
  add(st.usage, u)
  const groups = subnetworksOf(s.net, node.id)
  for (const g of groups) add(subnetUsage(s, g.id), u)
  add(s.netUsage, u)
  for (const g of groups) {
    const spent = spentLimit(g.budget, subnetUsage(s, g.id))
    if (spent !== undefined) haltSubnetwork(s, g.id, g.nodes, spent)
  }
  const { budget, used: netUsed } = netScope(s)
  const spent = spentLimit(budget, netUsed)
  if (spent !== undefined) haltNetwork(s, spent)
}

/** What each sub-network's nodes used so far, by sub-network id. */
export const subnetworkUsage = (s: RunState): Readonly<Record<string, RunUsage>> => {
  const out: Record<string, RunUsage> = {}
  for (const [id, u] of s.subnetUsage) {
    out[id] = { tokens: u.tokens, apiCalls: u.apiCalls, cost: u.cost }
  }
  return out
}
