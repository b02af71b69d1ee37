/**
 * `RemoteChat`: a chat on the daemon. Each turn (`send`, `continue`,
 * `retry`, `edit`) is a {@link RemoteTurn}: its `CHAT_*` events as they
 * come (subscribed before the turn starts) and its result.
 */
import {
  chatEventNames,
  type ChatEngineEvent,
  type ChatInfo,
  type ChatTurnInfo,
  type EngineEvent,
  type Results,
} from '../protocol/index.js'
import type { CallOptions, Calls } from './Calls.js'

const CHAT_TYPES = Object.values(chatEventNames)
const ENDS: ReadonlySet<string> = new Set([
  chatEventNames.completed,
  chatEventNames.failed,
  chatEventNames.cancelled,
])

/**
 * A message: text, or content blocks.
 *
 * @category client
 */
export type ChatMessage = string | readonly Readonly<Record<string, unknown>>[]

/**
 * One turn of a chat on the daemon: `events()` are the chat's events from
 * the turn's start to its end (text deltas, thinking, tool calls and
 * results, usage, the end), `result()` what it ended with (a failed turn
 * rejects with its error).
 *
 * @category client
 */
export class RemoteTurn {
  private readonly seen: ChatEngineEvent[] = []
  private ended = false
  private readonly waiters: (() => void)[] = []
  private readonly done: Promise<ChatTurnInfo>

  constructor(
    readonly chatId: string,
    call: Promise<ChatTurnInfo>,
    events: AsyncIterable<EngineEvent> | undefined,
    unsubscribe: () => Promise<void>,
  ) {
    this.done = call
    void this.pump(events, call).finally(() => {
      this.ended = true
      this.wake()
      void unsubscribe()
    })
  }

  /**
   * Reads the turn's events until its end event. The engine publishes them
   * before it answers the call, on the same connection, so a call that
   * failed before the turn started (no event of it seen) ends the reading.
   */
  private async pump(
    events: AsyncIterable<EngineEvent> | undefined,
    call: Promise<ChatTurnInfo>,
  ): Promise<void> {
    if (events === undefined) return
    let turnId: string | undefined
    const failedEarly = call.then(
      () => new Promise<'never'>(() => undefined),
      () => 'stop' as const,
    )
    const it = events[Symbol.asyncIterator]()
    for (;;) {
      const next = await Promise.race([
        it.next(),
        turnId === undefined ? failedEarly : new Promise<'never'>(() => undefined),
      ])
      if (next === 'stop' || next === 'never' || next.done === true) return
      const e = next.value
      if (e.type === 'SERVER_SHUTDOWN') return
      const c = e as ChatEngineEvent
      if (c.chatId !== this.chatId) continue
      turnId ??= c.turnId
      if (c.turnId !== turnId) continue
      this.seen.push(c)
      this.wake()
      if (ENDS.has(c.type)) return
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /** The turn's events, from its start to its end; each call iterates from the first. */
  async *events(): AsyncGenerator<ChatEngineEvent> {
    let i = 0
    for (;;) {
      while (i < this.seen.length) yield this.seen[i++]!
      if (this.ended) return
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** What the turn ended with. */
  result(): Promise<ChatTurnInfo> {
    return this.done
  }
}

/**
 * A chat on the daemon (`client.chat(id)`).
 *
 * @category client
 */
export class RemoteChat {
  constructor(
    private readonly client: Calls,
    /** The chat's id. */
    readonly chatId: string,
    private readonly sessionId: string | undefined,
  ) {}

  private get where() {
    return {
      chatId: this.chatId,
      ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
    }
  }

  private async turn(
    start: (options: CallOptions) => Promise<ChatTurnInfo>,
    options: CallOptions,
  ): Promise<RemoteTurn> {
    const sub = this.client.carriesEvents
      ? await this.client.subscribe({
          ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
          types: [...CHAT_TYPES, 'SERVER_SHUTDOWN'],
        })
      : undefined
    return new RemoteTurn(this.chatId, start(options), sub, async () => {
      await sub?.unsubscribe()
    })
  }

  /** `CHAT_SEND`: a message on the current head. */
  send(message: ChatMessage, options: CallOptions = {}): Promise<RemoteTurn> {
    return this.turn((o) => this.client.call('CHAT_SEND', { ...this.where, message }, o), options)
  }

  /** `CHAT_CONTINUE`: a message on another head (a vertex id), which becomes the current one. */
  continue(at: string, message: ChatMessage, options: CallOptions = {}): Promise<RemoteTurn> {
    return this.turn(
      (o) => this.client.call('CHAT_CONTINUE', { ...this.where, at, message }, o),
      options,
    )
  }

  /** `CHAT_RETRY`: a new answer to the user message of `at` (default: the current head's). */
  retry(options: CallOptions & { readonly at?: string } = {}): Promise<RemoteTurn> {
    const { at, ...call } = options
    return this.turn(
      (o) => this.client.call('CHAT_RETRY', { ...this.where, ...(at !== undefined && { at }) }, o),
      call,
    )
  }

  /** `CHAT_EDIT`: the user message of `at` (default: the current head's) changed, answered. */
  edit(
    message: ChatMessage,
    options: CallOptions & { readonly at?: string } = {},
  ): Promise<RemoteTurn> {
    const { at, ...call } = options
    return this.turn(
      (o) =>
        this.client.call(
          'CHAT_EDIT',
          { ...this.where, message, ...(at !== undefined && { at }) },
          o,
        ),
      call,
    )
  }

  /** `CHAT_BRANCHES`: the chat's tree, its heads oldest first. */
  branches(): Promise<Results['CHAT_BRANCHES']> {
    return this.client.call('CHAT_BRANCHES', this.where)
  }

  /** `CHAT_SWITCH`: another head becomes the current one. */
  switch(head: string): Promise<ChatInfo> {
    return this.client.call('CHAT_SWITCH', { ...this.where, head })
  }

  /** `CHAT_CANCEL`: cancels the turn running; whether there was one. */
  async cancel(): Promise<boolean> {
    return (await this.client.call('CHAT_CANCEL', this.where)).cancelled
  }

  /**
   * `CHAT_GET`: the chat and the messages of its current head; with
   * `tree`, also its whole tree (every head) as a conversation file. What
   * was read before need not come again: with `known` (the heads of a tree
   * read before), the tree holds only the vertices they do not reach; with
   * `since` (the `current` read before), only the messages after its own,
   * `messagesFrom` saying how many it holds.
   */
  info(
    options: {
      readonly tree?: boolean
      readonly known?: readonly string[]
      readonly since?: string
    } = {},
  ): Promise<Results['CHAT_GET']> {
    return this.client.call('CHAT_GET', { ...this.where, ...options })
  }
}
