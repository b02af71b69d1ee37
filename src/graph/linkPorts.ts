import type { NodeKinds } from '../node/NodeKind.js'

/**
 * What is wrong with a link under `port` from a step of kind `from` to one
 * of kind `to` (`undefined` when a kind is not known here), as
 * [which end, reason], or nothing. Only the kinds of `kinds` declare their ports,
 * and only the links into a kind that resolves some are checked.
 *
 * @internal
 */
export const linkProblem = (
  port: string,
  from: string | undefined,
  to: string | undefined,
  kinds: NodeKinds,
): readonly ['from' | 'port', string] | undefined => {
  const target = to === undefined ? undefined : kinds.get(to)
  // A kind that resolves no links (a bash node) ignores them, as the runtime does.
  if (target === undefined || target.accepts.length === 0) return undefined
  if (!target.accepts.includes(port)) {
    return [
      'port',
      `a ${to!} node takes no "${port}" links (it takes: ${target.accepts.join(', ')})`,
    ]
  }
  if (from === undefined) return undefined
  const provides = from === 'graph' ? [] : kinds.get(from)?.provides
  if (provides !== undefined && !provides.includes(port)) {
    return ['from', `is a ${from} node, which gives no ${port}`]
  }
  return undefined
}
