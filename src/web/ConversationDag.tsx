/**
 * A conversation (Nerve's file format, as `GET_CONVERSATION` answers it)
 * drawn as its DAG, top to bottom: each vertex a box (a message's role and
 * text), each parent an edge, so branches and merges show. A vertex can be
 * chosen.
 */
import type { Fold } from './chatTree.js'
import { GraphSvg } from './GraphSvg.js'
import { useLayout } from './layoutClient.js'
import type { VertexJson } from './vertexJson.js'

export { verticesOf, type VertexJson } from './vertexJson.js'

const BOX = { width: 260, height: 40 }

/** The text of a message's content: a string, or its text blocks joined. */
export const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((b: unknown) => {
            const text = (b as { text?: unknown } | null)?.text
            return typeof text === 'string' ? text : ''
          })
          .join(' ')
      : ''

/** A vertex as a line: a message's role and text, a stop reason, else the entry's type. */
export const labelOf = (v: VertexJson): string =>
  v.data.type === 'message'
    ? `${v.data.role ?? '?'}: ${textOf(v.data.content)}`
    : v.data.type === 'stop_reason' && typeof v.data.reason === 'string'
      ? `stop: ${v.data.reason}`
      : v.data.type

/** A box's attributes that make it a button: focusable, chosen by click, Enter or Space. */
const button = (act: () => void) => ({
  tabIndex: 0,
  role: 'button' as const,
  onClick: act,
  onKeyDown: (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') act()
  },
})

/**
 * The DAG of `vertices`, laid out under `layoutKey`; `choose` is told the
 * vertex chosen. Vertices among `heads` are marked as heads (`data-head`:
 * `current` for the one `current` names, else `other`). Each of `folds`
 * is one "N more" box (`data-fold`) in place of its vertices, linked to
 * those drawn as they are; `unfold` is told the one clicked.
 */
export const ConversationDag = (props: {
  readonly layoutKey: string
  readonly label: string
  readonly vertices: readonly VertexJson[]
  readonly chosen?: string | undefined
  readonly choose?: (id: string) => void
  readonly heads?: readonly string[]
  readonly current?: string | undefined
  readonly folds?: readonly Fold[]
  readonly unfold?: (fold: Fold) => void
}) => {
  const { vertices, chosen, choose, current, folds = [], unfold } = props
  const heads = new Set(props.heads)
  const byId = new Map(vertices.map((v) => [v.id, v]))
  const foldById = new Map(folds.map((f) => [f.id, f]))
  const d = useLayout(
    props.layoutKey,
    [...vertices.map((v) => v.id), ...folds.map((f) => f.id)],
    [
      ...vertices.flatMap((v) =>
        v.parents.filter((p) => byId.has(p)).map((p) => [p, v.id] as const),
      ),
      ...folds.flatMap((f) => [
        ...f.from.map((p) => [p, f.id] as const),
        ...f.to.map((c) => [f.id, c] as const),
      ]),
    ],
    { direction: 'TB', box: BOX, when: 'changed' },
  ).drawing
  return (
    <GraphSvg label={props.label} drawing={d}>
      {d.lines.map((l) => (
        <polyline key={`${l.from}>${l.to}`} class="edge" points={l.points} />
      ))}
      {d.boxes.map((b) => {
        const f = foldById.get(b.id)
        if (f !== undefined) {
          const more = `${f.ids.length} more`
          return (
            <g
              key={b.id}
              class="box fold"
              data-fold={f.ids.length}
              aria-label={`${more}: unfold`}
              transform={`translate(${b.x - BOX.width / 2},${b.y - BOX.height / 2})`}
              {...(unfold !== undefined &&
                button(() => {
                  unfold(f)
                }))}
            >
              <rect width={BOX.width} height={BOX.height} rx="6" />
              <text x="10" y="24">
                {more}
              </text>
            </g>
          )
        }
        const v = byId.get(b.id)
        if (v === undefined) return null
        const text = labelOf(v)
        const head = heads.has(b.id) ? (b.id === current ? 'current' : 'other') : undefined
        return (
          <g
            key={b.id}
            class={`box ${v.data.role ?? 'meta'}${chosen === b.id ? ' chosen' : ''}${head === undefined ? '' : ` head ${head}`}`}
            data-vertex={b.id}
            data-role={v.data.role ?? v.data.type}
            data-head={head}
            transform={`translate(${b.x - BOX.width / 2},${b.y - BOX.height / 2})`}
            {...(choose !== undefined &&
              button(() => {
                choose(b.id)
              }))}
          >
            <rect width={BOX.width} height={BOX.height} rx="6" />
            <text x="10" y="24">
              {text.length > 36 ? `${text.slice(0, 35)}…` : text}
            </text>
          </g>
        )
      })}
    </GraphSvg>
  )
}
