/**
 * The dashboard's frame: a header with the views and the connection's
 * state, and the view chosen.
 */
import { signal } from '@preact/signals'
import { ConversationsView } from './ConversationsView.js'
import { NetworksView } from './NetworksView.js'
import { NodesView } from './NodesView.js'
import { RunsView } from './RunsView.js'
import { connection } from './state.js'

const views = {
  nodes: 'Nodes',
  runs: 'Graph runs',
  networks: 'Networks',
  conversations: 'Conversations',
} as const
type View = keyof typeof views
const view = signal<View>('nodes')

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
    <main>
      {view.value === 'nodes' ? (
        <NodesView />
      ) : view.value === 'runs' ? (
        <RunsView />
      ) : view.value === 'networks' ? (
        <NetworksView />
      ) : (
        <ConversationsView />
      )}
    </main>
  </>
)
