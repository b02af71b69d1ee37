/**
 * Conversation benchmarks: appending, forking and projecting, each against a
 * plain chain of frozen linked objects (or a plain array) built in the same run.
 */
import { assistant, empty, messages, user, type Conversation, type Message } from '../src/index.js'
import { gc, interleave, sink, timeUs, type Benchmark } from './harness.js'

/** The baseline's vertex: a frozen object linked to its parent. */
interface Linked {
  readonly parent: Linked | null
  readonly data: { readonly role: 'user' | 'assistant'; readonly content: string }
}

/** `n` different short strings, flat (short enough that V8 does not keep them as cons strings). */
const texts = (n: number, prefix: string): readonly string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}`)

const ours = (
  text: string,
  i: number,
): ((c: Conversation | readonly Conversation[]) => Conversation) =>
  i % 2 === 0 ? user(text) : assistant(text)

/** A conversation of alternating user and assistant messages; `at` is kept along the way. */
const buildOurs = (
  strings: readonly string[],
  at = -1,
): { readonly head: Conversation; readonly at: Conversation | undefined } => {
  let c = user(strings[0]!)(empty)
  let kept: Conversation | undefined = at === 0 ? c : undefined
  for (let i = 1; i < strings.length; i++) {
    c = ours(strings[i]!, i)(c)
    if (i === at) kept = c
  }
  return { head: c, at: kept }
}

const linked = (parent: Linked | null, text: string, i: number): Linked =>
  Object.freeze({
    parent,
    data: Object.freeze({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: text,
    }),
  })

const buildBaseline = (
  strings: readonly string[],
  at = -1,
): { readonly head: Linked; readonly at: Linked | undefined } => {
  let c = linked(null, strings[0]!, 0)
  let kept: Linked | undefined = at === 0 ? c : undefined
  for (let i = 1; i < strings.length; i++) {
    c = linked(c, strings[i]!, i)
    if (i === at) kept = c
  }
  return { head: c, at: kept }
}

/**
 * One sample of an append benchmark: build `strings.length` vertices with
 * `build`, timing it (garbage collection included), then weigh what stays
 * alive after a full collection while the chain is held.
 */
const appendSample =
  (strings: readonly string[], build: (s: readonly string[]) => unknown) =>
  (): { us: number; bytes: number } => {
    gc()
    const before = process.memoryUsage().heapUsed
    let built: unknown
    const us = timeUs(() => {
      built = build(strings)
    })
    sink.value = built
    gc()
    const bytes = process.memoryUsage().heapUsed - before
    sink.value = undefined
    return { us: us / strings.length, bytes: bytes / strings.length }
  }

const append: Benchmark = {
  name: 'conversation.append',
  run: ({ rounds, log }) => {
    const n = 1e6
    const strings = texts(n, 'm')
    const small = strings.slice(0, 1e5)
    for (let i = 0; i < 3; i++) {
      appendSample(small, buildOurs)()
      appendSample(small, buildBaseline)()
    }
    log(`  ${n} appends per sample`)
    const m = interleave({
      rounds: rounds ?? 7,
      warmup: 0,
      ours: appendSample(strings, buildOurs),
      baseline: appendSample(strings, buildBaseline),
    })
    const baseline = 'frozen linked objects'
    return [
      {
        name: 'conversation.append',
        unit: 'µs',
        median: m.ours.us,
        baseline,
        baselineMedian: m.baseline.us,
        target: { median: 2, ratio: 2.5 },
      },
      {
        name: 'conversation.append.memory',
        unit: 'B',
        median: m.ours.bytes,
        baseline,
        baselineMedian: m.baseline.bytes,
        target: { median: 400 },
      },
    ]
  },
}

const fork: Benchmark = {
  name: 'conversation.fork',
  run: ({ rounds, log }) => {
    const forks = 2e4
    const forkTexts = texts(forks, 'f')
    const kept: unknown[] = new Array<unknown>(forks)
    return [1e3, 1e5].map((n) => {
      const strings = texts(n, 'm')
      const mid = buildOurs(strings, n / 2).at!
      const midBaseline = buildBaseline(strings, n / 2).at!
      log(`  ${forks} fork+appends per sample on a ${n}-message conversation`)
      const m = interleave({
        rounds: rounds ?? 15,
        warmup: 3,
        ours: () => {
          const us = timeUs(() => {
            for (let k = 0; k < forks; k++) kept[k] = user(forkTexts[k]!)(mid)
          })
          return { us: us / forks }
        },
        baseline: () => {
          const us = timeUs(() => {
            for (let k = 0; k < forks; k++) kept[k] = linked(midBaseline, forkTexts[k]!, 0)
          })
          return { us: us / forks }
        },
      })
      kept.fill(undefined)
      return {
        name: `conversation.fork.${n === 1e3 ? '1e3' : '1e5'}`,
        unit: 'µs',
        median: m.ours.us,
        baseline: 'frozen linked object append',
        baselineMedian: m.baseline.us,
        target: { median: 5 },
      }
    })
  },
}

/**
 * `messages()` the way the agent loop calls it: append one message to the
 * head, then project the new head, every round, on a conversation of 10⁴
 * messages (and growing). Against pushing onto a plain array of the same
 * length and slicing it — what a loop keeping its own copy does.
 */
const project: Benchmark = {
  name: 'conversation.messages',
  run: ({ rounds, log }) => {
    const n = 1e4
    const steps = 200
    const strings = texts(n, 'm')
    let head = buildOurs(strings).head
    const plain: Message[] = strings.map((content, i) =>
      Object.freeze({
        type: 'message' as const,
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content,
      }),
    )
    if (messages(head).length !== n) throw new Error('messages() lost messages')
    const more = texts(steps, 'x')
    log(`  append + messages() per round, ${steps} rounds a sample, from ${n} messages`)
    const m = interleave({
      rounds: rounds ?? 15,
      warmup: 3,
      ours: () => {
        let got = 0
        const us = timeUs(() => {
          for (let k = 0; k < steps; k++) {
            head = user(more[k]!)(head)
            got += messages(head).length
          }
        })
        sink.value = got
        return { us: us / steps }
      },
      baseline: () => {
        let got = 0
        const us = timeUs(() => {
          for (let k = 0; k < steps; k++) {
            plain.push(Object.freeze({ type: 'message', role: 'user', content: more[k]! }))
            got += plain.slice().length
          }
        })
        sink.value = got
        return { us: us / steps }
      },
    })
    if (messages(head).length !== plain.length) throw new Error('the two sides grew apart')
    return [
      {
        name: 'conversation.messages',
        unit: 'µs',
        median: m.ours.us,
        baseline: 'push + slice of an array of as many messages',
        baselineMedian: m.baseline.us,
        target: { ratio: 20 },
      },
    ]
  },
}

/** The conversation benchmarks, in the order they run. */
export const benchmarks: readonly Benchmark[] = [append, fork, project]
