import * as t from 'io-ts'
import { zeroUsage, type Usage } from '../../../conversation/Entry.js'
import { struct } from '../../../conversation/codec/combinators.js'
import {
  BlockCodec,
  MessageCodec,
  ToolDefinitionCodec,
  UsageCodec,
} from '../../../conversation/codec/entry.js'
import type { ModelRequest, ModelResponse } from '../../llm/Provider.js'

/**
 * One model call that went through the model proxy: which agent made it,
 * in which protocol, its place among that agent's calls, the request and the
 * answer as Nerve reads them, when it began and how long it took. What the
 * trace shows and a tape keeps: replayed in order, the calls answer the
 * same agents with no API.
 *
 * @category proxy
 */
export interface ProxyCall {
  readonly agent: string
  readonly protocol: string
  /** 0 for the agent's first call. */
  readonly index: number
  readonly request: ModelRequest
  readonly response: ModelResponse
  /** ISO time the call came in. */
  readonly at: string
  readonly ms: number
}

/**
 * What one agent's calls cost: how many went through, how many were
 * refused (over budget), the exact usage the API reported, summed, and the
 * cost (the API's, or by the proxy's pricing; 0 when neither tells).
 *
 * @category proxy
 */
export interface AgentUsage {
  readonly calls: number
  readonly refused: number
  readonly usage: Usage
  readonly cost: number
}

/** @internal */
export const noUsage: AgentUsage = Object.freeze({
  calls: 0,
  refused: 0,
  usage: zeroUsage,
  cost: 0,
})

/** The sum of two usages (optional counts kept when either has them). @internal */
export const addUsage = (a: Usage, b: Usage): Usage => ({
  input_tokens: a.input_tokens + b.input_tokens,
  output_tokens: a.output_tokens + b.output_tokens,
  cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
})

const ChoiceCodec = t.union([
  struct('ToolChoice', { type: t.keyof({ auto: null, any: null, none: null }) }),
  struct('ToolChoice', { type: t.literal('tool'), name: t.string }),
])

const RequestCodec = struct(
  'ModelRequest',
  {
    system: t.string,
    messages: t.readonlyArray(MessageCodec),
    tools: t.readonlyArray(ToolDefinitionCodec),
  },
  {
    model: t.string,
    toolChoice: ChoiceCodec,
    parallelToolCalls: t.boolean,
    maxTokens: t.number,
    temperature: t.number,
  },
)

const ResponseCodec = struct(
  'ModelResponse',
  { content: t.readonlyArray(BlockCodec), stopReason: t.string, usage: UsageCodec },
  { cost: t.number, model: t.string },
)

/**
 * The io-ts codec of a {@link ProxyCall}, as a tape stores it (JSON).
 *
 * @category proxy
 */
export const ProxyCallCodec: t.Type<ProxyCall, unknown> = struct('ProxyCall', {
  agent: t.string,
  protocol: t.string,
  index: t.number,
  request: RequestCodec,
  response: ResponseCodec,
  at: t.string,
  ms: t.number,
})
