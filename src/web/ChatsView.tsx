/**
 * The daemon's chats, through the `CHAT_*` commands: the list, live (a
 * chat made anywhere appears, `CHAT_CREATED`); a chat's current branch —
 * its messages, then the turn running as it streams (text, thinking, tool
 * calls as they run and their results) — with a box to send a message,
 * retry the last answer and cancel; and its tree, drawn as its
 * conversation DAG with its heads marked, and listed as its branches
 * (`CHAT_BRANCHES`), each made current with "Switch". A vertex chosen in
 * the tree can be answered again ("Retry here") or, a user message,
 * edited: a sibling branch either way. A chat is read whole once, then at
 * each turn's end only what the page lacks; a long one shows its last
 * messages and a big tree folded (see {@link ./chatTree.ts}).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { ChatInfo, Results } from '../protocol/index.js'
import {
  applyChatEvent,
  chats,
  clearEnded,
  endings,
  setChat,
  setChats,
  turns,
  type LiveTurn,
} from './chatState.js'
import { foldTree, mergeTree, type HeldTree } from './chatTree.js'
import { ConversationDag, labelOf, textOf } from './ConversationDag.js'
import { chosenChat } from './nav.js'
import { attempt } from './problem.js'
import { ProblemLine } from './ProblemLine.js'
import { client, onEvent } from './session.js'
import { Form, jsonOrNothing, TextField } from './fields.js'

const loadList = (): void => {
  attempt(async () => {
    setChats((await client().call('CHAT_LIST', {})).chats)
  })
}

onEvent((e) => {
  applyChatEvent(e)
  // Events were dropped on the way (the page fell behind): a turn's end may be among them.
  if (e.type === 'LAGGED') loadList()
})

/** A block of a message's content as a line: text, a tool call, a tool's answer. */
const blockLine = (block: unknown): string => {
  const b = (block ?? {}) as Readonly<Record<string, unknown>>
  switch (b.type) {
    case 'text':
      return String(b.text)
    case 'tool_use':
      return `⚙ ${String(b.name)} ${JSON.stringify(b.input)}`
    case 'tool_result':
      return `↳ ${typeof b.content === 'string' ? b.content : textOf(b.content)}`
    case 'thinking':
      return `(thinking) ${typeof b.thinking === 'string' ? b.thinking : ''}`
    default:
      return `[${String(b.type)}]`
  }
}

/** A message of the current branch (as `CHAT_GET` answers them). */
const Message = ({ message }: { message: unknown }) => {
  const m = message as { role?: string; content?: unknown }
  const lines =
    typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content : []
  return (
    <li class={`msg ${m.role ?? ''}`} data-message={m.role}>
      <span class="who">{m.role}</span>
      <div class="said">
        {lines.map((b, i) => (
          <p key={i}>{typeof b === 'string' ? b : blockLine(b)}</p>
        ))}
      </div>
    </li>
  )
}

/** The turn running (or that just ended): what it was asked, its tools and its text so far. */
const Live = ({ turn }: { turn: LiveTurn }) => (
  <div class="live" data-live={turn.over ? 'over' : 'running'} aria-live="polite">
    {turn.message !== undefined && (
      <p class="msg user">
        <span class="who">{turn.command === 'send' ? 'user' : `user (${turn.command})`}</span>{' '}
        {turn.message}
      </p>
    )}
    {turn.thinking !== '' && <p class="thinking">{turn.thinking}</p>}
    {turn.tools.length > 0 && (
      <ul class="tools">
        {turn.tools.map((t) => (
          <li
            key={t.id}
            data-tool={t.name}
            data-toolstate={t.result === undefined ? 'running' : t.isError ? 'failed' : 'done'}
          >
            ⚙ {t.name} <code>{JSON.stringify(t.input)}</code>
            {t.result !== undefined && <div class={t.isError ? 'problem' : ''}>↳ {t.result}</div>}
          </li>
        ))}
      </ul>
    )}
    <p class="msg assistant" data-streaming>
      <span class="who">assistant</span> {turn.text}
    </p>
    {turn.error !== undefined && <p class="problem">The turn failed: {turn.error}</p>}
  </div>
)

/** The user message of a vertex, edited and answered as a sibling branch. */
const EditForm = ({ chatId, at, text }: { chatId: string; at: string; text: string }) => {
  const [edited, setEdited] = useState(text)
  return (
    <Form
      class="inline"
      submit={() => {
        attempt(() => client().call('CHAT_EDIT', { chatId, at, message: edited }))
      }}
    >
      <TextField label="Edit the message" value={edited} required onInput={setEdited} />
      <button type="submit">Edit as a new branch</button>
    </Form>
  )
}

