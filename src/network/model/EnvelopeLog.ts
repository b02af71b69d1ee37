import { heads, vertex, type Vertex } from '../../dag/index.js'
import { UsageError } from '../../errors.js'
import type { Envelope } from './Envelope.js'

/**
 * The record of a network run: every envelope as a vertex of a DAG whose
 * parents are the vertices of the envelopes that caused it (`causedBy`, in
 * that order; ids it does not hold are left out). Vertex ids are envelope
 * ids. Append-only: recording never changes a vertex.
 *
 * @category envelopes
 * @example
 * import { EnvelopeLog } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const log = new EnvelopeLog()
 * const at = { fromNodeId: 'a', toNodeId: 'b', time: 0 }
 * log.add({ id: 'e1', kind: 'handoff', payload: { message: 'plan' }, ...at })
 * const v = log.add({ id: 'e2', kind: 'message', payload: { message: 'ok' }, causedBy: ['e1'], ...at })
 * assert.deepStrictEqual(v.parents.map((p) => p.id), ['e1'])
 * assert.deepStrictEqual(log.heads().map((h) => h.id), ['e2'])
 */
export class EnvelopeLog {
  readonly #byId = new Map<string, Vertex<Envelope>>()
  readonly #order: Vertex<Envelope>[] = []

  /** Records an envelope; an id recorded already is a `UsageError`. */
  add(envelope: Envelope): Vertex<Envelope> {
    if (this.#byId.has(envelope.id)) {
      throw new UsageError('EnvelopeLog.add', `envelope "${envelope.id}" is recorded already`)
    }
    const parents: Vertex<Envelope>[] = []
    for (const id of envelope.causedBy ?? []) {
      const p = this.#byId.get(id)
      if (p !== undefined && !parents.includes(p)) parents.push(p)
    }
    const v = vertex(parents, envelope, { id: envelope.id })
    this.#byId.set(envelope.id, v)
    this.#order.push(v)
    return v
  }

  /** The vertex of an envelope id. */
  get(id: string): Vertex<Envelope> | undefined {
    return this.#byId.get(id)
  }

  get size(): number {
    return this.#order.length
  }

  /** Every vertex, in recording order. */
  vertices(): readonly Vertex<Envelope>[] {
    return [...this.#order]
  }

  /** Every envelope, in recording order. */
  envelopes(): readonly Envelope[] {
    return this.#order.map((v) => v.data)
  }

  /** The vertices no later envelope was caused by. */
  heads(): readonly Vertex<Envelope>[] {
    return heads(this.#order)
  }

  /** JSON: the envelopes in recording order. */
  toJSON(): readonly Envelope[] {
    return this.envelopes()
  }
}
