import { randomUUID } from 'node:crypto'
import {
  assistant,
  stop,
  user,
  zeroUsage,
  type Content,
  type Conversation,
  type Usage,
} from '../conversation/index.js'
import { Stopped, UsageError } from '../errors.js'
import type { Graph } from '../graph/index.js'
import { functionInterpreter, isLlmChunk } from '../interpreters/index.js'
import type { InterpreterRegistry, Node, NodeRegistry } from '../node/index.js'
import { interpreters as registryOf, isNode } from '../node/index.js'
import { startRun, systemClock, type Budget, type Clock, type StepChunk } from '../runtime/index.js'
import { askedAt, branchesOf, keptTurn, type ChatBranches } from './branches.js'
import type { ChatCommand, ChatEvent } from './ChatEvent.js'
import { chatGraph, chatTarget, type ChatTarget } from './chatGraph.js'
import { memoryChatStore, type ChatState, type ChatStore, type PartialAnswer } from './ChatStore.js'
import { sameVertex } from './sameVertex.js'
import { TurnControl, TurnRegistry } from './turn.js'

/**
 * Options of {@link openChat}.
 *
 * @category chat
 */
export interface ChatOptions {
  /** The chat's id: the store's key. */
  readonly id: string
  /** The interpreters the chat's graph runs with. */
  readonly interpreters: InterpreterRegistry
  /**
   * The graph a message runs: one with an `llm` step that takes the message
   * (the agent, whose conversation is the chat's), or any graph whose answer
   * is a step's result (see {@link chatTarget}). Default: {@link chatGraph}
   * of `agent`.
   */
  readonly graph?: Graph
  /** With `graph`, the agent's step id; without, the agent node itself. */
  readonly agent?: Node | string
  /** With a graph that has no agent, the step whose result is the answer. */
  readonly output?: string
  /** Where the graph's node references resolve, and the cells of its other persistent nodes. */
  readonly session?: NodeRegistry
  /** Where the chat is kept. Default: a {@link memoryChatStore}. */
  readonly store?: ChatStore
  /** Kept with a new chat's record (what a face needs to open it again). */
  readonly metadata?: Readonly<Record<string, unknown>>
  /** A budget for each turn's run. */
  readonly budget?: Budget
  readonly clock?: Clock
  /** Told every event of every turn. */
  readonly onEvent?: (event: ChatEvent) => void
}

/**
 * Options of one turn.
 *
 * @category chat
 */
export interface TurnOptions {
  /** Aborting it cancels the turn: what was said is kept, with a `cancelled` stop reason. */
  readonly signal?: AbortSignal
  /** Told this turn's events. */
  readonly onEvent?: (event: ChatEvent) => void
}

/**
 * Where a branch command starts: a head of the chat, or any vertex of it
 * (by id or as a vertex). Default: the current head.
 *
 * @category chat
 */
export interface AtOptions extends TurnOptions {
  readonly at?: string | Conversation
}

/**
 * What a turn ended with: the new head (also the chat's current one), the
 * answer's text, why the model stopped, and what the turn used.
 *
 * @category chat
 */
export interface ChatTurn {
  readonly turnId: string
  readonly status: 'completed' | 'cancelled'
  readonly head: Conversation
  readonly text: string
  readonly stopReason: string
  readonly usage: Usage
  readonly apiCalls: number
  readonly cost: number
}

/**
 * A chat: the head of a conversation DAG plus a graph that answers a
 * message. Every turn — a message sent, continued from another head, a
 * retried answer, an edited message — is one run of the graph on the
 * runtime, from a vertex of the DAG: a fork, never a copy. Turns run one at
 * a time, in the order asked.
 *
 * @category chat
 */
