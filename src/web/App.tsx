/**
 * The dashboard's frame: a header with the views and the connection's
 * state, the session shown (and the others), and the view chosen. The node list is in the first script; the
 * other views are chunks of their own, loaded once the list is drawn (or
 * when chosen first), so the page's first drawing waits for no graph code.
 */
import { signal, type Signal } from '@preact/signals'
import type { FunctionComponent } from 'preact'
import { view, views, type View } from './nav.js'
import { NodesView } from './NodesView.js'
import { placeNote } from './place.js'
import { problem } from './problem.js'
import { SessionBar } from './SessionBar.js'
import { connection } from './state.js'

/** A view in a chunk of its own: drawn once loaded, loading it when first asked. */
interface Later {
  readonly view: Signal<FunctionComponent | undefined>
  /** Loads the chunk (once); resolves when it is loaded or failed. */
  load(): Promise<void>
}

const later = (load: () => Promise<FunctionComponent>): Later => {
  const view = signal<FunctionComponent | undefined>(undefined)
  let started: Promise<void> | undefined
  return {
    view,
    load: () =>
      (started ??= load().then(
        (v) => {
          view.value = v
        },
        (e: unknown) => {
          started = undefined
          problem.value = `Cannot load the view: ${e instanceof Error ? e.message : String(e)}`
        },
      )),
  }
}

const chunks = {
  runs: later(() => import('./RunsView.js').then((m) => m.RunsView)),
  networks: later(() => import('./NetworksView.js').then((m) => m.NetworksView)),
  conversations: later(() => import('./ConversationsView.js').then((m) => m.ConversationsView)),
  chats: later(() => import('./ChatsView.js').then((m) => m.ChatsView)),
  store: later(() => import('./StoreView.js').then((m) => m.StoreView)),
}

/**
 * Loads every view's chunk (after the first drawing), so choosing one later
 * waits for nothing: one after the other, a task between, so the page
 * keeps answering meanwhile.
 */
export const loadViews = async (): Promise<void> => {
  for (const c of Object.values(chunks)) {
    await c.load()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
}

const Chosen = () => {
  const v = view.value
  if (v === 'nodes') return <NodesView />
  const chunk = chunks[v]
  void chunk.load()
  const Loaded = chunk.view.value
  return Loaded === undefined ? <p class="status">Loading…</p> : <Loaded />
}

export const App = () => (
  <>
    <header>
      <h1>Nerve</h1>
      <nav aria-label="Views">
        {(Object.keys(views) as View[]).map((v) => (
          <button
            key={v}
            type="button"
            aria-pressed={view.value === v}
            data-view={v}
            onClick={() => {
              view.value = v
            }}
          >
            {views[v]}
          </button>
        ))}
      </nav>
      <span class={`conn ${connection.value}`} role="status" data-connection={connection.value}>
        {connection.value === 'open' ? 'live' : connection.value}
      </span>
    </header>
    <SessionBar />
    {placeNote.value !== undefined && (
      <p class="problem" role="alert" data-place-note>
        {placeNote.value}
      </p>
    )}
    <main>
      <Chosen />
    </main>
  </>
)
