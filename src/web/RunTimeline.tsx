/**
 * A run's timeline: each step the page saw start as a bar on a time axis
 * (from the run's first start), running bars reaching the present, a retried
 * step marked with its retries.
 */
import type { RunView, StepView } from './state.js'

const WIDTH = 640
const LABEL = 120
const ROW = 20
const AXIS = 24

/** A time span as people read it. */
const span = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`

export const RunTimeline = ({ run }: { run: RunView }) => {
  const now = Date.now()
  const steps = [...run.steps.values()].filter(
    (s): s is StepView & { startedAt: number } => s.startedAt !== undefined,
  )
  if (steps.length === 0) return null
  steps.sort((a, b) => a.startedAt - b.startedAt)
  const t0 = steps[0]!.startedAt
  const t1 = Math.max(t0 + 1, ...steps.map((s) => s.endedAt ?? now))
  // Room on the right for the last tick's label and a retried bar's mark.
  const scale = (WIDTH - LABEL - 48) / (t1 - t0)
  const x = (t: number) => LABEL + (t - t0) * scale
  const ticks = Array.from({ length: 5 }, (_, i) => ((t1 - t0) * i) / 4)
  const height = AXIS + steps.length * ROW + 4
  return (
    <svg
      class="timeline"
      role="img"
      aria-label={`Timeline of run ${run.runId}`}
      data-timeline={run.runId}
      width={WIDTH}
      height={height}
      viewBox={`0 0 ${WIDTH} ${height}`}
    >
      {ticks.map((ms) => (
        <g key={ms} class="tick" data-tick={Math.round(ms)}>
          <line x1={x(t0 + ms)} x2={x(t0 + ms)} y1={AXIS - 6} y2={height} />
          <text x={x(t0 + ms)} y={AXIS - 10}>
            {span(ms)}
          </text>
        </g>
      ))}
      {steps.map((s, i) => {
        const y = AXIS + i * ROW
        const end = s.endedAt ?? now
        return (
          <g key={s.id} class={`bar ${s.state}`} data-bar={s.id} data-retries={s.retries}>
            <text class="label" x={4} y={y + 13}>
              {s.id}
            </text>
            <rect
              x={x(s.startedAt)}
              y={y + 3}
              width={Math.max(2, (end - s.startedAt) * scale)}
              height={ROW - 6}
              rx="2"
            >
              <title>
                {s.id}: {s.state}, {span(end - s.startedAt)}
                {s.retries > 0 && `, retried ${s.retries}×`}
              </title>
            </rect>
            {s.retries > 0 && (
              <text class="retries" x={x(end) + 4} y={y + 13}>
                ↻{s.retries}
              </text>
            )}
          </g>
        )
      })}
    </svg>
  )
}
