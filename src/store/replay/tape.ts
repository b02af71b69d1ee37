/**
 * Recording what an agent loop or a network run asks of the world outside
 * it — its model calls, its tool calls and the steps its command and CLI
 * agent nodes run — and answering a replay from that record. A call is
 * matched by its kind, the provider's, tool's or node's name and its
 * request, in order among equal ones, so parallel nodes may interleave
 * differently without the replay diverging; a request never recorded is a
 * {@link ReplayDivergence}.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type {
  ModelResponse,
  Provider,
  Tool,
  Toolbox,
  ToolOutput,
} from '../../interpreters/index.js'
import type { Interpreter, Node, NodeContext } from '../../node/index.js'
import { observed, PASS_THROUGH, recordedError } from './record.js'
import { jsonOf, type RecordedError, type RecordedOutcome } from './Recording.js'
import { ReplayDivergence } from './replay.js'

/**
 * One call a run made outside itself: a `model` call to the provider
 * `name`, a `tool` call, or a `step` of the node `name` run by its
 * interpreter (a command, a terminal); its request as JSON (a model
 * request; a tool's or step's input), and how it ended.
 *
 * @category replay
 */
export interface TapeCall {
  readonly kind: 'model' | 'tool' | 'step'
  readonly name: string
  readonly request: unknown
  readonly outcome: Exclude<RecordedOutcome, { readonly _tag: 'pending' }>
}

/**
 * The model, tool and step calls of an agent loop or a network run, in the
 * order they were made.
 *
 * @category replay
 */
export interface Tape {
  readonly version: 1
  readonly calls: readonly TapeCall[]
}

/**
 * The codec of a {@link Tape} (a tape read from a file or a store is
 * decoded with it).
 *
 * @category replay
 */
export const TapeCodec: t.Type<Tape> = t.readonly(
  t.type({
    version: t.literal(1),
    calls: t.readonlyArray(
      t.readonly(
        t.type({
          kind: t.keyof({ model: null, tool: null, step: null }),
          name: t.string,
          request: t.unknown,
          outcome: t.union([
            t.type({ _tag: t.literal('value'), value: t.unknown }),
            t.type({
              _tag: t.literal('error'),
              error: t.intersection([
                t.type({ name: t.string, message: t.string }),
                t.partial({ _tag: t.string }),
              ]),
            }),
          ]),
        }),
      ),
    ),
  }),
)

/**
 * Wraps providers and tools so that each call is kept; give the wrapped
 * ones to `runAgent` or `startNetwork`, then read {@link TapeRecorder.tape}.
 *
 * @category replay
 */
export interface TapeRecorder {
  /** `p`, its calls kept under `name` (default its own name). */
  provider(p: Provider, name?: string): Provider
  /** Each provider kept under its key: the name nodes give it. */
  providers(ps: Readonly<Record<string, Provider>>): Readonly<Record<string, Provider>>
  tool(tool: Tool): Tool
  toolbox(tools: Toolbox): Toolbox
  /**
   * `i`, each step it runs kept under the node's id (a streamed step by its
   * result). A network run takes it as `wrapInterpreter`. A graph
   * interpreter is given back as it is: its steps are kept by their own.
   */
  readonly interpreter: (i: Interpreter) => Interpreter
  /** The calls so far. */
  tape(): Tape
}

/** Runs `work`, keeping how it ended under `kind`, `name` and `request`. */
const kept = async <A>(
  calls: TapeCall[],
  kind: TapeCall['kind'],
  name: string,
  request: unknown,
  work: () => Promise<A>,
): Promise<A> => {
  try {
    const value = await work()
    calls.push(
      Object.freeze({ kind, name, request, outcome: { _tag: 'value', value: jsonOf(value) } }),
    )
    return value
  } catch (e) {
    calls.push(
      Object.freeze({ kind, name, request, outcome: { _tag: 'error', error: recordedError(e) } }),
    )
    throw e
  }
}

/**
 * A {@link TapeRecorder}.
 *
 * @category replay
 * @example
 * import { empty, user } from 'nerve-agents'
 * import { runAgent } from 'nerve-agents/interpreters'
 * import { scriptedProvider } from 'nerve-agents/testing'
 * import { replayTape, tapeRecorder } from 'nerve-agents/store'
 * import assert from 'assert'
 *
 * const rec = tapeRecorder()
 * const model = rec.provider(scriptedProvider(['Hello!']))
 * const first = await runAgent(model, user('hi')(empty))
 * const again = await runAgent(replayTape(rec.tape()).provider(model.name), user('hi')(empty))
 * assert.strictEqual(again.conversation.id, first.conversation.id)
 */
