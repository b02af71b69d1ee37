/**
 * The page's place as its address's fragment: `#/VIEW?session=S&ITEM=I`,
 * e.g. `#/chats?session=s2&chat=c1`. `VIEW` is a view's key; `session` the
 * session shown, left out for the daemon's default one; the item chosen
 * in the view is named after what it is — `run` (Graph runs), `network`
 * (Networks), `chat` (Chats), `node` (Conversations: the first column's
 * LLM node) — and left out when none is chosen; so is the detail chosen
 * in it, `step` (the run's step) and `node2` (the second column's LLM
 * node), e.g. `#/runs?run=r1&step=build`; the Nodes view names its
 * terminal tiles, one `tile` each in the order they were opened
 * (`#/nodes?tile=shell&tile=s2%2Fagent`: the node, after its session and
 * a slash when that is not the default one). Values are encoded as a
 * query string's are. The fragment never reaches the daemon and holds no
 * secret: the session cookie alone lets the page in.
 */
import type { View } from './nav.js'

/** A place as the address says it: the view as written (it may name no view). */
export interface Place {
  readonly view: string
  readonly session: string | undefined
  readonly item: string | undefined
  /** A second choice in the view: the run's step, the second column's node. */
  readonly detail: string | undefined
  /** The Nodes view's terminal tiles, as written (`node` or `session/node`); none in another view. */
  readonly tiles: readonly string[]
}

/** What the item chosen in a view is called in the address, for the views that choose one. */
export const itemKey: Readonly<Partial<Record<View, string>>> = {
  runs: 'run',
  networks: 'network',
  chats: 'chat',
  conversations: 'node',
}

/** What the detail chosen in a view is called in the address, for the views that have one. */
export const detailKey: Readonly<Partial<Record<View, string>>> = {
  runs: 'step',
  conversations: 'node2',
}

const keyIn = (keys: Readonly<Partial<Record<View, string>>>, view: string): string | undefined =>
  Object.hasOwn(keys, view) ? keys[view as View] : undefined

/** The fragment (with its `#`) that says `place`. */
export const formatPlace = (place: Place): string => {
  const query = new URLSearchParams()
  if (place.session !== undefined) query.set('session', place.session)
  const key = keyIn(itemKey, place.view)
  if (key !== undefined && place.item !== undefined) query.set(key, place.item)
  const detail = keyIn(detailKey, place.view)
  if (detail !== undefined && place.detail !== undefined) query.set(detail, place.detail)
  if (place.view === 'nodes') for (const tile of place.tiles) query.append('tile', tile)
  const q = query.toString()
  return `#/${encodeURIComponent(place.view)}${q === '' ? '' : `?${q}`}`
}

/**
 * The place a fragment says (with or without its `#`); an empty one is the
 * Nodes view. What it cannot read is kept as written, for the page to say
 * it names nothing: a view that is none, a parameter the view has no use
 * for is dropped.
 */
export const parsePlace = (hash: string): Place => {
  const body = hash.replace(/^#?\/?/, '')
  const at = body.indexOf('?')
  const path = at < 0 ? body : body.slice(0, at)
  const query = new URLSearchParams(at < 0 ? '' : body.slice(at + 1))
  let view: string
  try {
    view = path === '' ? 'nodes' : decodeURIComponent(path)
  } catch {
    view = path
  }
  const read = (key: string | undefined): string | undefined =>
    key === undefined ? undefined : (query.get(key) ?? undefined)
  return {
    view,
    session: query.get('session') ?? undefined,
    item: read(keyIn(itemKey, view)),
    detail: read(keyIn(detailKey, view)),
    tiles: view === 'nodes' ? query.getAll('tile') : [],
  }
}
