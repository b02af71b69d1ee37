/**
 * What a laid-out graph is: boxes by their centres and the lines of its
 * edges (the layout's answer, and what the views draw).
 */

/** A box of the drawing, by its centre. */
export interface Placed {
  readonly id: string
  readonly x: number
  readonly y: number
}

/** An edge's line: its points as an SVG `points` value. */
export interface Line {
  readonly from: string
  readonly to: string
  readonly points: string
}

/** A laid-out drawing. */
export interface Drawing {
  readonly boxes: readonly Placed[]
  readonly lines: readonly Line[]
  readonly width: number
  readonly height: number
}

/** A box's size. */
export interface Box {
  readonly width: number
  readonly height: number
}

/** Which way the layers go. */
export type Direction = 'LR' | 'TB'

export const BOX: Box = { width: 128, height: 40 }
