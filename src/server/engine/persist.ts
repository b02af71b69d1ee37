import {
  nodeSnapshot,
  sessionRecord,
  type Session,
  type SessionNodeEvent,
} from '../../session/index.js'
import type { SqliteStore } from '../../store/index.js'

/** Events that always change what the store keeps of a node: it came, went or stopped. */
const ALWAYS: ReadonlySet<string> = new Set(['created', 'forked', 'removed', 'stopped'])
/** Events after which a node's live value may have changed (an LLM node ended a turn). */
const MAYBE: ReadonlySet<string> = new Set(['ready', 'respawned'])

/**
 * Writes what the sessions of an engine change into its SQLite store as
 * it changes, so that a daemon killed at any moment loses at most the work
 * in flight: a node created, forked or removed, a node stopped, and a node
 * whose live value changed (an LLM node's conversation head after a turn,
 * its new vertices only). Events are gathered and written once the
 * current job ends (a microtask), one transaction per session: a burst of
 * changes made together costs one write, a node that only ran a command (a
 * bash or terminal node: its live value unchanged) costs none, and the
 * write lands before the answer that follows the change is sent.
 */
export class SessionWriter {
  readonly #store: SqliteStore
  readonly #onError: (sessionId: string, error: unknown) => void
  /** By session: the names to write, and whether each must be written (or only when its live value changed). */
  readonly #dirty = new Map<Session, Map<string, boolean>>()
  /** By session and name: the live value last written. */
  readonly #written = new WeakMap<Session, Map<string, unknown>>()
  #scheduled = false
  #stopped = false

  constructor(store: SqliteStore, onError: (sessionId: string, error: unknown) => void) {
    this.#store = store
    this.#onError = onError
  }

  /** Takes note of a session's node event; what it changed is written when the tick ends. */
  note(session: Session, event: SessionNodeEvent): void {
    if (this.#stopped) return
    const must = ALWAYS.has(event.type)
    if (!must && !MAYBE.has(event.type)) return
    let names = this.#dirty.get(session)
    if (names === undefined) this.#dirty.set(session, (names = new Map<string, boolean>()))
    names.set(event.name, must || names.get(event.name) === true)
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.flush()
    })
  }

  /** Writes what was noted, now. */
  flush(): void {
    this.#scheduled = false
    const dirty = [...this.#dirty]
    this.#dirty.clear()
    for (const [session, names] of dirty) {
      if (session.closed) continue // its record is being removed, or saved whole at shutdown
      try {
        this.#write(session, names)
      } catch (e) {
        this.#onError(session.id, e)
      }
    }
  }

  /** Writes what was noted and takes no more notes (the engine saves whole sessions from here on). */
  stop(): void {
    this.flush()
    this.#stopped = true
  }

  #write(session: Session, names: ReadonlyMap<string, boolean>): void {
    let written = this.#written.get(session)
    if (written === undefined) this.#written.set(session, (written = new Map<string, unknown>()))
    const seen = written
    this.#store.batch((w) => {
      let listChanged = false
      for (const [name, must] of names) {
        const snapshot = nodeSnapshot(session, name)
        if (snapshot === undefined) {
          // Gone (or never registered: a node inside a registered graph).
          if (seen.delete(name) || must) listChanged = w.removeNode(session.id, name) || listChanged
          continue
        }
        if (!must && seen.has(name) && seen.get(name) === snapshot.live) continue
        w.saveNode(session.id, snapshot)
        seen.set(name, snapshot.live)
        listChanged ||= must
      }
      // The record lists the session's nodes: it follows when they come and go.
      if (listChanged) w.save(sessionRecord(session))
    })
  }
}
