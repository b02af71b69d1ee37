/**
 * A network's envelopes as the DAG of their causes: each envelope a box
 * (its kind, from → to, the start of its message), an arrow from each
 * envelope it was caused by (`causedBy`), laid out top to bottom as they
 * arrive. Folded when there are many, so a large network opens fast.
 */
import { useState } from 'preact/hooks'
import { GraphSvg } from './GraphSvg.js'
import { useLayout } from './layoutClient.js'
import type { NetView } from './networkState.js'

const BOX = { width: 220, height: 40 }

/** The most envelopes drawn before the drawing is folded. */
const DRAWN = 50

const Dag = ({ net }: { net: NetView }) => {
  const known = new Set(net.envelopes.map((e) => e.id))
  const d = useLayout(
    `envelopes:${net.networkId}`,
    net.envelopes.map((e) => e.id),
    net.envelopes.flatMap((e) =>
      (e.causedBy ?? []).filter((c) => known.has(c)).map((c) => [c, e.id] as const),
    ),
    { direction: 'TB', box: BOX, when: 'changed' },
  ).drawing
  const byId = new Map(net.envelopes.map((e) => [e.id, e]))
  return (
    <GraphSvg label={`Envelope DAG of ${net.networkId}`} drawing={d} arrow="arrow-env">
      {d.lines.map((l) => (
        <polyline
          key={`${l.from}>${l.to}`}
          class="edge"
          data-cause={`${l.from}>${l.to}`}
          points={l.points}
          marker-end="url(#arrow-env)"
        />
      ))}
      {d.boxes.map((b) => {
        const e = byId.get(b.id)
        if (e === undefined) return null
        const message = e.payload.message.split('\n')[0] ?? ''
        return (
          <g
            key={b.id}
            class={`box ${e.kind}`}
            data-envnode={b.id}
            transform={`translate(${b.x - BOX.width / 2},${b.y - BOX.height / 2})`}
          >
            <title>{e.payload.message}</title>
            <rect width={BOX.width} height={BOX.height} rx="6" />
            <text x="10" y="17">
              {e.kind} {e.fromNodeId} → {e.toNodeId}
            </text>
            <text x="10" y="32" class="sub">
              {message.length > 30 ? `${message.slice(0, 29)}…` : message}
            </text>
          </g>
        )
      })}
    </GraphSvg>
  )
}

/** The envelope DAG of `net`, in a fold of its own. */
export const EnvelopeDag = ({ net }: { net: NetView }) => {
  const [open, setOpen] = useState(net.envelopes.length <= DRAWN)
  return (
    <details
      open={open}
      onToggle={(e) => {
        setOpen(e.currentTarget.open)
      }}
    >
      <summary>Envelope DAG ({net.envelopes.length})</summary>
      {open && <Dag net={net} />}
    </details>
  )
}