/** The most vertices of a chat's tree drawn (a layout of many thousands would hold the page up); the rest is folded. */
const MAX_DRAWN = 400
/** How many of the current branch's last messages are shown at first, and how many more each "earlier" shows. */
const MESSAGES_SHOWN = 200

type Got = Results['CHAT_GET']

/** A chat as the page holds it: its last answer, the current branch's messages and the tree, both grown at each read. */
interface Held {
  readonly got: Got
  readonly messages: readonly unknown[]
  readonly tree: HeldTree
}

/**
 * Reads a chat: whole the first time, then only what `held` lacks (the
 * tree's vertices its heads do not reach, the messages after those of the
 * current head it read), merged into it.
 */
const read = async (chatId: string, held: Held | undefined): Promise<Held> => {
  const got = await client().call('CHAT_GET', {
    chatId,
    tree: true,
    ...(held !== undefined && { known: held.tree.heads }),
    ...(held?.got.current !== undefined && { since: held.got.current }),
  })
  return {
    got,
    messages:
      got.messagesFrom === undefined || held === undefined
        ? got.messages
        : [...held.messages.slice(0, got.messagesFrom), ...got.messages],
    tree: mergeTree(held?.tree, got.conversation),
  }
}
type Tree = Results['CHAT_BRANCHES']

/** The chat's info alone, without its messages and tree. */
const infoOf = (g: Got): ChatInfo => ({
  chatId: g.chatId,
  sessionId: g.sessionId,
  createdAt: g.createdAt,
  heads: g.heads,
  running: g.running,
  ...(g.current !== undefined && { current: g.current }),
  ...(g.recovered !== undefined && { recovered: g.recovered }),
})

const ChatPanel = ({ chatId }: { chatId: string }) => {
  const [held, setHeld] = useState<Held | undefined>(undefined)
  const holding = useRef<Held | undefined>(undefined)
  const [tree, setTree] = useState<Tree | undefined>(undefined)
  const [picked, setPicked] = useState<string | undefined>(undefined)
  const [unfolded, setUnfolded] = useState<readonly (readonly string[])[]>([])
  const [earlier, setEarlier] = useState(0)
  const [message, setMessage] = useState('')
  const [reads, setReads] = useState(0)
  const ends = endings.value.get(chatId) ?? 0
  useEffect(() => {
    let shown = true
    attempt(async () => {
      const [h, b] = await Promise.all([
        read(chatId, holding.current),
        client().call('CHAT_BRANCHES', { chatId }),
      ])
      if (!shown) return
      holding.current = h
      setHeld(h)
      setTree(b)
      setChat(infoOf(h.got))
      clearEnded(chatId)
    })
    return () => {
      shown = false
    }
  }, [chatId, ends, reads])
  // Folded again when the tree or the folds clicked change, not at each streamed word.
  const folded = useMemo(
    () =>
      held === undefined
        ? undefined
        : foldTree(held.tree.vertices, {
            heads: held.got.heads,
            current: held.got.current,
            unfolded,
            limit: MAX_DRAWN,
          }),
    [held, unfolded],
  )
  if (held === undefined || tree === undefined || folded === undefined)
    return <p class="status">Loading…</p>
  const { got, messages } = held
  const turn = turns.value.get(chatId)
  const running = turn === undefined ? got.running : !turn.over
  const vertices = held.tree.vertices
  const vertex = vertices.find((v) => v.id === picked)
  const hidden = Math.max(0, messages.length - MESSAGES_SHOWN - earlier)
  return (
    <section class="run chat" aria-label={`Chat ${chatId}`} data-chat={chatId}>
      <div class="split">
        <div class="column">
          <h3>Current branch</h3>
          {hidden > 0 && (
            <button
              type="button"
              onClick={() => {
                setEarlier((n) => n + MESSAGES_SHOWN)
              }}
            >
              Show earlier messages ({hidden} not shown)
            </button>
          )}
          <ol class="messages" aria-label={`Messages of ${chatId}`} start={hidden + 1}>
            {messages.slice(hidden).map((m, i) => (
              <Message key={hidden + i} message={m} />
            ))}
          </ol>
          {messages.length === 0 && turn === undefined && <p class="empty">Nothing said yet.</p>}
          {turn !== undefined && <Live turn={turn} />}
          <Form
            class="inline"
            submit={() => {
              const text = message
              setMessage('')
              attempt(() => client().call('CHAT_SEND', { chatId, message: text }))
            }}
          >
            <TextField label={`Say to ${chatId}`} value={message} required onInput={setMessage} />
            <button type="submit">Send</button>
            <button
              type="button"
              disabled={running || messages.length === 0}
              onClick={() => {
                attempt(() => client().call('CHAT_RETRY', { chatId }))
              }}
            >
              Retry
            </button>
            <button
              type="button"
              disabled={!running}
              onClick={() => {
                attempt(() => client().call('CHAT_CANCEL', { chatId }))
              }}
            >
              Cancel
            </button>
          </Form>
        </div>
        <div class="column">
          <h3>Branches</h3>
          <ol class="branches" aria-label={`Branches of ${chatId}`}>
            {tree.branches.map((b, i) => (
              <li key={b.head} data-branch={b.head} data-current={b.current}>
                {b.asked} → {b.answer}{' '}
                <small>
                  {b.messages} messages
                  {b.sharedMessages !== undefined && `, ${b.sharedMessages} shared`}
                </small>{' '}
                {b.current ? (
                  <strong>current</strong>
                ) : (
                  <button
                    type="button"
                    aria-label={`Switch to branch ${i + 1}`}
                    onClick={() => {
                      attempt(async () => {
                        setChat(await client().call('CHAT_SWITCH', { chatId, head: b.head }))
                        setReads((n) => n + 1)
                      })
                    }}
                  >
                    Switch
                  </button>
                )}
              </li>
            ))}
          </ol>
        </div>
      </div>
      <h3>Tree</h3>
      {/* Focusable, so that a keyboard can scroll a wide tree. */}
      <div class="dag" tabIndex={0} role="region" aria-label={`Tree of chat ${chatId}, scrollable`}>
        {folded.folds.length > 0 && (
          <p class="hint">
            The tree holds {vertices.length} vertices: {folded.shown.length} are drawn, nearest its
            heads; each &quot;more&quot; box unfolds when clicked.
          </p>
        )}
        <ConversationDag
          layoutKey={`chat:${chatId}`}
          label={`Tree of chat ${chatId}`}
          vertices={folded.shown}
          chosen={picked}
          choose={setPicked}
          heads={got.heads}
          current={got.current}
          folds={folded.folds}
          unfold={(f) => {
            // The last few clicked: an older one folds again when the limit is reached anyway.
            setUnfolded((u) => [f.ids, ...u].slice(0, 8))
          }}
        />
      </div>
      {vertex !== undefined && (
        <div class="step" data-picked={vertex.id}>
          <pre>{labelOf(vertex)}</pre>
          <p class="buttons">
            <button
              type="button"
              disabled={running}
              onClick={() => {
                attempt(() => client().call('CHAT_RETRY', { chatId, at: vertex.id }))
              }}
            >
              Retry here
            </button>
          </p>
          {vertex.data.type === 'message' && vertex.data.role === 'user' && (
            <EditForm
              key={vertex.id}
              chatId={chatId}
              at={vertex.id}
              text={textOf(vertex.data.content)}
            />
          )}
        </div>
      )}
    </section>
  )
}

