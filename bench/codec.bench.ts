/**
 * Codec benchmarks: loading and saving a 10⁵-vertex conversation in our
 * format and in nano-agent's, each against `JSON.parse` / `JSON.stringify`
 * alone of the very same document, in the same run.
 */
import * as E from 'fp-ts/lib/Either.js'
import {
  assistant,
  type Conversation,
  empty,
  stop,
  system,
  toolResults,
  tools,
  user,
} from '../src/index.js'
import {
  type ConversationDocument,
  type DecodeError,
  parseConversation,
  parseNano,
  stringifyConversation,
  stringifyNano,
} from '../src/core.js'
import { gc, interleave, timeUs, type Benchmark, type Result } from './harness.js'

const VERTICES = 1e5

/**
 * A working agent's conversation of about `n` vertices: a system prompt and
 * tools, then turns of a user question, an assistant that thinks and calls
 * two tools in parallel (fan-out, merge into one message of results) on
 * every other turn, an answer and a stop reason with usage.
 */
export const buildConversation = (n: number): Conversation => {
  const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
  let c = system('You are a careful coding agent. Read before you edit; keep answers short.')(empty)
  c = tools([
    { name: 'read_file', description: 'Read a file of the workspace.', input_schema: schema },
    { name: 'grep', description: 'Search the workspace for a pattern.', input_schema: schema },
  ])(c)
  let count = 2
  for (let turn = 0; count < n; turn++) {
    c = user(`Turn ${turn}: what does src/module${turn}.ts do, and is it used anywhere else?`)(c)
    count++
    if (turn % 2 === 0) {
      const a = `toolu_${turn}_a`
      const b = `toolu_${turn}_b`
      c = assistant([
        {
          type: 'thinking',
          thinking: `The user asks about module ${turn}; read it, then grep for its uses.`,
          signature: `sig${turn.toString(36)}EqQBCkYIBxgCKkB`,
        },
        { type: 'text', text: 'Let me look at the file and its callers.' },
        { type: 'tool_use', id: a, name: 'read_file', input: { path: `src/module${turn}.ts` } },
        { type: 'tool_use', id: b, name: 'grep', input: { path: `module${turn}` } },
      ])(c)
      c = toolResults([
        {
          tool_use_id: a,
          content: `export const f${turn} = (x: number): number => x * ${turn} + 1\n`,
        },
        {
          tool_use_id: b,
          content: [{ type: 'text', text: `src/main.ts:${turn % 97}: import { f${turn} }` }],
        },
      ])(c)
      count += 4
    }
    c = assistant(`Module ${turn} exports f${turn}, a linear map; src/main.ts imports it.`)(c)
    c = stop('end_turn', { input_tokens: 1200 + turn, output_tokens: 80 + (turn % 50) })(c)
    count += 2
  }
  return c
}

interface Format {
  readonly name: 'nerve' | 'nano'
  readonly parse: (text: string) => E.Either<DecodeError, ConversationDocument>
  readonly stringify: (doc: ConversationDocument) => string
}

const FORMATS: readonly Format[] = [
  { name: 'nerve', parse: parseConversation, stringify: stringifyConversation },
  { name: 'nano', parse: parseNano, stringify: (doc) => stringifyNano(doc) },
]

interface Fixture {
  readonly doc: ConversationDocument
  readonly text: Readonly<Record<Format['name'], string>>
  /** The same documents as plain JSON values, for `JSON.stringify`. */
  readonly plain: Readonly<Record<Format['name'], unknown>>
}

let fixture: Fixture | undefined

/** Built once, shared by both benchmarks. Checks that each format loads what it saved. */
const getFixture = (log: (line: string) => void): Fixture => {
  if (fixture !== undefined) return fixture
  const head = buildConversation(VERTICES)
  const doc: ConversationDocument = { heads: [head], metadata: { bench: 'codec' } }
  const text = {} as Record<Format['name'], string>
  const plain = {} as Record<Format['name'], unknown>
  for (const f of FORMATS) {
    const us = timeUs(() => {
      text[f.name] = f.stringify(doc)
    })
    log(
      `  ${f.name}: ${(text[f.name].length / 1e6).toFixed(1)} MB for ${VERTICES} vertices ` +
        `(first save, ids included: ${(us / 1e3).toFixed(0)} ms)`,
    )
    const back = f.parse(text[f.name])
    if (E.isLeft(back) || back.right.heads[0]?.id !== head.id) {
      throw new Error(`${f.name} does not load what it saved`)
    }
    plain[f.name] = JSON.parse(text[f.name])
  }
  fixture = { doc, text, plain }
  return fixture
}

/** A sample in ms, taken after a full collection so the other side's garbage is not billed here. */
const msAfterGc = (fn: () => unknown): { ms: number } => {
  gc()
  let out: unknown
  const us = timeUs(() => {
    out = fn()
  })
  if (out === undefined) throw new Error('nothing produced')
  return { ms: us / 1e3 }
}

const codec =
  (kind: 'load' | 'save'): Benchmark['run'] =>
  ({ rounds, log }) => {
    const fx = getFixture(log)
    return FORMATS.map((f): Result => {
      const text = fx.text[f.name]
      const plain = fx.plain[f.name]
      const m = interleave({
        rounds: rounds ?? 7,
        warmup: 1,
        ours:
          kind === 'load'
            ? () =>
                msAfterGc(() => {
                  const r = f.parse(text)
                  if (E.isLeft(r)) throw new Error(`${f.name} failed to load: ${r.left._tag}`)
                  return r
                })
            : () => msAfterGc(() => f.stringify(fx.doc)),
        baseline:
          kind === 'load'
            ? () => msAfterGc(() => JSON.parse(text) as unknown)
            : () => msAfterGc(() => JSON.stringify(plain)),
      })
      return {
        name: `codec.${kind}.${f.name}`,
        unit: 'ms',
        median: m.ours.ms,
        baseline: kind === 'load' ? 'JSON.parse' : 'JSON.stringify',
        baselineMedian: m.baseline.ms,
        target: { ratio: kind === 'load' ? 2.5 : 2 },
      }
    })
  }

/** The codec benchmarks, in the order they run. */
export const benchmarks: readonly Benchmark[] = [
  { name: 'codec.load', run: codec('load') },
  {
    name: 'codec.save',
    run: (options) => {
      const results = codec('save')(options)
      // The last codec benchmark lets the fixture go: ~100 MB kept alive would
      // slow every later benchmark's garbage collections.
      fixture = undefined
      return results
    },
  },
]
