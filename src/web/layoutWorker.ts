/**
 * The layout worker: lays graphs out ({@link ./layout.ts}) off the page's
 * main thread, so the page keeps answering while a large network is laid
 * out. Bundled as `layout.js`; asked by {@link ./layoutClient.ts}.
 */
import type { Box, Direction } from './drawing.js'
import type { Group } from './groups.js'
import { layout } from './layout.js'

/** What the page asks. */
export interface LayoutRequest {
  readonly seq: number
  readonly ids: readonly string[]
  readonly edges: readonly (readonly [string, string])[]
  readonly direction: Direction
  readonly box: Box
  readonly groups: readonly Group[]
}

const scope = self as unknown as {
  onmessage: ((m: MessageEvent<LayoutRequest>) => void) | null
  postMessage(m: unknown): void
}

scope.onmessage = ({ data: r }) => {
  try {
    scope.postMessage({ seq: r.seq, drawing: layout(r.ids, r.edges, r.direction, r.box, r.groups) })
  } catch (e) {
    scope.postMessage({ seq: r.seq, error: e instanceof Error ? e.message : String(e) })
  }
}
