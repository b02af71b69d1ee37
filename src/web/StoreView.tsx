/**
 * The store: the sessions the daemon's store saved and the recordings it
 * keeps, read with the store's commands (and the session saved on demand,
 * `SAVE_SESSION`). A saved session opens as its nodes (kind, state when
 * saved) and an LLM node's conversation drawn as its DAG, and "Open live"
 * brings its nodes back into the session shown (`LOAD_SAVED_SESSION`),
 * where the Nodes view shows them; a recording opens in the runs view as
 * its replay (`REPLAY_GRAPH`), from where it can be re-run from a step.
 */
import { signal } from '@preact/signals'
import { useEffect, useState } from 'preact/hooks'
import type { RecordingSummary, Results, SavedSession } from '../protocol/index.js'
import { ConversationDag, verticesOf } from './ConversationDag.js'
import { chosenRun, view } from './nav.js'
import { attempt } from './problem.js'
import { chooseSession, client } from './session.js'
import { addRun, inShown, shown as shownSession } from './state.js'
import { ProblemLine } from './ProblemLine.js'

interface Listed {
  readonly sessions: readonly SavedSession[]
  readonly recordings: readonly RecordingSummary[]
}

/** What the store holds, once read; `'none'` when the daemon keeps no store. */
const listed = signal<Listed | 'none' | undefined>(undefined)
const opened = signal<string | undefined>(undefined)

const load = (): void => {
  attempt(async () => {
    try {
      const c = client()
      const [s, r] = await Promise.all([
        c.call('LIST_SAVED_SESSIONS', {}),
        c.call('LIST_RECORDINGS', {}),
      ])
      listed.value = { sessions: s.sessions, recordings: r.recordings }
    } catch (e) {
      if ((e as { tag?: unknown }).tag !== 'NoStore') throw e
      listed.value = 'none'
    }
  })
}

/** Replays a recording in the session shown and shows its run in the runs view. */
const replay = async (r: RecordingSummary): Promise<void> => {
  const scope = inShown()
  const { runId } = await client().call('REPLAY_GRAPH', { recordingId: r.recordingId, ...scope })
  addRun({
    runId,
    graphId: r.graphId,
    state: 'running',
    startedAt: new Date().toISOString(),
    ...scope,
  })
  chosenRun.value = runId
  view.value = 'runs'
}

/** What "Open live" did: the nodes registered again, those skipped and why, and the way to them. */
const Loaded = ({ loaded }: { loaded: Results['LOAD_SAVED_SESSION'] }) => (
  <div class="hint" data-loaded={loaded.restored.join(' ')} role="status">
    {loaded.restored.length === 0
      ? 'No node was opened live.'
      : `Opened live in ${loaded.sessionId}: ${loaded.restored.join(', ')}.`}
    {loaded.skipped.length > 0 &&
      ` Skipped: ${loaded.skipped.map((k) => `${k.name} (${k.reason})`).join('; ')}.`}{' '}
    {loaded.restored.length > 0 && (
      <button
        type="button"
        onClick={() => {
          attempt(() => chooseSession(loaded.sessionId))
          view.value = 'nodes'
        }}
      >
        Show the nodes
      </button>
    )}
  </div>
)

