/** The SVG a laid-out drawing is drawn in, shared by every graph of the page. */
import type { ComponentChildren } from 'preact'
import type { Drawing } from './drawing.js'

/**
 * A drawing's SVG: sized to it, labelled for assistive technology, and,
 * given `arrow`, with an arrowhead of that id its edges can end (or start) in.
 */
export const GraphSvg = (props: {
  readonly label: string
  readonly drawing: Drawing
  readonly arrow?: string
  readonly children: ComponentChildren
}) => {
  const { width, height } = props.drawing
  return (
    <svg
      class="graph"
      role="img"
      aria-label={props.label}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      {props.arrow !== undefined && (
        <defs>
          <marker
            id={props.arrow}
            viewBox="0 0 8 8"
            refX="8"
            refY="4"
            markerWidth="8"
            markerHeight="8"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L8,4 L0,8 z" />
          </marker>
        </defs>
      )}
      {props.children}
    </svg>
  )
}
