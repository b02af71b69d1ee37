/**
 * Layouts for the views: run in the layout worker ({@link ./layoutWorker.ts})
 * so the page keeps answering meanwhile, and kept per graph (a network, a
 * run, a conversation), so a change of the graph is drawn at once from the
 * drawing there is ({@link extend}) and a view opened again starts where it
 * was.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { BOX, type Box, type Direction, type Drawing } from './drawing.js'
import type { Group } from './groups.js'
import type { LayoutRequest } from './layoutWorker.js'
import { extend } from './placement.js'

type Answer = { seq: number; drawing: Drawing } | { seq: number; error: string }

let worker: Worker | undefined
let seq = 0
const waiting = new Map<number, { resolve(d: Drawing): void; reject(e: Error): void }>()

const theWorker = (): Worker => {
  if (worker !== undefined) return worker
  const w = new Worker('/layout.js', { type: 'module', name: 'layout' })
  w.onmessage = ({ data }: MessageEvent<Answer>) => {
    const call = waiting.get(data.seq)
    waiting.delete(data.seq)
    if ('drawing' in data) call?.resolve(data.drawing)
    else call?.reject(new Error(`layout: ${data.error}`))
  }
  w.onerror = (e) => {
    for (const call of waiting.values())
      call.reject(new Error(`the layout worker failed: ${e.message}`))
    waiting.clear()
    worker = undefined
  }
  worker = w
  return w
}

/** Lays a graph out in the layout worker, with a box around each of `groups`. */
export const layoutOffThread = (
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  direction: Direction = 'LR',
  box: Box = BOX,
  groups: readonly Group[] = [],
): Promise<Drawing> =>
  new Promise((resolve, reject) => {
    const request: LayoutRequest = { seq: ++seq, ids, edges, direction, box, groups }
    waiting.set(request.seq, { resolve, reject })
    theWorker().postMessage(request)
  })

/** The drawing last shown of each graph, by its key. */
const kept = new Map<string, Drawing>()
/** The newest layout asked for each key: an older one answered later is dropped. */
const newest = new Map<string, number>()
let asks = 0

/** A drawing of nothing: what a graph shows before its first layout. */
const NONE: Drawing = { boxes: [], lines: [], width: 0, height: 0 }

/** A view's layout: the drawing (empty before the first layout), whether a layout is running, and a call asking for a full one. */
export interface Layout {
  readonly drawing: Drawing
  readonly laying: boolean
  readonly relayout: () => void
}

/**
 * The layout of the graph `key` (with a box around each of `groups`): laid
 * out in full the first time, and then again either on each change of its
 * boxes, edges or groups (`when: 'changed'`, for small graphs) or only when
 * {@link Layout.relayout} asks (`'asked'`: a change is drawn by
 * {@link extend}, keeping every box in place).
 */
export const useLayout = (
  key: string,
  ids: readonly string[],
  edges: readonly (readonly [string, string])[],
  options: {
    direction?: Direction
    box?: Box
    groups?: readonly Group[]
    when: 'changed' | 'asked'
  },
): Layout => {
  const { direction = 'LR', box = BOX, groups = [], when } = options
  const [, redraw] = useState(0)
  const [asked, setAsked] = useState(0)
  const [laying, setLaying] = useState(false)
  const handled = useRef(0)
  const base = kept.get(key)
  const drawing = base && extend(base, ids, edges, direction, box, groups)
  if (drawing !== undefined) kept.set(key, drawing)
  const signature = when === 'changed' ? JSON.stringify([ids, edges, groups]) : ''
  useEffect(() => {
    if (when === 'asked' && kept.has(key) && asked === handled.current) return
    handled.current = asked
    const mine = ++asks
    newest.set(key, mine)
    setLaying(true)
    layoutOffThread(ids, edges, direction, box, groups).then(
      (d) => {
        if (newest.get(key) !== mine) return
        kept.set(key, d)
        setLaying(false)
        redraw((n) => n + 1)
      },
      () => {
        if (newest.get(key) === mine) setLaying(false)
      },
    )
    // ids, edges and groups are read when the signature (or the key, or a request) changes.
  }, [key, signature, asked])
  return {
    drawing: drawing ?? NONE,
    laying,
    relayout: () => {
      setAsked((n) => n + 1)
    },
  }
}
