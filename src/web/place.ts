/**
 * The page's place kept in its address ({@link ./address.ts}): choosing a
 * view, a session or an item adds a history entry, so Back goes to the
 * previous place; an address loaded (a reload, a pasted link) or
 * travelled to (Back, Forward, an edited fragment) is opened once the
 * daemon's lists are in, and what it names that does not exist (a closed
 * session, an unknown chat) is said on the page ({@link placeNote}) and
 * left for the default, the address then corrected in place.
 */
import { effect, signal } from '@preact/signals'
import { formatPlace, parsePlace, type Place } from './address.js'
import {
  chosenChat,
  chosenNetwork,
  chosenRun,
  chosenStep,
  columns,
  setColumn,
  tiles,
  view,
  views,
  type Tile,
  type View,
} from './nav.js'
import { chooseSession, client, getRun } from './session.js'
import { networks } from './networkState.js'
import { applyTrace, connection, defaultSession, nodes, runs, sessions, shown } from './state.js'

/** What the last address opened named that does not exist, as a sentence; none when all did. */
export const placeNote = signal<string | undefined>(undefined)

const isView = (v: string): v is View => Object.hasOwn(views, v)

/** The place the page is at. */
const here = (): Place => {
  const v = view.value
  const s = shown.value
  return {
    view: v,
    session: s === undefined || s === defaultSession() ? undefined : s,
    item:
      v === 'runs'
        ? chosenRun.value
        : v === 'networks'
          ? chosenNetwork.value
          : v === 'chats'
            ? chosenChat.value
            : v === 'conversations'
              ? columns()[0]
              : undefined,
    detail: v === 'runs' ? chosenStep.value : v === 'conversations' ? columns()[1] : undefined,
    tiles:
      v === 'nodes'
        ? tiles.value.map((t) =>
            t.sessionId === undefined || t.sessionId === defaultSession()
              ? t.nodeId
              : `${t.sessionId}/${t.nodeId}`,
          )
        : [],
  }
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The tiles the address names (`node`, or `session/node`) whose node
 * exists, each once; a note for each that does not.
 */
const tilesOf = async (named: readonly string[], notes: string[]): Promise<Tile[]> => {
  const kinds = new Map<string, Promise<ReadonlyMap<string, string>>>()
  /** The kinds of the nodes of `sessionId`, by id: the page's list for the session shown. */
  const kindsIn = (sessionId: string): Promise<ReadonlyMap<string, string>> => {
    let known = kinds.get(sessionId)
    if (known === undefined) {
      known =
        sessionId === shown.value
          ? Promise.resolve(new Map([...nodes.value].map(([id, n]) => [id, n.kind])))
          : client()
              .call('LIST_NODES', { sessionId })
              .then((r) => new Map(r.nodes.map((n) => [n.id, n.type])))
      kinds.set(sessionId, known)
    }
    return known
  }
  const found: Tile[] = []
  for (const tile of new Set(named)) {
    const slash = tile.indexOf('/')
    const sessionId = slash < 0 ? defaultSession() : tile.slice(0, slash)
    const nodeId = tile.slice(slash + 1)
    const kind =
      sessionId !== undefined && sessions.value.has(sessionId)
        ? (await kindsIn(sessionId)).get(nodeId)
        : undefined
    if (kind !== undefined) found.push({ sessionId, nodeId, kind })
    else
      notes.push(
        `There is no node "${nodeId}"${slash < 0 ? '' : ` in session "${sessionId}"`}: its terminal is not shown.`,
      )
  }
  return found
}

/** Whether run `runId` has step `id`: of the steps the page knows, else of the run's trace (then kept). */
const hasStep = async (runId: string, id: string): Promise<boolean> => {
  if (runs.value.get(runId)?.steps.has(id) === true) return true
  const { trace } = await getRun(runId)
  if (trace !== undefined) applyTrace(trace)
  return runs.value.get(runId)?.steps.has(id) === true
}

/**
 * Makes the page show `place` (after the daemon's lists are in), as far as
 * what it names exists; says what does not.
 */
const open = async (place: Place): Promise<void> => {
  const notes: string[] = []
  const v = isView(place.view) ? place.view : 'nodes'
  if (v !== place.view) notes.push(`There is no view "${place.view}": the Nodes view is shown.`)
  view.value = v
  const fallback = defaultSession()
  let target = place.session ?? fallback
  if (target !== undefined && !sessions.value.has(target)) {
    notes.push(`There is no session "${target}" (closed?): the default session is shown.`)
    target = fallback
  }
  if (target !== undefined && target !== shown.value)
    await chooseSession(target).catch((e: unknown) => {
      notes.push(`Cannot show session "${target}": ${messageOf(e)}`)
    })
  /** `id` when `exists` says so, else none and a note of `what` is shown instead. */
  const check = async (
    id: string | undefined,
    exists: (id: string) => boolean | Promise<boolean>,
    what: string,
    instead: string,
  ): Promise<string | undefined> => {
    if (id === undefined || (await exists(id))) return id
    notes.push(`There is no ${what} "${id}": ${instead}.`)
    return undefined
  }
  const { item, detail } = place
  const isLlm = (id: string): boolean => nodes.value.get(id)?.kind === 'llm'
  switch (v) {
    case 'runs': {
      chosenRun.value = await check(item, (id) => runs.value.has(id), 'run', 'the newest is shown')
      // A step of the run shown: of the newest when the address names no run.
      const runId = chosenRun.value ?? [...runs.value.keys()].at(-1)
      chosenStep.value = await check(
        detail,
        (id) => runId !== undefined && hasStep(runId, id),
        'step',
        'no step is chosen',
      )
      break
    }
    case 'networks':
      chosenNetwork.value = await check(
        item,
        (id) => networks.value.has(id),
        'network',
        'the newest is shown',
      )
      break
    case 'chats':
      chosenChat.value = await check(
        item,
        async (id) => (await client().call('CHAT_LIST', {})).chats.some((c) => c.chatId === id),
        'chat',
        'no chat is shown',
      )
      break
    case 'conversations':
      setColumn(0, await check(item, isLlm, 'LLM node', 'no conversation is shown'))
      setColumn(1, await check(detail, isLlm, 'LLM node', 'the second column shows none'))
      break
    case 'nodes':
      tiles.value = await tilesOf(place.tiles, notes)
      break
    default:
      break
  }
  placeNote.value = notes.length === 0 ? undefined : notes.join(' ')
}

/** Addresses being opened: the page's changes meanwhile are theirs, not the person's. */
let opening = 0
/** The latest address asked to be opened: an earlier one still opening stops short of the address. */
let latest = 0

/** Writes the page's place into the address: a new history entry (`push`) or in place of the last. */
const write = (how: 'push' | 'replace'): void => {
  const hash = formatPlace(here())
  if (hash === location.hash) return
  const url = `${location.pathname}${location.search}${hash}`
  if (how === 'push') {
    history.pushState(null, '', url)
    placeNote.value = undefined
  } else history.replaceState(null, '', url)
}

/** Opens the place the address says now, then corrects the address to what is shown. */
const openAddress = async (): Promise<void> => {
  const mine = ++latest
  opening++
  try {
    await open(parsePlace(location.hash))
  } catch (e) {
    placeNote.value = `Cannot open this address: ${messageOf(e)}`
  } finally {
    opening--
  }
  if (mine === latest) write('replace')
}

/** Resolves once the daemon's lists are in (the connection turns `open`). */
const listed = (): Promise<void> =>
  new Promise((resolve) => {
    const stop = effect(() => {
      if (connection.value !== 'open') return
      resolve()
      queueMicrotask(() => {
        stop()
      })
    })
  })

/**
 * Shows the view the address names at once (call before the first
 * drawing), then, once the lists are in, opens the whole place, and from
 * then on keeps the address and the page in step.
 */
export const followAddress = (): void => {
  const first = parsePlace(location.hash).view
  if (isView(first)) view.value = first
  void listed().then(async () => {
    await openAddress()
    let queued = false
    effect(() => {
      // Read here so that every change of the place runs this again.
      formatPlace(here())
      if (queued || opening > 0) return
      queued = true
      // Changes made together (a view and its item) are one history entry, written in a task of
      // its own: the browser's history is slow to write, and the drawing of a view goes first.
      setTimeout(() => {
        queued = false
        if (opening > 0) return
        // A place in a session closed since is not one to go back to.
        const was = parsePlace(location.hash).session
        write(was !== undefined && !sessions.value.has(was) ? 'replace' : 'push')
      }, 0)
    })
    const moved = (): void => {
      if (location.hash !== formatPlace(here())) void openAddress()
    }
    addEventListener('popstate', moved)
    addEventListener('hashchange', moved)
  })
}
