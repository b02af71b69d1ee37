/**
 * What a laid-out graph is: boxes by their centres, the lines of its
 * edges and the groups drawn around boxes (the layout's answer, and what
 * the views draw).
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

/**
 * A group's box around its member boxes (a network's sub-network): its
 * members as it was drawn for, and its top-left corner and size.
 */
export interface GroupBox {
  readonly id: string
  readonly nodes: readonly string[]
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** A laid-out drawing. */
export interface Drawing {
  readonly boxes: readonly Placed[]
  readonly lines: readonly Line[]
  /** The groups drawn around boxes (absent: none). */
  readonly groups?: readonly GroupBox[]
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
