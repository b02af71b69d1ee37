/**
 * An LLM node's conversation as its DAG (`GET_CONVERSATION`, read again
 * when the node answers), two side by side. Choosing a vertex shows it
 * whole; "Fork here" makes a new node whose conversation keeps the
 * messages up to that vertex (`FORK_NODE` with `at`), and a message sent
 * to it grows a branch of its own. A user message chosen can be edited
 * and retried: a fork that keeps the messages before it is told the
 * edited text. The LLM nodes listed are those of the session shown, and
 * the columns it had are kept for when it is shown again.
 */
import { useEffect, useState } from 'preact/hooks'
import { columns, setColumn } from './nav.js'
import { ConversationDag, labelOf, textOf, verticesOf, type VertexJson } from './ConversationDag.js'
import { attempt } from './problem.js'
import { client, onEvent } from './session.js'
import { inShown, nodes, shown } from './state.js'
import { ProblemLine } from './ProblemLine.js'
import { Form, TextField } from './fields.js'

/** The messages a fork at `id` keeps: the message vertices among it and its ancestors. */
const messagesUpTo = (byId: ReadonlyMap<string, VertexJson>, id: string): number => {
  const seen = new Set<string>()
  const stack = [id]
  let count = 0
  while (stack.length > 0) {
    const v = byId.get(stack.pop()!)
    if (v === undefined || seen.has(v.id)) continue
    seen.add(v.id)
    if (v.data.type === 'message') count++
    stack.push(...v.parents)
  }
  return count
}

/** A user message edited, sent again as a new branch (a fork before it, told the edited text). */
const EditRetry = ({ text, retry }: { text: string; retry: (edited: string) => void }) => {
  const [edited, setEdited] = useState(text)
  return (
    <Form
      class="inline"
      submit={() => {
        retry(edited)
      }}
    >
      <TextField label="Edit the message" value={edited} required onInput={setEdited} />
      <button type="submit">Edit and retry</button>
    </Form>
  )
}

const Conversation = ({ nodeId, column }: { nodeId: string; column: number }) => {
  const [vertices, setVertices] = useState<readonly VertexJson[]>([])
  const [chosen, setChosen] = useState<string | undefined>(undefined)
  const [target, setTarget] = useState(`${nodeId}-b`)
  const [message, setMessage] = useState('')
  useEffect(() => {
    const load = (): void => {
      attempt(async () => {
        const r = await client().call('GET_CONVERSATION', { ...inShown(), nodeId })
        setVertices(verticesOf(r.conversation))
      })
    }
    load()
    return onEvent((e) => {
      if (e.type !== 'OUTPUT_PARSED' || e.nodeId !== nodeId) return
      if (shown.value === undefined || e.sessionId === shown.value) load()
    })
  }, [nodeId])
  const byId = new Map(vertices.map((v) => [v.id, v]))
  const picked = chosen === undefined ? undefined : byId.get(chosen)
  return (
    <section
      class="conversation"
      aria-label={`Conversation of ${nodeId}`}
      data-conversation={nodeId}
    >
      <Form
        class="inline"
        submit={() => {
          attempt(async () => {
            await client().call('RUN_COMMAND', { ...inShown(), nodeId, input: message })
            setMessage('')
          })
        }}
      >
        <TextField label={`Say to ${nodeId}`} value={message} required onInput={setMessage} />
        <button type="submit">Send</button>
      </Form>
      <ConversationDag
        layoutKey={`conversation:${nodeId}`}
        label={`Conversation DAG of ${nodeId}`}
        vertices={vertices}
        chosen={chosen}
        choose={setChosen}
      />
      {picked !== undefined && (
        <div class="step" data-picked={picked.id}>
          <pre>{labelOf(picked)}</pre>
          <Form
            class="inline"
            submit={() => {
              attempt(async () => {
                await client().call('FORK_NODE', {
                  ...inShown(),
                  sourceId: nodeId,
                  targetId: target,
                  at: messagesUpTo(byId, picked.id),
                })
                setColumn(column === 0 ? 1 : column, target)
              })
            }}
          >
            <TextField label="Fork here as" value={target} onInput={setTarget} />
            <button type="submit">Fork here</button>
          </Form>
          {picked.data.type === 'message' && picked.data.role === 'user' && (
            <EditRetry
              key={picked.id}
              text={textOf(picked.data.content)}
              retry={(edited) => {
                attempt(async () => {
                  // The messages before this one, then the edited one, on a node of its own.
                  await client().call('FORK_NODE', {
                    ...inShown(),
                    sourceId: nodeId,
                    targetId: target,
                    at: messagesUpTo(byId, picked.id) - 1,
                  })
                  setColumn(column === 0 ? 1 : column, target)
                  await client().call('RUN_COMMAND', {
                    ...inShown(),
                    nodeId: target,
                    input: edited,
                  })
                })
              }}
            />
          )}
        </div>
      )}
    </section>
  )
}

export const ConversationsView = () => {
  const llms = [...nodes.value.values()].filter((n) => n.kind === 'llm').map((n) => n.id)
  return (
    <section aria-labelledby="conv-title">
      <h2 id="conv-title">Conversations</h2>
      <ProblemLine />
      {llms.length === 0 && (
        <p class="empty">No LLM node in this session: create one on the Nodes view.</p>
      )}
      <div class="split">
        {columns().map((id, i) => (
          <div class="column" key={i}>
            <label>
              {i === 0 ? 'Conversation' : 'Beside it'}{' '}
              <select
                aria-label={i === 0 ? 'Conversation' : 'Beside it'}
                value={id ?? ''}
                onChange={(e) => {
                  setColumn(i, e.currentTarget.value === '' ? undefined : e.currentTarget.value)
                }}
              >
                <option value="">—</option>
                {llms.map((n) => (
                  <option key={n}>{n}</option>
                ))}
              </select>
            </label>
            {id !== undefined && (
              <Conversation key={`${shown.value ?? ''}\n${id}`} nodeId={id} column={i} />
            )}
          </div>
        ))}
      </div>
    </section>
  )
}
