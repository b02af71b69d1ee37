import type { StepRecord, StepStatus, Trace } from './Trace.js'

const jsonOr = (u: unknown): string => {
  const text = JSON.stringify(u) as unknown
  return typeof text === 'string' ? text : String(u)
}

const MARK: Readonly<Record<StepStatus, string>> = {
  completed: '✓',
  skipped: '↷',
  fallback: '⤳',
  failed: '✗',
  cancelled: '⊘',
}

const ms = (n: number): string =>
  n >= 1000 ? `${(n / 1000).toFixed(2)} s` : n >= 10 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`

const errorText = (u: unknown): string => {
  const text = u instanceof Error ? u.message : typeof u === 'string' ? u : jsonOr(u)
  const line = text.split('\n')[0]!
  return line.length > 80 ? `${line.slice(0, 77)}...` : line
}

const countSteps = (trace: Trace): { steps: number; retries: number; recovered: number } => {
  let steps = 0
  let retries = 0
  let recovered = 0
  for (const v of trace.records) {
    const r = v.data
    steps++
    retries += Math.max(0, r.attempts - 1 - (r.status === 'fallback' ? 1 : 0))
    if (r.status === 'skipped' || r.status === 'fallback') recovered++
    if (r.nested !== undefined) {
      const inner = countSteps(r.nested)
      steps += inner.steps
      retries += inner.retries
      recovered += inner.recovered
    }
  }
  return { steps, retries, recovered }
}

const line = (r: StepRecord, parents: readonly string[], indent: string, width: number): string => {
  const parts = [
    `${indent}${MARK[r.status]} ${r.stepId.padEnd(width)}`,
    `${r.kind}:${r.nodeId}`,
    r.status === 'completed' ? ms(r.durationMs) : `${r.status} after ${ms(r.durationMs)}`,
  ]
  if (r.attempts > 1) parts.push(`${r.attempts} attempts`)
  if (parents.length > 0) parts.push(`after ${parents.join(', ')}`)
  if (r.tokens > 0) parts.push(`${r.tokens} tokens`)
  if (r.cost > 0) parts.push(`cost ${r.cost}`)
  if (r.error !== undefined && r.status !== 'cancelled') parts.push(`error: ${errorText(r.error)}`)
  return parts.join('  ')
}

const lines = (trace: Trace, indent: string, out: string[]): void => {
  let width = 0
  for (const v of trace.records) width = Math.max(width, v.data.stepId.length)
  for (const v of trace.records) {
    const r = v.data
    out.push(
      line(
        r,
        v.parents.map((p) => p.data.stepId),
        indent,
        width,
      ),
    )
    if (r.nested !== undefined) lines(r.nested, `${indent}    `, out)
  }
}

/**
 * A readable summary of a trace, one line per step in the graph's order,
 * nested graphs indented under their step: a mark (✓ completed, ↷ skipped,
 * ⤳ fallback, ✗ failed, ⊘ cancelled), the step id, `kind:node`, the
 * duration, then attempts, dependencies, usage and the error when there is
 * one. The first line sums the run up.
 *
 * @category trace
 * @example
 * import { addStep, defaultInterpreters, fn, graph, run } from 'nerve-agents'
 * import { explain } from 'nerve-agents/runtime'
 * import { pipe } from 'fp-ts/lib/function.js'
 * import assert from 'assert'
 *
 * const g = pipe(
 *   graph('hello'),
 *   addStep({ id: 'greet', node: fn('greet', () => 'hi') }),
 *   addStep({ id: 'shout', node: fn('upper', (ctx) => String(ctx.upstream.greet).toUpperCase()), dependsOn: ['greet'] }),
 * )
 * const text = explain((await run(g, { interpreters: defaultInterpreters })).trace)
 * assert.match(text, /^graph "hello" completed in .+ — 2 steps/)
 * assert.match(text, /✓ shout  function:upper  .* after greet/)
 */
export const explain = (trace: Trace): string => {
  const { steps, retries, recovered } = countSteps(trace)
  const summary = [`${steps} step${steps === 1 ? '' : 's'}`]
  if (retries > 0) summary.push(`${retries} retr${retries === 1 ? 'y' : 'ies'}`)
  if (recovered > 0) summary.push(`${recovered} recovered by policy`)
  const out = [
    `graph "${trace.graphId}" ${trace.status} in ${ms(trace.durationMs)} — ${summary.join(', ')} (run ${trace.runId})`,
  ]
  lines(trace, '  ', out)
  return out.join('\n')
}