const SavedSessionPanel = ({ sessionId }: { sessionId: string }) => {
  const [saved, setSaved] = useState<Results['GET_SAVED_SESSION'] | undefined>(undefined)
  const [shown, setShown] = useState<string | undefined>(undefined)
  const [loaded, setLoaded] = useState<Results['LOAD_SAVED_SESSION'] | undefined>(undefined)
  useEffect(() => {
    attempt(async () => {
      const got = await client().call('GET_SAVED_SESSION', { sessionId })
      setSaved(got)
      setShown(got.nodes.find((n) => n.conversation !== undefined)?.name)
    })
  }, [sessionId])
  if (saved === undefined) return <p class="status">Loading…</p>
  const talking = saved.nodes.filter((n) => n.conversation !== undefined)
  const conversation = saved.nodes.find((n) => n.name === shown)?.conversation
  return (
    <section class="run" aria-label={`Saved session ${sessionId}`} data-saved={sessionId}>
      <h3>
        {saved.session.name}{' '}
        <small>saved {new Date(saved.session.updatedAt).toLocaleString()}</small>
      </h3>
      <p class="buttons">
        <button
          type="button"
          title="Register its nodes again in the session shown, as they were saved"
          onClick={() => {
            attempt(async () => {
              setLoaded(await client().loadSavedSession(sessionId, shownSession.value))
            })
          }}
        >
          Open live
        </button>
      </p>
      {loaded !== undefined && <Loaded loaded={loaded} />}
      <table class="nodes" aria-label={`Nodes of ${sessionId}`}>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Kind</th>
            <th scope="col">State when saved</th>
            <th scope="col">Messages</th>
          </tr>
        </thead>
        <tbody>
          {saved.nodes.map((n) => (
            <tr key={n.name} data-savednode={n.name}>
              <th scope="row">{n.name}</th>
              <td>{n.kind}</td>
              <td>{n.state}</td>
              <td>{n.messageCount ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {talking.length > 0 && (
        <>
          <label>
            Conversation of{' '}
            <select
              value={shown ?? ''}
              onChange={(e) => {
                setShown(e.currentTarget.value)
              }}
            >
              {talking.map((n) => (
                <option key={n.name}>{n.name}</option>
              ))}
            </select>
          </label>
          {shown !== undefined && (
            <div data-savedconversation={shown}>
              <ConversationDag
                key={shown}
                layoutKey={`saved:${sessionId}:${shown}`}
                label={`Saved conversation of ${shown}`}
                vertices={verticesOf(conversation)}
              />
            </div>
          )}
        </>
      )}
    </section>
  )
}

export const StoreView = () => {
  useEffect(load, [])
  const l = listed.value
  return (
    <section aria-labelledby="store-title">
      <h2 id="store-title">Store</h2>
      <p class="buttons">
        <button type="button" onClick={load}>
          Read again
        </button>{' '}
        <button
          type="button"
          onClick={() => {
            attempt(async () => {
              await client().call('SAVE_SESSION', inShown())
              load()
            })
          }}
        >
          Save the session now
        </button>{' '}
        <span class="hint">
          Saving and “Open live” act in the session shown ({shownSession.value ?? 'the default one'}
          ).
        </span>
      </p>
      <ProblemLine />
      {l === 'none' && <p class="empty">This daemon keeps no store.</p>}
      {l !== undefined && l !== 'none' && (
        <div class="split">
          <div>
            <h3>Saved sessions</h3>
            <ul class="runlist" aria-label="Saved sessions">
              {l.sessions.map((s) => (
                <li key={s.sessionId}>
                  <button
                    type="button"
                    aria-pressed={opened.value === s.sessionId}
                    data-savedsession={s.sessionId}
                    onClick={() => {
                      opened.value = s.sessionId
                    }}
                  >
                    {s.name} <small>{s.nodes} nodes</small>
                  </button>
                </li>
              ))}
              {l.sessions.length === 0 && <li class="empty">None saved.</li>}
            </ul>
            <h3>Recordings</h3>
            <ul class="runlist" aria-label="Recordings">
              {[...l.recordings].reverse().map((r) => (
                <li key={r.recordingId} data-recordingitem={r.recordingId}>
                  {r.graphId} <small>{new Date(r.savedAt).toLocaleTimeString()}</small>
                  {r.failed && <span class="state failed"> failed</span>}{' '}
                  <button
                    type="button"
                    disabled={!r.hasGraph}
                    title={r.hasGraph ? undefined : 'it holds no graph file'}
                    onClick={() => {
                      attempt(() => replay(r))
                    }}
                  >
                    Replay
                  </button>
                </li>
              ))}
              {l.recordings.length === 0 && <li class="empty">No recordings.</li>}
            </ul>
          </div>
          {opened.value !== undefined && (
            <SavedSessionPanel key={opened.value} sessionId={opened.value} />
          )}
        </div>
      )}
    </section>
  )
}
