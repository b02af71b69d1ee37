/**
 * The daemon's sessions, above every view: the session shown — whose
 * nodes the Nodes view lists and in which the page creates nodes, starts
 * runs and networks, saves and opens saved sessions — chosen from the
 * list; a new one created (`CREATE_SESSION`) and shown; one closed
 * (`CLOSE_SESSION`, not the default one). The list follows the daemon's
 * `SESSION_CREATED` and `SESSION_CLOSED`, so a session opened or closed by
 * another client appears or goes at once.
 */
import { useState } from 'preact/hooks'
import { attempt } from './problem.js'
import { chooseSession, client } from './session.js'
import { defaultSession, sessions, shown } from './state.js'
import { Form, TextField } from './fields.js'

/** Creates `sessionId` on the daemon and shows it. */
const create = async (sessionId: string): Promise<void> => {
  const made = await client().call('CREATE_SESSION', { sessionId })
  // Listed at once: its event may come after the answer.
  sessions.value = new Map(sessions.value).set(made.sessionId, made)
  await chooseSession(made.sessionId)
}

/** Closes `sessionId` (its nodes stop) and shows the default session. */
const close = async (sessionId: string): Promise<void> => {
  await client().call('CLOSE_SESSION', { sessionId })
  const fallback = defaultSession()
  if (shown.value === sessionId && fallback !== undefined) await chooseSession(fallback)
}

const NewSession = ({ done }: { done: () => void }) => {
  const [name, setName] = useState('')
  return (
    <Form
      class="inline"
      submit={() => {
        attempt(async () => {
          await create(name.trim())
          done()
        })
      }}
    >
      <TextField label="New session id" name="sessionId" value={name} required onInput={setName} />
      <button type="submit">Create session</button>
      <button type="button" onClick={done}>
        Cancel
      </button>
    </Form>
  )
}

export const SessionBar = () => {
  const [creating, setCreating] = useState(false)
  const current = shown.value
  // Until the sessions are listed (just after the first drawing), the nodes are the default session's.
  if (current === undefined)
    return (
      <div class="sessionbar">
        <span class="hint">Session: the daemon's default</span>
      </div>
    )
  const list = [...sessions.value.values()]
  const isDefault = sessions.value.get(current)?.default ?? false
  return (
    <div class="sessionbar" role="group" aria-label="Sessions" data-session={current}>
      <label>
        Session{' '}
        <select
          name="session"
          aria-label="Session"
          value={current}
          onChange={(e) => {
            const id = e.currentTarget.value
            attempt(() => chooseSession(id))
          }}
        >
          {list.map((s) => (
            <option key={s.sessionId} value={s.sessionId}>
              {s.default ? `${s.name} (default)` : s.name}
            </option>
          ))}
          {!sessions.value.has(current) && <option value={current}>{current}</option>}
        </select>
      </label>
      <span class="hint">
        {list.length} {list.length === 1 ? 'session' : 'sessions'}; the page acts in this one
      </span>
      {!isDefault && (
        <button
          type="button"
          onClick={() => {
            attempt(() => close(current))
          }}
        >
          Close session
        </button>
      )}
      {creating ? (
        <NewSession
          done={() => {
            setCreating(false)
          }}
        />
      ) : (
        <button
          type="button"
          onClick={() => {
            setCreating(true)
          }}
        >
          New session
        </button>
      )}
    </div>
  )
}
