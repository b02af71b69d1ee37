/**
 * A network's sub-networks in its topology: each a rounded box behind its
 * members, labelled with its id and, when it has a budget, how much of
 * each limit its nodes used (as the daemon last told it). Where the boxes
 * go is the layout's ({@link ./groups.ts}); an outer box is drawn before
 * the boxes inside it, and every group before the edges and nodes, so a
 * node in two groups is drawn once, over both.
 */
import type { GroupBox } from './drawing.js'
import type { NetView } from './networkState.js'

/** Each budget limit: what of a sub-network's usage it bounds, and that in words. */
const USES = {
  maxSteps: ['firings', 'firings'],
  maxTimeMs: ['timeMs', 'ms'],
  maxTokens: ['tokens', 'tokens'],
  maxApiCalls: ['apiCalls', 'API calls'],
  maxCost: ['cost', 'cost'],
} as const

type Usage = NetView['subnetworkUsage'][string]

/** A number short enough for a label (a cost to two decimals). */
const short = (n: number): string => String(Math.round(n * 100) / 100)

/**
 * A budget's use in words, limit by limit in the budget's order: `firings
 * 2/4, tokens 120/1000` (nothing used yet is 0).
 */
export const budgetUse = (budget: object, used: Usage | undefined): string =>
  (Object.entries(budget) as [string, number | undefined][])
    .flatMap(([k, max]) => {
      const use = USES[k as keyof typeof USES] as (typeof USES)[keyof typeof USES] | undefined
      return use === undefined || max === undefined
        ? []
        : [`${use[1]} ${short(used?.[use[0]] ?? 0)}/${short(max)}`]
    })
    .join(', ')

/** The sub-networks' boxes of a drawing, with their labels. */
export const SubnetworkGroups = ({
  net,
  groups,
}: {
  readonly net: NetView
  readonly groups: readonly GroupBox[]
}) => (
  <g class="groups">
    {[...groups]
      .sort((a, b) => b.width * b.height - a.width * a.height)
      .map((b) => {
        const budget = net.network.subnetworks?.[b.id]?.budget
        const use = budget === undefined ? '' : budgetUse(budget, net.subnetworkUsage[b.id])
        return (
          <g key={b.id} class="group" data-group={b.id}>
            <rect x={b.x} y={b.y} width={b.width} height={b.height} rx="10" />
            <text x={b.x + 8} y={b.y + 13}>
              {b.id}
              {use !== '' && ` · ${use}`}
            </text>
          </g>
        )
      })}
  </g>
)
