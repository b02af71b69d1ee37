/**
 * Conversations for the rendering tests: a worked example with a parallel
 * fan-out and a small fast-check generator that builds arbitrary
 * conversations with the public builders (branches, merges, tool fan-outs,
 * sub-conversations, hostile strings, given ids).
 */
import fc from 'fast-check'
import { pipe } from 'fp-ts/lib/function.js'
import {
  ancestorsOfAll,
  assistant,
  empty,
  heads,
  stop,
  subConversation,
  system,
  toolResults,
  tools,
  user,
  type Conversation,
} from '../../../src/index.js'

/** Three weather calls in parallel, merged into one user message of results. */
export const weather = (): Conversation =>
  pipe(
    empty,
    system('You are terse.'),
    user('Weather in Oslo, Lima and Rome?'),
    assistant([
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'a', name: 'weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'b', name: 'weather', input: { city: 'Lima' } },
      { type: 'tool_use', id: 'c', name: 'weather', input: { city: 'Rome' } },
    ]),
    toolResults([
      { tool_use_id: 'c', content: '18°C', is_error: true },
      { tool_use_id: 'a', content: '3°C' },
      { tool_use_id: 'b', content: '24°C\nsunny' },
    ]),
    assistant('Oslo 3, Lima 24, Rome 18.'),
  )

/** Every vertex drawn for some heads, the history of sub-conversations included. */
export const allVertices = (start: readonly Conversation[]): Conversation[] =>
  ancestorsOfAll(start).flatMap((v) =>
    v.data.type === 'sub_conversation' ? [v, ...allVertices(v.data.heads)] : [v],
  )

const hostile = fc.constantFrom(
  '</script><script>alert(1)</script>',
  '<!-- <script>',
  '"quoted" [x] {y} (z) |p| `q` #r; a --> b\nend',
  'line1\nline2\r\nline3\ttab',
  '\u202e\u001b[31mred\u0000\u2028',
  '\ud800 lone \udfff',
  'x'.repeat(300),
  '',
)

const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  hostile,
)

const givenId = fc.option(fc.stringMatching(/^[a-z0-9]{1,12}$/), { nil: undefined })

type Op =
  | {
      readonly op: 'entry'
      readonly kind: 'system' | 'user' | 'assistant' | 'stop' | 'tools'
      readonly at: number
      readonly text: string
      readonly id: string | undefined
    }
  | {
      readonly op: 'calls'
      readonly at: number
      readonly results: readonly string[]
      readonly reversed: boolean
    }
  | { readonly op: 'merge'; readonly a: number; readonly b: number; readonly text: string }
  | { readonly op: 'sub'; readonly at: number; readonly ops: readonly Op[]; readonly text: string }

const opsOf = (depth: number): fc.Arbitrary<readonly Op[]> => {
  const plain: fc.Arbitrary<Op>[] = [
    fc.record({
      op: fc.constant('entry' as const),
      kind: fc.constantFrom('system', 'user', 'assistant', 'stop', 'tools'),
      at: fc.nat(),
      text,
      id: givenId,
    }),
    fc.record({
      op: fc.constant('calls' as const),
      at: fc.nat(),
      results: fc.array(text, { minLength: 1, maxLength: 4 }),
      reversed: fc.boolean(),
    }),
    fc.record({ op: fc.constant('merge' as const), a: fc.nat(), b: fc.nat(), text }),
  ]
  const sub: fc.Arbitrary<Op>[] =
    depth === 0
      ? []
      : [
          fc.record({
            op: fc.constant('sub' as const),
            at: fc.nat(),
            ops: opsOf(depth - 1),
            text,
          }),
        ]
  return fc.array(fc.oneof(...plain, ...sub), { maxLength: 12 })
}

const build = (ops: readonly Op[]): readonly Conversation[] => {
  const built: Conversation[] = []
  const pick = (at: number): Conversation | readonly Conversation[] =>
    built.length === 0 ? empty : built[at % built.length]!
  for (const o of ops) {
    switch (o.op) {
      case 'entry': {
        const options = o.id === undefined ? {} : { id: o.id }
        const on = pick(o.at)
        const schema = { type: 'object' }
        built.push(
          o.kind === 'system'
            ? system(o.text, options)(on)
            : o.kind === 'user'
              ? user(o.text, options)(on)
              : o.kind === 'assistant'
                ? assistant(o.text, options)(on)
                : o.kind === 'stop'
                  ? stop(o.text, { input_tokens: o.text.length }, options)(on)
                  : tools(
                      [{ name: o.text, description: o.text, input_schema: schema }],
                      options,
                    )(on),
        )
        break
      }
      case 'calls': {
        const asked = assistant(
          o.results.map((r, k) => ({
            type: 'tool_use' as const,
            id: `call${k}`,
            name: `tool${k}`,
            input: { q: r },
          })),
        )(pick(o.at))
        const results = o.results.map((r, k) => ({
          tool_use_id: `call${k}`,
          content: r,
          is_error: k % 2 === 1,
        }))
        built.push(asked, toolResults(o.reversed ? results.reverse() : results)(asked))
        break
      }
      case 'merge': {
        const a = pick(o.a)
        const b = pick(o.b)
        const parents =
          Array.isArray(a) || Array.isArray(b) ? [] : [a as Conversation, b as Conversation]
        built.push(user(o.text)(parents))
        break
      }
      case 'sub':
        built.push(
          subConversation({
            tool_name: 'agent',
            tool_use_id: o.text,
            system_prompt: o.text,
            heads: build(o.ops),
            summary: o.text,
          })(pick(o.at)),
        )
        break
    }
  }
  return heads(built)
}

/** The heads of an arbitrary conversation (none for an empty one), with sub-conversations two deep. */
export const conversation: fc.Arbitrary<readonly Conversation[]> = opsOf(2).map(build)
