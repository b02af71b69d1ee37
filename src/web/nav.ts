/**
 * Where the page is: the view shown and the item chosen in each view (a
 * run and its step, a network, a chat, the LLM nodes of the conversations'
 * columns),
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