/** A new chat: its id and its agent's options (an `llm` node's, as JSON). */
const CreateChat = () => {
  const [id, setId] = useState('')
  const [agent, setAgent] = useState('')
  return (
    <Form
      class="create"
      submit={() => {
        attempt(async () => {
          const options = jsonOrNothing(agent)
          setChat(
            await client().call('CHAT_CREATE', {
              chatId: id,
              ...(options !== undefined && { agent: options as Record<string, unknown> }),
            }),
          )
          chosenChat.value = id
          setId('')
        })
      }}
    >
      <TextField label="Chat id" value={id} required onInput={setId} />
      <TextField
        label="Agent options"
        value={agent}
        placeholder='{"provider":"echo"}'
        onInput={setAgent}
      />
      <button type="submit">Create chat</button>
    </Form>
  )
}

export const ChatsView = () => {
  useEffect(loadList, [])
  const list = [...chats.value.values()]
  const shown = chosenChat.value
  return (
    <section aria-labelledby="chats-title">
      <h2 id="chats-title">Chats</h2>
      <CreateChat />
      <ProblemLine />
      <div class="split">
        <ul class="runlist" aria-label="Chats">
          {list.map((c) => (
            <li key={c.chatId}>
              <button
                type="button"
                aria-pressed={shown === c.chatId}
                data-chatitem={c.chatId}
                data-running={c.running}
                onClick={() => {
                  chosenChat.value = c.chatId
                }}
              >
                {c.chatId}{' '}
                <small>
                  {c.running
                    ? 'answering'
                    : `${c.heads.length} ${c.heads.length === 1 ? 'branch' : 'branches'}`}
                </small>
              </button>
            </li>
          ))}
          {list.length === 0 && <li class="empty">No chats yet.</li>}
        </ul>
        {shown !== undefined && <ChatPanel key={shown} chatId={shown} />}
      </div>
    </section>
  )
}
