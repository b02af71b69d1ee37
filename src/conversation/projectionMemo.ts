import { ancestorsOfAll } from '../dag/traverse.js'
import { memoSlot, parentAt, parentCount } from '../dag/Vertex.js'
import type {
  Conversation,
  Entry,
  Heads,
  Message,
  SubConversation,
  ToolDefinition,
  ToolExecution,
  Usage,
} from './Entry.js'
import { zeroUsage } from './Entry.js'

/**
 * The projections of a conversation, memoised per head.
 *
 * A head that was projected keeps a {@link Memo} in its memo slot. Projecting a
 * new head walks back to the nearest memoised ancestor and extends its memo
 * by the entries in between, so repeating a projection on a growing head (as
 * the agent loop does every round) costs the new entries, not the history.
 *
 * Memory stays O(history), not O(history × heads): a memo holds no list of
 * its own, only the length of its prefix of a list shared with the memos it
 * extends. A memo extending the tip of a shared list appends to it; one
 * extending a shorter prefix (a fork projected after its sibling) copies
 * that prefix first, unless the list holds the very entries it adds.
 *
 * Only projected heads get a memo, never the vertices walked over, and not
 * every projected head keeps it: a memo is a checkpoint once
 * {@link CHECKPOINT} vertices lie between it and the checkpoint it extends,
 * and a new memo replaces the one it extends unless that one is a
 * checkpoint. A chain projected at every head (the agent loop) keeps
 * one memo per {@link CHECKPOINT} vertices and one at its tip; projecting
 * an older head again walks at most that far back.
 *
 * @internal
 */

/** What one head's projections are: prefixes of shared lists and small values. @internal */
export interface Memo {
  readonly messages: Message[]
  readonly messageCount: number
  readonly executions: ToolExecution[]
  readonly executionCount: number
  readonly subConversations: SubConversation[]
  readonly subConversationCount: number
  readonly systemCount: number
  readonly system: string
  readonly tools: readonly ToolDefinition[]
  readonly usage: Usage
  /** Vertices since the checkpoint this memo extends; 0 for a checkpoint. */
  readonly walked: number
}

/** How many vertices apart checkpoint memos are, at least. @internal */
export const CHECKPOINT = 64

/** The memo a vertex keeps, if any. */
const memoAt = (v: Conversation): Memo | undefined => memoSlot.get(v) as Memo | undefined

const NO_TOOLS: readonly ToolDefinition[] = Object.freeze([])

const EMPTY: Memo = Object.freeze({
  messages: Object.freeze([]) as unknown as Message[],
  messageCount: 0,
  executions: Object.freeze([]) as unknown as ToolExecution[],
  executionCount: 0,
  subConversations: Object.freeze([]) as unknown as SubConversation[],
  subConversationCount: 0,
  systemCount: 0,
  system: '',
  tools: NO_TOOLS,
  usage: zeroUsage,
  walked: 0,
})

/**
 * Appends to a shared list at `length`. A list that has grown past it is
 * kept when it holds `x` there already (the same entry: a head projected
 * again after a descendant), else its prefix is copied.
 */
const pushAt = <T>(items: T[], length: number, x: T): T[] => {
  if (items.length === length) {
    items.push(x)
    return items
  }
  if (items[length] === x) return items
  const own = items.slice(0, length)
  own.push(x)
  return own
}

const withTools = (
  known: readonly ToolDefinition[],
  added: readonly ToolDefinition[],
): readonly ToolDefinition[] => {
  const byName = new Map<string, ToolDefinition>()
  for (const t of known) byName.set(t.name, t)
  for (const t of added) byName.set(t.name, t)
  return Object.freeze([...byName.values()])
}

const withUsage = (total: Usage, more: Usage): Usage => {
  const out: Record<string, number> = { ...total }
  for (const k of Object.keys(more)) {
    const n = (more as unknown as Record<string, unknown>)[k]
    if (typeof n === 'number') out[k] = (out[k] ?? 0) + n
  }
  return Object.freeze(out) as unknown as Usage
}

/** A memo being extended, entry by entry; frozen when done, it is the memo. */
class Extension implements Memo {
  messages: Message[]
  messageCount: number
  executions: ToolExecution[]
  executionCount: number
  subConversations: SubConversation[]
  subConversationCount: number
  systemCount: number
  system: string
  tools: readonly ToolDefinition[]
  usage: Usage
  walked: number

  constructor(from: Memo) {
    // The empty memo's lists are frozen: a history from a root starts lists of its own.
    const fresh = from === EMPTY
    this.messages = fresh ? [] : from.messages
    this.messageCount = from.messageCount
    this.executions = fresh ? [] : from.executions
    this.executionCount = from.executionCount
    this.subConversations = fresh ? [] : from.subConversations
    this.subConversationCount = from.subConversationCount
    this.systemCount = from.systemCount
    this.system = from.system
    this.tools = from.tools
    this.usage = from.usage
    this.walked = from.walked
  }

  add(e: Entry): void {
    this.walked++
    switch (e.type) {
      case 'message':
        this.messages = pushAt(this.messages, this.messageCount++, e)
        return
      case 'tool_execution':
        this.executions = pushAt(this.executions, this.executionCount++, e)
        return
      case 'sub_conversation':
        this.subConversations = pushAt(this.subConversations, this.subConversationCount++, e)
        return
      case 'system_prompt':
        this.system = this.systemCount++ === 0 ? e.content : `${this.system}\n\n${e.content}`
        return
      case 'tool_definitions':
        this.tools = withTools(this.tools, e.tools)
        return
      case 'stop_reason':
        this.usage = withUsage(this.usage, e.usage)
        return
    }
  }

