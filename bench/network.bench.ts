/**
 * Network benchmarks. `network.deliver`: envelopes handed around a ring of
 * 100 nodes joined by queue edges — per hand-off, a frozen envelope caused
 * by the one before, pushed into the next node's inbox and taken out —
 * against a plain array-queue loop doing the same hand-offs with the same
 * objects, in the same run. `network.patch`: one live edit (a node's mode)
 * through immer with patches and inverse patches on a 1000-node network,
 * against a hand-written spread update of the same field.
 */
import { pipe } from 'fp-ts/lib/function.js'
import {
  addNode,
  change,
  connect,
  type Envelope,
  network,
  type Network,
  setMode,
} from '../src/index.js'
import { Inbox } from '../src/network/index.js'
import { systemClock } from '../src/runtime/index.js'
import { interleave, perOpUs, sink, type Benchmark } from './harness.js'

const RING = 100
const HOPS = 200_000

const envelopeAfter = (prev: Envelope, seq: number, from: number, to: number): Envelope =>
  Object.freeze({
    id: `e${seq}`,
    kind: 'handoff' as const,
    fromNodeId: `n${from}`,
    toNodeId: `n${to}`,
    payload: prev.payload,
    causedBy: Object.freeze([prev.id]),
    time: seq,
  })

const first: Envelope = Object.freeze({
  id: 'e0',
  kind: 'handoff',
  fromNodeId: 'user',
  toNodeId: 'n0',
  payload: Object.freeze({ message: 'go round' }),
  time: 0,
})

/** One token per node circulating: every node takes its envelope and hands the next one on. */
const throughInboxes = (): number => {
  const inboxes = Array.from(
    { length: RING },
    () => new Inbox({ type: 'queue' }, systemClock, () => undefined),
  )
  inboxes.forEach((inbox) => {
    inbox.push(first)
  })
  let seq = 0
  return (
    perOpUs(1, () => {
      for (let h = 0; h < HOPS / RING; h++) {
        for (let i = 0; i < RING; i++) {
          const e = inboxes[i]!.take()!
          const to = (i + 1) % RING
          inboxes[to]!.push(envelopeAfter(e, ++seq, i, to))
        }
      }
      return seq
    }) / HOPS
  )
}

const throughArrays = (): number => {
  const queues: Envelope[][] = Array.from({ length: RING }, () => [first])
  let seq = 0
  return (
    perOpUs(1, () => {
      for (let h = 0; h < HOPS / RING; h++) {
        for (let i = 0; i < RING; i++) {
          const e = queues[i]!.shift()!
          const to = (i + 1) % RING
          queues[to]!.push(envelopeAfter(e, ++seq, i, to))
        }
      }
      return seq
    }) / HOPS
  )
}

const bigNetwork = (): Network => {
  let net = network('big')
  for (let i = 0; i < 1000; i++)
    net = addNode({ id: `n${i}`, provider: { type: 'mock', script: ['ok'] } })(net)
  for (let i = 0; i < 1000; i++)
    net = connect(`n${i}`, `n${(i + 1) % 1000}`, { direction: 'one-way' })(net)
  return net
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'network.deliver',
    run: ({ rounds }) => {
      const m = interleave({
        rounds: rounds ?? 11,
        warmup: 2,
        ours: () => ({ us: throughInboxes() }),
        baseline: () => ({ us: throughArrays() }),
      })
      return [
        {
          name: 'network.deliver',
          unit: 'µs/hand-off',
          median: m.ours.us,
          baseline: 'array-queue loop',
          baselineMedian: m.baseline.us,
          target: { ratio: 5 },
        },
      ]
    },
  },
  {
    name: 'network.patch',
    run: ({ rounds }) => {
      const net = bigNetwork()
      let k = 0
      const m = interleave({
        rounds: rounds ?? 21,
        warmup: 3,
        ours: () => ({
          us: perOpUs(200, () => {
            const id = `n${k++ % 1000}`
            const mode = net.nodes[id]!.mode === 'auto' ? 'interactive' : 'auto'
            return change(setMode(id, mode))(net)
          }),
        }),
        baseline: () => ({
          us: perOpUs(200, () => {
            const id = `n${k++ % 1000}`
            const node = net.nodes[id]!
            const mode = node.mode === 'auto' ? 'interactive' : 'auto'
            return Object.freeze({
              ...net,
              nodes: Object.freeze({ ...net.nodes, [id]: Object.freeze({ ...node, mode }) }),
            })
          }),
        }),
      })
      sink.value = pipe(net, setMode('n0', 'auto'))
      return [
        {
          name: 'network.patch',
          unit: 'ms',
          median: m.ours.us / 1e3,
          baseline: 'spread update',
          baselineMedian: m.baseline.us / 1e3,
          target: { median: 1 },
        },
      ]
    },
  },
]
