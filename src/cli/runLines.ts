/**
 * A graph run as plain lines, for a reader that is not a terminal (a pipe,
 * a file, the REPL): one line as each step starts, finishes, fails or is
 * skipped, its output lines prefixed with the step's path. No escape codes.
 *
 * A step whose error policy skips it reports a final failure and then a
 * skip; the two become the one line `↷ step skipped: why`.
 */
import type { EngineEvent, RunInfo } from '../protocol/index.js'

/** `12 ms` or `1.3 s`. */
export const duration = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`

const firstLine = (s: string): string => s.split('\n')[0] ?? ''

/** The text of an output chunk: a string, `{ data }`, else its JSON. */
export const chunkData = (chunk: unknown): string => {
  if (typeof chunk === 'string') return chunk
  const data = (chunk as { data?: unknown } | null)?.data
  return typeof data === 'string' ? data : JSON.stringify(chunk)
}

/**
 * The lines of a run's events: `push` answers the lines an event makes
 * (possibly none, possibly held back a moment), `flush` the held ones.
 *
 * @category cli
 */
export const runLines = (options: { readonly output?: boolean } = {}) => {
  /** A final failure waits for the next event: a skip of the same step makes it one line. */
  let held: Extract<EngineEvent, { type: 'STEP_FAILED' }> | undefined
  const release = (): string[] => {
    if (held === undefined) return []
    const e = held
    held = undefined
    return [`✖ ${e.path.join('/')} failed: ${firstLine(e.error.message)}`]
  }
  const partial = new Map<string, string>()
  return {
    push(e: EngineEvent): string[] {
      if (
        held !== undefined &&
        e.type === 'STEP_COMPLETED' &&
        e.status === 'skipped' &&
        e.path.join('/') === held.path.join('/')
      ) {
        const why = firstLine(held.error.message)
        held = undefined
        return [`↷ ${e.path.join('/')} skipped: ${why}`]
      }
      const out = release()
      // a step that ended has said all it will: its last unfinished output line goes first
      if ((e.type === 'STEP_COMPLETED' || e.type === 'STEP_FAILED') && partial.get(e.stepId)) {
        out.push(`  ${e.stepId} │ ${partial.get(e.stepId)!}`)
        partial.delete(e.stepId)
      }
      switch (e.type) {
        case 'STEP_STARTED':
          out.push(`▸ ${e.path.join('/')}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`)
          break
        case 'STEP_COMPLETED':
          out.push(
            e.status === 'skipped'
              ? `↷ ${e.path.join('/')} skipped`
              : `✔ ${e.path.join('/')} ${e.status === 'completed' ? 'done' : e.status} (${duration(e.durationMs)})`,
          )
          break
        case 'STEP_FAILED':
          if (e.final) held = e
          else out.push(`↻ ${e.path.join('/')} failed, retrying: ${firstLine(e.error.message)}`)
          break
        case 'RUN_NODE_RESPAWNED':
          out.push(`⟳ ${e.path.join('/')}: ${e.nodeId} had exited, started again`)
          break
        case 'OUTPUT_CHUNK': {
          if (options.output === false || e.stepId === undefined) break
          const text = (partial.get(e.stepId) ?? '') + chunkData(e.chunk)
          const lines = text.split('\n')
          partial.set(e.stepId, lines.pop() ?? '')
          for (const l of lines) out.push(`  ${e.stepId} │ ${l}`)
          break
        }
        default:
          break
      }
      return out
    },
    flush(): string[] {
      const out = release()
      for (const [step, rest] of partial) if (rest !== '') out.push(`  ${step} │ ${rest}`)
      partial.clear()
      return out
    },
  }
}

/**
 * The line of a run that failed with no failing step to show why (a kind
 * no interpreter runs, a graph the runtime refused): `✖ run failed: Tag:
 * message`, the way a step's failure reads; none otherwise.
 *
 * @category cli
 */
export const runErrorLine = (info: RunInfo): string | undefined => {
  const failedStep = (t: RunInfo['trace']): boolean =>
    (t?.steps ?? []).some((s) => s.status === 'failed' || failedStep(s.nested))
  return info.state === 'failed' && info.error !== undefined && !failedStep(info.trace)
    ? `✖ run failed: ${info.error.tag}: ${firstLine(info.error.message)}`
    : undefined
}