export const tapeRecorder = (): TapeRecorder => {
  const calls: TapeCall[] = []
  const provider = (p: Provider, name = p.name): Provider =>
    Object.freeze<Provider>({
      name,
      call: (request, options) =>
        kept(calls, 'model', name, jsonOf(request), () => p.call(request, options)),
    })
  const tool = (inner: Tool): Tool =>
    Object.freeze<Tool>({
      definition: inner.definition,
      run: (input, ctx) =>
        kept(calls, 'tool', inner.definition.name, jsonOf(input), () => inner.run(input, ctx)),
    })
  const interpreter = (i: Interpreter): Interpreter =>
    observed(i, (node, ctx) => {
      const request = jsonOf(ctx.input)
      return (_, outcome) => {
        calls.push(Object.freeze({ kind: 'step', name: node.id, request, outcome }))
      }
    })
  return Object.freeze<TapeRecorder>({
    interpreter,
    provider,
    providers: (ps) =>
      Object.freeze(Object.fromEntries(Object.entries(ps).map(([k, p]) => [k, provider(p, k)]))),
    tool,
    toolbox: (tools) => new Map([...tools].map(([k, v]) => [k, tool(v)])),
    tape: () => Object.freeze({ version: 1 as const, calls: Object.freeze([...calls]) }),
  })
}

/**
 * Providers and tools that answer from a {@link Tape}: a call gets the
 * answer (or the error) recorded for the same name and request. A request
 * that was never made is a {@link ReplayDivergence} at `[kind, name]`: what
 * differs is the `input` (the first recorded request of that name not
 * answered yet, beside this one), or the call is `missing` altogether.
 *
 * @category replay
 */
export interface TapePlayer {
  provider(name: string): Provider
  providers(names: readonly string[]): Readonly<Record<string, Provider>>
  /** `tool`'s definition, answered from the tape. */
  tool(tool: Tool): Tool
  toolbox(tools: Toolbox): Toolbox
  /**
   * An interpreter of `i`'s kind whose steps are answered from the tape (a
   * streamed one with its result alone): it starts no process. A network
   * run takes it as `wrapInterpreter`. A graph interpreter is given back.
   */
  readonly interpreter: (i: Interpreter) => Interpreter
  /** The recorded calls no replayed call asked for (yet). */
  unused(): readonly TapeCall[]
}

/** `f()` as a promise: what it throws rejects it. */
const later = <A>(f: () => A): Promise<A> =>
  new Promise<A>((resolve) => {
    resolve(f())
  })

const errorOf = (e: RecordedError): Error =>
  Object.assign(new Error(e.message), {
    name: e.name,
    ...(e._tag !== undefined && { _tag: e._tag }),
  })

/**
 * A {@link TapePlayer} of `tape` (decoded first: a tape that is not one
 * throws a TypeError naming the first bad field).
 *
 * @category replay
 */
export const replayTape = (tape: Tape): TapePlayer => {
  const decoded = TapeCodec.decode(tape)
  if (E.isLeft(decoded)) {
    const at = decoded.left[0]?.context.slice(1).map((c) => c.key) ?? []
    throw new TypeError(`replayTape: not a tape at /${at.join('/')}`)
  }
  const calls = decoded.right.calls
  const keys = calls.map((c) => JSON.stringify(c.request))
  const used = new Array<boolean>(calls.length).fill(false)
  const asked = new Map<string, number>()
  const answer = (kind: TapeCall['kind'], name: string, request: unknown): unknown => {
    const key = JSON.stringify(request)
    const nth = (asked.get(`${kind}:${name}`) ?? 0) + 1
    asked.set(`${kind}:${name}`, nth)
    let sameName = -1
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!
      if (used[i] === true || c.kind !== kind || c.name !== name) continue
      if (sameName < 0) sameName = i
      if (keys[i] !== key) continue
      used[i] = true
      if (c.outcome._tag === 'error') throw errorOf(c.outcome.error)
      return c.outcome.value
    }
    throw sameName < 0
      ? new ReplayDivergence([kind, name], nth, 'missing', undefined, request)
      : new ReplayDivergence([kind, name], nth, 'input', calls[sameName]!.request, request)
  }
  const provider = (name: string): Provider =>
    Object.freeze<Provider>({
      name,
      call: (request, options) =>
        later(() => {
          const response = answer('model', name, jsonOf(request)) as ModelResponse
          for (const b of response.content)
            if (b.type === 'text') options.onDelta?.({ type: 'text', text: b.text })
          return response
        }),
    })
  const tool = (inner: Tool): Tool =>
    Object.freeze<Tool>({
      definition: inner.definition,
      run: (input) =>
        later(() => answer('tool', inner.definition.name, jsonOf(input)) as ToolOutput),
    })
  const interpreter = (i: Interpreter): Interpreter => {
    if (PASS_THROUGH.has(i.kind)) return i
    const step = (node: Node, ctx: NodeContext): Promise<unknown> =>
      later(() => answer('step', node.id, jsonOf(ctx.input)))
    return Object.freeze<Interpreter>({
      kind: i.kind,
      ...(i.execute !== undefined && { execute: step }),
      ...(i.executeStream !== undefined && {
        // eslint-disable-next-line require-yield
        executeStream: async function* (node: Node, ctx: NodeContext) {
          return await step(node, ctx)
        },
      }),
    })
  }
  return Object.freeze<TapePlayer>({
    interpreter,
    provider,
    providers: (names) => Object.freeze(Object.fromEntries(names.map((n) => [n, provider(n)]))),
    tool,
    toolbox: (tools) => new Map([...tools].map(([k, v]) => [k, tool(v)])),
    unused: () => calls.filter((_, i) => used[i] !== true),
  })
}
