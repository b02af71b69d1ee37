/**
 * The nodes of the session shown (chosen above the views): kind, state
 * and how long it has held it; create, stop, fork and delete, in that
 * session; attach a terminal (tiled below, each tile its node's session's,
 * whichever session is shown later).
 */
import { signal } from '@preact/signals'
import { useEffect, useState } from 'preact/hooks'
import { attempt } from './problem.js'
import { client } from './session.js'
import { inShown, nodes, sessions, shown } from './state.js'
import { attach, detach, tiles } from './nav.js'
import { TerminalTile } from './TerminalTile.js'
import { ProblemLine } from './ProblemLine.js'
import { Form, jsonOrNothing, TextField } from './fields.js'

const clock = signal(Date.now())
/** The kinds the daemon creates nodes of (`LIST_KINDS`), read once. */
const kinds = signal<readonly string[]>(['bash'])
setInterval(() => {
  clock.value = Date.now()
}, 1000)

const age = (since: string | undefined): string => {
  if (since === undefined) return ''
  const s = Math.max(0, Math.round((clock.value - Date.parse(since)) / 1000))
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`
}

const CreateForm = () => {
  const [name, setName] = useState('')
  const [kind, setKind] = useState('bash')
  const [options, setOptions] = useState('')
  useEffect(() => {
    attempt(async () => {
      const listed = await client().call('LIST_KINDS', {})
      kinds.value = listed.kinds.filter((k) => k.creatable).map((k) => k.kind)
    })
  }, [])
  return (
    <Form
      class="create"
      submit={() => {
        attempt(async () => {
          const given = jsonOrNothing(options)
          await client().call('CREATE_NODE', {
            ...inShown(),
            nodeId: name,
            kind,
            ...(given !== undefined && { options: given as Record<string, unknown> }),
          })
          setName('')
        })
      }}
    >
      <TextField label="Name" name="nodeId" value={name} required onInput={setName} />
      <label>
        Kind{' '}
        <select
          name="kind"
          value={kind}
          onChange={(e) => {
            setKind(e.currentTarget.value)
          }}
        >
          {kinds.value.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <TextField
        label="Options"
        name="options"
        value={options}
        placeholder={kind === 'llm' ? '{"provider":"echo"}' : 'JSON, optional'}
        onInput={setOptions}
      />
      <button type="submit">Create node</button>
    </Form>
  )
}

const ForkForm = ({ source, done }: { source: string; done: () => void }) => {
  const [target, setTarget] = useState(`${source}-fork`)
  return (
    <Form
      class="inline"
      submit={() => {
        attempt(async () => {
          await client().call('FORK_NODE', { ...inShown(), sourceId: source, targetId: target })
          done()
        })
      }}
    >
      <TextField label="Fork as" value={target} onInput={setTarget} />
      <button type="submit">Fork</button>
      <button type="button" onClick={done}>
        Cancel
      </button>
    </Form>
  )
}

const Row = ({ id }: { id: string }) => {
  const n = nodes.value.get(id)
  const [forking, setForking] = useState(false)
  if (n === undefined) return null
  return (
    <tr data-node={n.id} data-state={n.state} data-since={n.since}>
      <th scope="row">{n.id}</th>
      <td>{n.kind}</td>
      <td>
        <span class={`state ${n.state}`}>{n.state}</span>
      </td>
      <td>{age(n.since)}</td>
      <td class="actions">
        {forking ? (
          <ForkForm
            source={n.id}
            done={() => {
              setForking(false)
            }}
          />
        ) : (
          <>
            <button
              type="button"
              onClick={() => {
                attach(n.id, n.kind)
              }}
            >
              Terminal
            </button>
            <button
              type="button"
              onClick={() => {
                attempt(() => client().call('STOP_NODE', { ...inShown(), nodeId: n.id }))
              }}
            >
              Stop
            </button>
            <button
              type="button"
              onClick={() => {
                setForking(true)
              }}
            >
              Fork
            </button>
            <button
              type="button"
              onClick={() => {
                const scope = inShown()
                detach(scope.sessionId, n.id)
                attempt(() => client().call('DELETE_NODE', { ...scope, nodeId: n.id }))
              }}
            >
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  )
}

/** The name the page gives a session: `undefined` (not listed yet) is the default one. */
const nameOf = (sessionId: string | undefined): string =>
  sessionId === undefined
    ? 'the default session'
    : (sessions.value.get(sessionId)?.name ?? sessionId)

export const NodesView = () => (
  <section aria-labelledby="nodes-title" data-nodes-of={shown.value}>
    <h2 id="nodes-title">Nodes of {nameOf(shown.value)}</h2>
    <CreateForm />
    <ProblemLine />
    <table class="nodes">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col">Kind</th>
          <th scope="col">State</th>
          <th scope="col">For</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {[...nodes.value.keys()].map((id) => (
          <Row key={id} id={id} />
        ))}
      </tbody>
    </table>
    {nodes.value.size === 0 && <p class="empty">No nodes yet: create one above.</p>}
    <div class="tiles">
      {tiles.value.map((t) => (
        <TerminalTile
          key={`${t.sessionId ?? ''}\n${t.nodeId}`}
          sessionId={t.sessionId}
          nodeId={t.nodeId}
          kind={t.kind}
          label={t.sessionId === shown.value ? t.nodeId : `${t.nodeId} (${nameOf(t.sessionId)})`}
          close={() => {
            detach(t.sessionId, t.nodeId)
          }}
        />
      ))}
    </div>
  </section>
)