export interface Chat {
  readonly id: string
  /** When the chat was made (ISO 8601). */
  readonly createdAt: string
  /** The head the next message goes on from; undefined before the first turn. */
  readonly head: Conversation | undefined
  /** Every head of the chat's tree, oldest first. */
  readonly heads: readonly Conversation[]
  /** The head made of an answer a killed process was writing, when opening found one. */
  readonly recovered: Conversation | undefined
  /** Sends a message on the current head. */
  send(message: Content, options?: TurnOptions): Promise<ChatTurn>
  /** Sends a message on another head (or any vertex) of the chat, which becomes the current one. */
  continue(at: string | Conversation, message: Content, options?: TurnOptions): Promise<ChatTurn>
  /** A new answer to the user message of `at` (default: the current head's), as a sibling branch. */
  retry(options?: AtOptions): Promise<ChatTurn>
  /** The user message of `at` changed to `message`, answered, as a sibling branch. */
  edit(message: Content, options?: AtOptions): Promise<ChatTurn>
  /** The chat's tree: its heads, the current one, where each branch forked. */
  branches(): ChatBranches
  /** Makes another head of the chat (by id, or the vertex) the current one. */
  switch(to: string | Conversation): Conversation
  /** Cancels the turn running; whether there was one. */
  cancel(reason?: unknown): boolean
}

const isCancel = (e: unknown): boolean => (e as { _tag?: unknown } | null)?._tag === 'Cancelled'

const noEvents = (): void => undefined

/**
 * Opens a chat: the one the store keeps under `options.id`, or a new one.
 * An answer a killed process was writing (saved as it streamed) is kept:
 * the chat goes on from a head that holds the user message and the text
 * said so far, closed by an `interrupted` stop reason (`recovered`).
 *
 * Each turn runs the chat's graph with the message as its input. With an
 * agent, the agent's node starts from the chat's head (its cell in the
 * run's registry holds it) and the head after the run is the chat's new
 * one; without, the chat appends the message and the output step's result
 * itself. Runtime and node events become {@link ChatEvent}s; the answer's
 * text and thinking are saved as they stream.
 *
 * @category chat
 * @example
 * import { llm, llmInterpreter, openChat } from 'nerve-agents'
 * import { interpreters } from 'nerve-agents/core'
 * import { scriptedProvider } from 'nerve-agents/testing'
 * import assert from 'assert'
 *
 * const model = scriptedProvider(['Hi!', 'Hello!'])
 * const chat = openChat({
 *   id: 'c1',
 *   agent: llm('helper'),
 *   interpreters: interpreters(llmInterpreter({ providers: model })),
 * })
 * const first = await chat.send('hi')
 * const again = await chat.retry()
 * assert.deepStrictEqual([first.text, again.text], ['Hi!', 'Hello!'])
 * assert.strictEqual(chat.branches().branches.length, 2)
 */
