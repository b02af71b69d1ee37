import type { Content, Conversation, ToolResultContent, Usage } from '../conversation/index.js'

/**
 * How a turn of a chat came about: a new message on the current head
 * (`send`), on a head named (`continue`), a new answer to a message
 * (`retry`) or a changed message (`edit`).
 *
 * @category chat
 */
export type ChatCommand = 'send' | 'continue' | 'retry' | 'edit'

/** What every chat event carries: the chat and the turn (the run's id). */
interface Base {
  readonly chatId: string
  readonly turnId: string
}

/**
 * What a chat tells while a turn runs, in order: `started`; then as the
 * answer comes, `delta` (text), `thinking`, `tool_call` (a tool the model
 * asked for, before it runs) and `tool_result`; then `usage` (what the
 * turn's model calls used) and one of `completed`, `failed` (the head did
 * not move) or `cancelled` (what was said is kept).
 *
 * @category chat
 */
export type ChatEvent =
  | (Base & {
      readonly type: 'started'
      readonly command: ChatCommand
      /** The vertex the turn goes on from; absent for the first turn of a chat. */
      readonly from?: Conversation
      /** The user message; absent for a retry (the message is the one answered again). */
      readonly message?: Content
    })
  | (Base & { readonly type: 'delta'; readonly text: string })
  | (Base & { readonly type: 'thinking'; readonly text: string })
  | (Base & {
      readonly type: 'tool_call'
      readonly id: string
      readonly name: string
      readonly input: unknown
    })
  | (Base & {
      readonly type: 'tool_result'
      readonly id: string
      readonly name: string
      readonly content: ToolResultContent
      readonly isError: boolean
    })
  | (Base & {
      readonly type: 'usage'
      readonly usage: Usage
      readonly apiCalls: number
      readonly cost: number
    })
  | (Base & {
      readonly type: 'completed'
      readonly head: Conversation
      readonly text: string
      readonly stopReason: string
    })
  | (Base & { readonly type: 'failed'; readonly error: unknown })
  | (Base & { readonly type: 'cancelled'; readonly head: Conversation; readonly text: string })

/**
 * The type of a chat event.
 *
 * @category chat
 */
export type ChatEventType = ChatEvent['type']
