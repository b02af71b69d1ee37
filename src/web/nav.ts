/**
 * Where the page is: the view shown and the run chosen on the runs view,
 * so one view can open something in another (a recording's replay opens
 * in the runs view) without loading the other's code.
 */
import { signal } from '@preact/signals'

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