export const openChat = (options: ChatOptions): Chat => {
  const api = 'openChat'
  if (typeof options.id !== 'string' || options.id === '') {
    throw new UsageError(api, 'options.id must be a non-empty string')
  }
  const { id, session } = options
  // The canonical graph's start step is a function node.
  const interpreters =
    options.graph === undefined && !options.interpreters.has('function')
      ? registryOf(functionInterpreter, ...options.interpreters.values())
      : options.interpreters
  const g =
    options.graph ??
    (isNode(options.agent)
      ? chatGraph(options.agent)
      : (() => {
          throw new UsageError(api, 'give options.graph or options.agent (an llm node)')
        })())
  const target: ChatTarget = chatTarget(g, {
    ...(typeof options.agent === 'string' && { agent: options.agent }),
    ...(options.graph !== undefined && isNode(options.agent) && { agent: 'agent' }),
    ...(options.output !== undefined && { output: options.output }),
    ...(session !== undefined && { session }),
  })
  const store = options.store ?? memoryChatStore()
  const clock = options.clock ?? systemClock

  let state: ChatState
  const loaded = store.loadChat(id)
  if (loaded === undefined) {
    state = Object.freeze({
      id,
      createdAt: new Date(clock.now()).toISOString(),
      heads: [],
      metadata: options.metadata ?? {},
    })
    store.saveChat(state)
  } else state = loaded

  /**
   * Makes `head` current and a head of the tree, in place of `from` (which
   * it goes on from). With `byId`, a head equal to it (a retry that gave the
   * same answer) or to `from` is found by vertex id — compared without
   * hashing the turn's new vertices (see `sameVertex`).
   */
  const commit = (head: Conversation, from: Conversation | undefined, byId = false): void => {
    const same = byId
      ? (h: Conversation) => sameVertex(h, head) || (from !== undefined && sameVertex(h, from))
      : (h: Conversation) => h === head || h === from
    const heads = state.heads.filter((h) => !same(h))
    heads.push(head)
    state = Object.freeze({ ...state, current: head, heads: Object.freeze(heads) })
    store.saveChat(state)
  }

  const partial = store.partial(id)
  const recoveredFrom = state.current
  if (partial !== undefined) {
    commit(keptTurn(partial.from, partial.message, partial.text, 'interrupted'), partial.from, true)
  }

  /** Finds a vertex of the chat: a head, else an ancestor of one (a walk of the tree). */
  const find = (at: string | Conversation, what: string): Conversation => {
    if (typeof at !== 'string') return at
    const head = state.heads.find((h) => h.id === at)
    if (head !== undefined) return head
    const seen = new Set<Conversation>()
    const stack = [...state.heads]
    while (stack.length > 0) {
      const v = stack.pop()!
      if (v.id === at) return v
      for (const p of v.parents) {
        if (seen.has(p)) continue
        seen.add(p)
        stack.push(p)
      }
    }
    throw new UsageError(`chat.${what}`, `chat "${id}" has no vertex "${at}"`)
  }

  /** Turns asked for and not settled yet; the one after the last of them waits for `tail`. */
  let pending = 0
  let tail: Promise<void> | undefined
  let running: TurnControl | undefined
  const settled = (): void => {
    if (--pending === 0) tail = undefined
  }

  /** Runs a turn once those asked before have settled: at once when none is pending. */
  const turn = (
    command: ChatCommand,
    from: Conversation | undefined,
    message: Content | undefined,
    turnOptions: TurnOptions,
  ): Promise<ChatTurn> => {
    let mine: Promise<ChatTurn>
    if (pending === 0) mine = runTurn(command, from, message, turnOptions)
    else {
      const go = () => runTurn(command, from, message, turnOptions)
      mine = tail!.then(go, go)
    }
    pending++
    tail = mine.then(settled, settled)
    return mine
  }

  const runTurn = async (
    command: ChatCommand,
    from: Conversation | undefined,
    message: Content | undefined,
    turnOptions: TurnOptions,
  ): Promise<ChatTurn> => {
    const input = message ?? (from?.data.type === 'message' ? from.data.content : undefined)
    if (input === undefined) throw new UsageError('chat.retry', 'there is no message to answer')
    const turnId = randomUUID()
    const control = (running = new TurnControl())
    const outer = turnOptions.signal
    let onAbort: (() => void) | undefined
    if (outer?.aborted === true) control.cancel(outer.reason)
    else if (outer !== undefined) {
      onAbort = () => {
        control.cancel(outer.reason)
      }
      outer.addEventListener('abort', onAbort, { once: true })
    }
    const first = options.onEvent
    const second = turnOptions.onEvent
    // Nobody listening: no chat event is built.
    const listening = first !== undefined || second !== undefined
    const tell: (e: ChatEvent) => void = !listening
      ? noEvents
      : first === undefined || second === undefined
        ? (first ?? second)!
        : (e) => {
            first(e)
            second(e)
          }

    // Its agent cell is where the agent's node reads its head from and writes its new one to.
    const registry = new TurnRegistry(session, target.type === 'agent' ? target.node : undefined)
    // The vertex the answer hangs from, stored before the turn so a crash can keep what it says.
    let base = from
    let asked: Conversation | undefined
    if (target.type === 'agent') {
      if (base === undefined) {
        // A new chat: the agent's first state (system prompt, tools) is the base.
        await interpreters
          .get(target.node.kind)
          ?.start?.(target.node, { signal: control.signal, session: registry })
        base = registry.agentState?.head
      }
      if (base !== undefined) registry.agentState = Object.freeze({ head: base })
    } else {
      asked = message === undefined ? from! : user(message)(from ?? [])
    }
    const pendingFrom = asked ?? base
    let text = ''
    let thinking = ''
    let flush: NodeJS.Immediate | undefined
    const partialOf = (): PartialAnswer => ({
      turnId,
      from: pendingFrom!,
      ...(asked === undefined && message !== undefined && { message }),
      text,
      thinking,
    })
    if (pendingFrom !== undefined) store.savePartial(id, partialOf())
    const saveSoon = (): void => {
      if (flush !== undefined || pendingFrom === undefined) return
      flush = setImmediate(() => {
        flush = undefined
        store.savePartial(id, partialOf())
      })
    }
    if (listening) {
      tell({
        type: 'started',
        chatId: id,
        turnId,
        command,
        ...(from !== undefined && { from }),
        ...(message !== undefined && { message }),
      })
    }
    const onChunk = (e: StepChunk): void => {
      if (target.type === 'agent' && (e.path.length !== 1 || e.stepId !== target.stepId)) return
      const c = e.chunk
      if (typeof c === 'string') {
        text += c
        saveSoon()
        if (listening) tell({ type: 'delta', chatId: id, turnId, text: c })
      } else if (!listening) {
        if (isLlmChunk(c) && c.type === 'thinking') {
          thinking += c.text
          saveSoon()
        }
      } else if (isLlmChunk(c)) {
        if (c.type === 'thinking') {
          thinking += c.text
          saveSoon()
          tell({ type: 'thinking', chatId: id, turnId, text: c.text })
        } else if (c.type === 'tool_call') {
          tell({ type: 'tool_call', chatId: id, turnId, id: c.id, name: c.name, input: c.input })
        } else {
          tell({
            type: 'tool_result',
            chatId: id,
            turnId,
            id: c.id,
            name: c.name,
            content: c.content,
            isError: c.isError,
          })
        }
      }
    }
    const done = () => {
      if (flush !== undefined) clearImmediate(flush)
      flush = undefined
      if (onAbort !== undefined) outer?.removeEventListener('abort', onAbort)
      if (running === control) running = undefined
    }
    try {
      const signal = control.runSignal
      const started = startRun(
        g,
        {
          interpreters,
          session: registry,
          input,
          runId: turnId,
          clock,
          ...(signal !== undefined && { signal }),
          ...(options.budget !== undefined && { budget: options.budget }),
        },
        onChunk,
      )
      control.started(started.cancel)
      const r = await started.result
      done()
      const out = r.results[target.stepId]
      let head: Conversation
      let answer: string
      if (target.type === 'agent') {
        head = registry.agentState!.head
        answer = typeof out === 'string' ? out : text
      } else {
        answer = typeof out === 'string' ? out : out === undefined ? '' : JSON.stringify(out)
        head = stop('end_turn')(assistant(answer)(asked!))
      }
      const d = head.data
      const stopReason = d.type === 'stop_reason' ? d.reason : 'end_turn'
      const usage = d.type === 'stop_reason' ? d.usage : zeroUsage
      commit(head, from, command === 'retry' || command === 'edit')
      const { apiCalls, cost } = r.metrics.usage
      if (listening) {
        tell({ type: 'usage', chatId: id, turnId, usage, apiCalls, cost })
        tell({ type: 'completed', chatId: id, turnId, head, text: answer, stopReason })
      }
      return Object.freeze({
        turnId,
        status: 'completed',
        head,
        text: answer,
        stopReason,
        usage,
        apiCalls,
        cost,
      })
    } catch (e) {
      done()
      if (!isCancel(e) || !control.cancelled || pendingFrom === undefined) {
        store.savePartial(id, undefined)
        tell({ type: 'failed', chatId: id, turnId, error: e })
        throw e
      }
      const head = keptTurn(
        pendingFrom,
        asked === undefined ? message : undefined,
        text,
        'cancelled',
      )
      commit(head, from)
      tell({ type: 'cancelled', chatId: id, turnId, head, text })
      return Object.freeze({
        turnId,
        status: 'cancelled',
        head,
        text,
        stopReason: 'cancelled',
        usage: zeroUsage,
        apiCalls: 0,
        cost: 0,
      })
    }
  }

  const askedOf = (at: string | Conversation | undefined, what: string): Conversation => {
    const start = at === undefined ? state.current : find(at, what)
    const asked = start === undefined ? undefined : askedAt(start)
    if (asked === undefined) {
      throw new UsageError(`chat.${what}`, `chat "${id}" has no user message to ${what}`)
    }
    return asked
  }

  const checked = (message: Content, what: string): Content => {
    if (
      typeof message === 'string' ? message === '' : !Array.isArray(message) || message.length === 0
    ) {
      throw new UsageError(`chat.${what}`, 'a message is a non-empty string or content blocks')
    }
    return message
  }

  return new ChatHandle(
    id,
    state.createdAt,
    () => state.current,
    () => state.heads,
    partial !== undefined && state.current !== recoveredFrom ? state.current : undefined,
    {
      send: (message, o = {}) => turn('send', state.current, checked(message, 'send'), o),
      continue: (at, message, o = {}) =>
        turn('continue', find(at, 'continue'), checked(message, 'continue'), o),
      retry: (o = {}) => turn('retry', askedOf(o.at, 'retry'), undefined, o),
      edit: (message, o = {}) => {
        const asked = askedOf(o.at, 'edit')
        return turn('edit', asked.parents[0], checked(message, 'edit'), o)
      },
      branches: () => branchesOf(id, state.heads, state.current),
      switch: (to) => {
        const v = state.heads.find((h) => h === to || h.id === to)
        if (v === undefined) {
          throw new UsageError(
            'chat.switch',
            `chat "${id}" has no head "${typeof to === 'string' ? to : to.id}"`,
          )
        }
        state = Object.freeze({ ...state, current: v })
        store.saveChat(state)
        return v
      },
      cancel: (reason?: unknown) => {
        if (running === undefined) return false
        running.cancel(reason ?? new Stopped('the chat turn was cancelled'))
        return true
      },
    },
  )
}

type Commands = Pick<
  Chat,
  'send' | 'continue' | 'retry' | 'edit' | 'branches' | 'switch' | 'cancel'
>

/** A chat's handle: its state read through the functions {@link openChat} gives it. */
class ChatHandle implements Chat {
  readonly send: Chat['send']
  readonly continue: Chat['continue']
  readonly retry: Chat['retry']
  readonly edit: Chat['edit']
  readonly branches: Chat['branches']
  readonly switch: Chat['switch']
  readonly cancel: Chat['cancel']
  constructor(
    readonly id: string,
    readonly createdAt: string,
    private readonly currentOf: () => Conversation | undefined,
    private readonly headsOf: () => readonly Conversation[],
    readonly recovered: Conversation | undefined,
    commands: Commands,
  ) {
    this.send = commands.send
    this.continue = commands.continue
    this.retry = commands.retry
    this.edit = commands.edit
    this.branches = commands.branches
    this.switch = commands.switch
    this.cancel = commands.cancel
    Object.freeze(this)
  }

  get head(): Conversation | undefined {
    return this.currentOf()
  }

  get heads(): readonly Conversation[] {
    return this.headsOf()
  }
}
