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
  columns,
  setColumn,
  view,
  views,
  type View,
} from './nav.js'
import { chooseSession, client } from './session.js'
import { networks } from './networkState.js'
import { connection, defaultSession, nodes, runs, sessions, shown } from './state.js'

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
  }
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

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
  const { item } = place
  /** `item` when `exists` says so, else none and a note of `what` is shown instead. */
  const check = async (
    exists: (id: string) => boolean | Promise<boolean>,
    what: string,
    instead: string,
  ): Promise<string | undefined> => {
    if (item === undefined || (await exists(item))) return item
    notes.push(`There is no ${what} "${item}": ${instead}.`)
    return undefined
  }
  switch (v) {
    case 'runs':
      chosenRun.value = await check((id) => runs.value.has(id), 'run', 'the newest is shown')
      break
    case 'networks':
      chosenNetwork.value = await check(
        (id) => networks.value.has(id),
        'network',
        'the newest is shown',
      )
      break
    case 'chats':
      chosenChat.value = await check(
        async (id) => (await client().call('CHAT_LIST', {})).chats.some((c) => c.chatId === id),
        'chat',
        'no chat is shown',
      )
      break
    case 'conversations':
      setColumn(
        0,
        await check(
          (id) => nodes.value.get(id)?.kind === 'llm',
          'LLM node',
          'no conversation is shown',
        ),
      )
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
      // Changes made together (a view and its item) are one history entry.
      queueMicrotask(() => {
        queued = false
        if (opening > 0) return
        // A place in a session closed since is not one to go back to.
        const was = parsePlace(location.hash).session
        write(was !== undefined && !sessions.value.has(was) ? 'replace' : 'push')
      })
    })
    const moved = (): void => {
      if (location.hash !== formatPlace(here())) void openAddress()
    }
    addEventListener('popstate', moved)
    addEventListener('hashchange', moved)
  })
}