  /** The extension, done: it is the memo (a checkpoint when it walked far enough). */
  done(): Memo {
    if (this.walked >= CHECKPOINT) this.walked = 0
    return this
  }
}

/**
 * What is known to be in the history while a memo is extended: every vertex
 * added so far and the memoised ancestor it started from. `complete` once
 * the ancestors of that memoised vertex were added too (or there was none).
 */
interface Known {
  readonly set: Set<Conversation>
  readonly base: Conversation | undefined
  complete: boolean
}

/**
 * The vertices of `starts`' histories not in `known`, in causal order
 * (parents first, in listed order): what a merge adds to its first parent's
 * history. `undefined` when the walk met a root it cannot place because
 * `known` is not complete.
 */
const newVertices = (
  starts: readonly Conversation[],
  from: number,
  known: Known,
): Conversation[] | undefined => {
  const out: Conversation[] = []
  const seen = new Set<Conversation>()
  const stack: Conversation[] = []
  const next: number[] = []
  const visit = (v: Conversation): boolean => {
    if (known.set.has(v) || seen.has(v)) return false
    seen.add(v)
    return true
  }
  for (let s = from; s < starts.length; s++) {
    const start = starts[s]!
    if (!visit(start)) continue
    stack.push(start)
    next.push(0)
    while (stack.length > 0) {
      const top = stack.length - 1
      const v = stack[top]!
      const i = next[top]!
      const n = parentCount(v)
      if (n === 0 && !known.complete) return undefined
      if (i < n) {
        next[top] = i + 1
        const p = parentAt(v, i)
        if (visit(p)) {
          stack.push(p)
          next.push(0)
        }
      } else {
        stack.pop()
        next.pop()
        out.push(v)
      }
    }
  }
  return out
}

/** Adds to `ext` what the other heads of a merge bring, and marks it known. */
const addOthers = (
  heads: readonly Conversation[],
  from: number,
  known: Known,
  ext: Extension,
): void => {
  let found = newVertices(heads, from, known)
  if (found === undefined) {
    // A vertex older than the memoised one: learn its whole history once.
    for (const v of ancestorsOfAll([known.base!])) known.set.add(v)
    known.complete = true
    found = newVertices(heads, from, known)!
  }
  for (const v of found) {
    known.set.add(v)
    ext.add(v.data)
  }
}

/** The first-parent chain being walked, reused from call to call: the walk allocates nothing. */
const scratch: Conversation[] = []

/**
 * The memo of a head: its own, or its nearest memoised ancestor's extended
 * by the entries in between (then kept for the head).
 *
 * @internal
 */
export const memoOf = (head: Conversation): Memo => {
  const kept = memoAt(head)
  if (kept !== undefined) return kept
  // Back along first parents to a memoised vertex or a root: a vertex's
  // history is its first parent's, then what its other parents add, then itself.
  const chain = scratch
  const bottom = chain.length // memoOf does not reenter, but stays right if it ever does
  let base: Conversation | undefined
  let from = EMPTY
  for (let v: Conversation | undefined = head; v !== undefined;) {
    const m = memoAt(v)
    if (m !== undefined) {
      base = v
      from = m
      break
    }
    chain.push(v)
    v = parentCount(v) > 0 ? parentAt(v, 0) : undefined
  }
  const ext = new Extension(from)
  let known: Known | undefined
  try {
    for (let i = chain.length - 1; i >= bottom; i--) {
      const v = chain[i]!
      const n = parentCount(v)
      if (n > 1) {
        if (known === undefined) {
          const set = new Set<Conversation>(chain.slice(i + 1))
          if (base !== undefined) set.add(base)
          known = { set, base, complete: base === undefined }
        }
        addOthers(v.parents, 1, known, ext)
      }
      known?.set.add(v)
      ext.add(v.data)
    }
  } finally {
    // Pops, not a length write: setting the length is a call of its own.
    while (chain.length > bottom) chain.pop()
  }
  const memo = ext.done()
  // The memo it extends gives way, unless that one is a checkpoint.
  if (base !== undefined && from.walked > 0) memoSlot.set(base, undefined)
  memoSlot.set(head, memo)
  return memo
}

/**
 * The projections of one head or of several (their histories' union, the
 * first head's history first). Several heads are projected on the spot from
 * the first head's memo; they get no memo of their own.
 *
 * @internal
 */
export const projectionOf = (on: Heads): Memo => {
  if (!Array.isArray(on)) return memoOf(on as Conversation)
  const heads = on as readonly Conversation[]
  if (heads.length === 0) return EMPTY
  const first = heads[0]!
  const memo = memoOf(first)
  if (heads.length === 1) return memo
  const ext = new Extension(memo)
  addOthers(heads, 1, { set: new Set([first]), base: first, complete: false }, ext)
  return ext.done()
}

/**
 * How much the memos of `vertices` hold: how many of them have a memo, and
 * how many list items their shared lists hold in all (each list counted
 * once). For tests that memory stays linear in the history.
 *
 * @internal
 */
export const memoFootprint = (
  vertices: readonly Conversation[],
): { readonly memos: number; readonly items: number } => {
  let count = 0
  const lists = new Set<readonly unknown[]>()
  for (const v of vertices) {
    const m = memoAt(v)
    if (m === undefined) continue
    count++
    lists.add(m.messages).add(m.executions).add(m.subConversations)
  }
  let items = 0
  for (const l of lists) items += l.length
  return { memos: count, items }
}
