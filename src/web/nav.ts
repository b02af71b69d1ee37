/**
 * Where the page is: the view shown and the item chosen in each view (a
 * run and its step, a network, a chat, the LLM nodes of the conversations'
 * columns, the terminals tiled under the nodes),
 * so one view can open something in another (a recording's replay opens
 * in the runs view) without loading the other's code, and the page's
 * address can say where it is ({@link ./place.ts}).
 */
import { signal } from '@preact/signals'
import { shown } from './state.js'

/** The views, by key, with their titles. */
export const views = {
  nodes: 'Nodes',
  runs: 'Graph runs',
  networks: 'Networks',
  conversations: 'Conversations',
  chats: 'Chats',
  store: 'Store',
} as const

/** One of {@link views}. */
export type View = keyof typeof views

/** The view shown. */
export const view = signal<View>('nodes')

/** The run chosen on the runs view (the newest when none). */
export const chosenRun = signal<string | undefined>(undefined)

/** The step chosen in the run shown on the runs view (none when none). */
export const chosenStep = signal<string | undefined>(undefined)

/** The network chosen on the networks view (the newest when none). */
export const chosenNetwork = signal<string | undefined>(undefined)

/** The chat shown on the chats view (none when none). */
export const chosenChat = signal<string | undefined>(undefined)

/** The LLM node of each column of the conversations view. */
export type Columns = readonly (string | undefined)[]

/** The conversations' columns, by the session shown when they were chosen. */
export const chosenColumns = signal<ReadonlyMap<string | undefined, Columns>>(new Map())

/** The columns of the session shown. */
export const columns = (): Columns => chosenColumns.value.get(shown.value) ?? [undefined, undefined]

/** Shows `nodeId` (or nothing) in column `i`, in the session shown. */
export const setColumn = (i: number, nodeId: string | undefined): void => {
  const next = [...columns()]
  next[i] = nodeId
  chosenColumns.value = new Map(chosenColumns.value).set(shown.value, next)
}

/** A terminal tiled: its node, the node's session and kind. */
export interface Tile {
  readonly sessionId: string | undefined
  readonly nodeId: string
  readonly kind: string
}

/** The terminals tiled on the Nodes view, in the order they were opened. */
export const tiles = signal<readonly Tile[]>([])

const same = (t: Tile, sessionId: string | undefined, nodeId: string): boolean =>
  t.sessionId === sessionId && t.nodeId === nodeId

/** Tiles the terminal of `nodeId` of the session shown, unless it is tiled already. */
export const attach = (nodeId: string, kind: string): void => {
  const sessionId = shown.value
  if (!tiles.value.some((t) => same(t, sessionId, nodeId)))
    tiles.value = [...tiles.value, { sessionId, nodeId, kind }]
}

/** Closes the tile of `nodeId` of `sessionId`, if there is one. */
export const detach = (sessionId: string | undefined, nodeId: string): void => {
  tiles.value = tiles.value.filter((t) => !same(t, sessionId, nodeId))
}
