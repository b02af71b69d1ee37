/**
 * The live view of a graph run on a terminal: a tree of steps redrawn in
 * place (log-update does the cursor work), each pending, running (spinner
 * and elapsed time), retrying, done (duration), failed (the error's first
 * line) or skipped; nested graphs indented; the focused step's latest output
 * below the tree. When the run ends, the tree stays, followed by what line
 * mode prints of the outputs and retries (the screen keeps them), why the
 * run failed when no step says, and its state with token and cost totals
 * when any were used.
 */
import { createLogUpdate } from 'log-update'
import type { Writable } from 'node:stream'
import { Graph, isGraph } from '../graph/index.js'
import type { EngineEvent, RunInfo, TraceJson } from '../protocol/index.js'
import { runErrorLine, runLines } from './runLines.js'

type RowState = 'pending' | 'running' | 'retrying' | 'done' | 'failed' | 'skipped' | 'cancelled'

interface Row {
  readonly key: string
  readonly label: string
  readonly depth: number
  state: RowState
  startedAt?: number
  durationMs?: number
  attempt: number
  /** The most attempts the step's error policy allows (1 without a retry). */
  readonly maxAttempts: number
  error?: string
  /** Times the node it runs was started again (its program had exited). */
  respawns?: number
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const MARK: Record<RowState, string> = {
  pending: '·',
  running: '',
  retrying: '↻',
  done: '✔',
  failed: '✖',
  skipped: '↷',
  cancelled: '■',
}

const keyOf = (path: readonly string[], stepId: string): string => [...path, stepId].join('/')

const seconds = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`

/** The rows of a graph's steps, nested graphs under their step, all pending (none without a graph). */
const rowsOf = (g: Graph | undefined, path: readonly string[] = [], out: Row[] = []): Row[] => {
  if (g === undefined) return out
  for (const s of Graph.steps(g)) {
    out.push({
      key: keyOf(path, s.id),
      label: s.id,
      depth: path.length,
      state: 'pending',
      attempt: 0,
      maxAttempts: s.onError._tag === 'retry' ? s.onError.count + 1 : 1,
    })
    if (isGraph(s.node)) rowsOf(s.node, [...path, s.id], out)
  }
  return out
}

const totals = (t: TraceJson | undefined): { tokens: number; cost: number } => {
  let tokens = 0
  let cost = 0
  for (const s of t?.steps ?? []) {
    tokens += s.tokens
    cost += s.cost
    const inner = totals(s.nested)
    tokens += inner.tokens
    cost += inner.cost
  }
  return { tokens, cost }
}

/**
 * The stream with a size: a terminal that reports none (a pty opened with
 * 0×0, some CI runners) counts as 80×24, so the tree is drawn, not clipped
 * to nothing.
 */
const sized = <W extends Writable & { columns?: number; rows?: number }>(out: W): W =>
  new Proxy(out, {
    get(target, key) {
      if (key === 'columns') return target.columns || 80
      if (key === 'rows') return target.rows || 24
      const v: unknown = Reflect.get(target, key, target)
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })

/**
 * The progress of one run, drawn on `out`: the graph's steps from the start
 * (without the graph, as their events arrive). `update` takes each event;
 * `finish` draws the last frame (with the run's totals) and keeps it.
 *
 * @category cli
 */
export const progress = (
  g: Graph | undefined,
  out: Writable & { columns?: number; rows?: number },
) => {
  const rows = rowsOf(g)
  const byKey = new Map(rows.map((r) => [r.key, r]))
  const draw = createLogUpdate(sized(out), { showCursor: false })
  let tick = 0
  let focus: { key: string; text: string } | undefined
  // the lines of outputs and retries, as line mode prints them, for the end
  const lines = runLines()
  const kept: string[] = []
  const keep = (ls: readonly string[]): void => {
    kept.push(...ls.filter((l) => l.startsWith('  ') || l.startsWith('↻')))
  }

  /** The row of a step by its path (which ends with its id), added under its parent if unknown. */
  const rowOf = (path: readonly string[]): Row => {
    const key = path.join('/')
    let row = byKey.get(key)
    if (row === undefined) {
      const parent = path.slice(0, -1).join('/')
      row = {
        key,
        label: path.at(-1) ?? key,
        depth: path.length - 1,
        state: 'pending',
        attempt: 0,
        maxAttempts: 1,
      }
      const after = rows.findLastIndex((r) => r.key === parent || r.key.startsWith(`${parent}/`))
      rows.splice(after + 1, 0, row)
      byKey.set(key, row)
    }
    return row
  }

  const line = (r: Row, now: number): string => {
    const indent = '  '.repeat(r.depth)
    const mark = r.state === 'running' ? FRAMES[tick % FRAMES.length]! : MARK[r.state]
    const detail =
      r.state === 'running' || r.state === 'retrying'
        ? `${seconds(now - (r.startedAt ?? now))}${r.maxAttempts > 1 ? `, attempt ${Math.max(r.attempt, 1)} of ${r.maxAttempts}` : ''}`
        : r.state === 'done' && r.durationMs !== undefined
          ? seconds(r.durationMs)
          : r.state === 'failed'
            ? (r.error ?? 'failed')
            : r.state === 'cancelled' && r.startedAt !== undefined
              ? `cancelled after ${seconds(now - r.startedAt)}`
              : r.state === 'skipped' && r.error !== undefined
                ? `skipped: ${r.error}`
                : r.state
    const respawned = r.respawns === undefined ? '' : `  ⟳ node respawned ${r.respawns}×`
    return `${indent}${mark} ${r.label}  ${detail}${respawned}`
  }

  const frame = (footer: string[] = []): string => {
    const now = Date.now()
    const body = rows.map((r) => line(r, now))
    const tail =
      focus === undefined ? [] : ['', `── ${focus.key} ──`, ...focus.text.split('\n').slice(-5)]
    return [...body, ...tail, ...footer].join('\n')
  }

  const spin = () =>
    setInterval(() => {
      tick++
      draw(frame())
    }, 100)
  let timer: ReturnType<typeof setInterval> | undefined = spin()
  let finished = false

  return {
    update(e: EngineEvent): void {
      keep(lines.push(e))
      switch (e.type) {
        case 'STEP_STARTED': {
          const r = rowOf(e.path)
          r.state = e.attempt > 1 ? 'retrying' : 'running'
          r.attempt = e.attempt
          r.startedAt ??= Date.now()
          break
        }
        case 'STEP_COMPLETED': {
          const r = rowOf(e.path)
          r.state = e.status === 'skipped' ? 'skipped' : 'done'
          r.durationMs = e.durationMs
          break
        }
        case 'STEP_FAILED': {
          const r = rowOf(e.path)
          r.state = e.final ? 'failed' : 'retrying'
          r.error = e.error.message.split('\n')[0] ?? ''
          break
        }
        case 'RUN_NODE_RESPAWNED': {
          const r = rowOf(e.path)
          r.respawns = (r.respawns ?? 0) + 1
          break
        }
        case 'OUTPUT_CHUNK': {
          if (e.stepId === undefined) break
          const key = e.stepId
          const data = (e.chunk as { data?: unknown } | null)?.data
          const text =
            typeof e.chunk === 'string'
              ? e.chunk
              : typeof data === 'string'
                ? data
                : JSON.stringify(e.chunk)
          focus = { key, text: ((focus?.key === key ? focus.text : '') + text).slice(-2000) }
          break
        }
        default:
          break
      }
      if (timer !== undefined) draw(frame())
    },
    /**
     * Takes the tree off the screen while something else writes on the
     * terminal (a question); the function answered draws it again, below
     * what was written.
     */
    pause(): () => void {
      clearInterval(timer)
      timer = undefined
      draw.clear()
      return () => {
        if (!finished) timer ??= spin()
      }
    },
    finish(info: RunInfo): void {
      clearInterval(timer)
      finished = true
      // A run that ended (cancelled, or failed fast) stopped whatever was still going.
      for (const r of rows)
        if (r.state === 'running' || r.state === 'retrying') r.state = 'cancelled'
      keep(lines.flush())
      const { tokens, cost } = totals(info.trace)
      const why = runErrorLine(info)
      const used = tokens > 0 || cost > 0 ? ` · ${tokens} tokens · $${cost.toFixed(4)}` : ''
      // the tree's last frame stays; what the steps printed follows it in full, as off a terminal
      focus = undefined
      draw(frame())
      draw.done()
      const end = [...(why === undefined ? [] : [why]), `${info.state}${used}`]
      // (the frame's last line feed leaves a blank line under the tree)
      out.write(`${[...kept, ...(kept.length > 0 ? [''] : []), ...end].join('\n')}\n`)
    },
  }
}
