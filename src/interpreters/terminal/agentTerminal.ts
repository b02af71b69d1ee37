/**
 * The terminal of a CLI agent on a plain PTY: a PTY node made when it
 * starts (its home prepared first), its screen read by the agent's parser,
 * and permission prompts answered as approvals with the program's keys.
 * Claude Code, Codex and Gemini CLI nodes are each one of these.
 *
 * @internal
 */
import type { NodeState } from '../../node/NodeState.js'
import type { PtyNode } from '../../node/PtyNode.js'
import type { ParsedResponse } from '../parsers/ParsedResponse.js'
import type { ScreenState } from '../parsers/ScreenState.js'
import {
  approvalOf,
  promptRisk,
  type Approvals,
  type PermissionDecision,
  type PermissionRequest,
} from './approvals.js'
import { openPty, type PtyTerminal } from './pty.js'
import { TerminalNotStarted, type ExecuteOptions } from './Terminal.js'

/** How long a permission prompt must stand unchanged before it is answered: a key sent on its first frame is lost. */
const SETTLE_MS = 200
/** How long an answered prompt may stay before the answer is sent again. */
const RETRY_MS = 1000

const samePrompt = (a: ScreenState, b: ScreenState): boolean =>
  a._tag === 'permission' &&
  b._tag === 'permission' &&
  a.tool === b.tool &&
  a.command === b.command &&
  a.file === b.file

/** What makes one agent's terminal. */
export interface AgentTerminalSpec {
  readonly nodeId: string
  /** The program's name in errors (`Claude`, `codex`, …). */
  readonly program: string
  /** Prepares the home and makes the PTY node it runs in; called by the first `start`. */
  readonly prepare: () => Promise<PtyNode>
  /** The keys that approve and deny a permission prompt. */
  readonly keys: Readonly<Record<PermissionDecision, string>>
  readonly approvals?: Approvals
  /** How many times an answer is sent again while the very prompt still shows. Default 0. */
  readonly retries?: number
  readonly killGraceMs?: number
}

/**
 * A CLI agent's terminal over a PTY terminal it opens on `start`.
 *
 * @internal
 */
export class AgentTerminal implements PtyTerminal {
  private inner: PtyTerminal | undefined
  private last: ScreenState | undefined
  private settle: ReturnType<typeof setTimeout> | undefined
  /** The prompt asked about and not answered yet (what it asks), and how to withdraw the request. */
  private asking: { readonly key: string; readonly withdraw: (() => void) | undefined } | undefined

  constructor(private readonly spec: AgentTerminalSpec) {}

  get nodeId(): string {
    return this.spec.nodeId
  }
  get state(): NodeState {
    return this.inner?.state ?? 'created'
  }
  get pid(): number | undefined {
    return this.inner?.pid
  }

  /** What shows on the screen now, as the agent's parser reads it. */
  screenState(): ScreenState | undefined {
    return this.last
  }

  private readonly onScreenState = (state: ScreenState): void => {
    this.last = state
    clearTimeout(this.settle)
    if (state._tag !== 'permission') {
      this.withdraw()
      return
    }
    this.settle = setTimeout(() => {
      if (this.last === state) this.ask(state)
    }, SETTLE_MS)
  }

  /** The request of a prompt that left the screen unanswered (or of a stopped terminal) is withdrawn. */
  private withdraw(): void {
    const asking = this.asking
    this.asking = undefined
    asking?.withdraw?.()
  }

  private ask(state: Extract<ScreenState, { _tag: 'permission' }>): void {
    // A prompt drawn again (the same question) is not asked twice.
    const key = JSON.stringify([state.tool, state.command, state.file])
    if (this.asking?.key === key) return
    this.withdraw()
    const risk = promptRisk(state.tool)
    const request: PermissionRequest = Object.freeze({
      nodeId: this.spec.nodeId,
      tool: state.tool,
      ...(state.command === undefined ? {} : { command: state.command }),
      ...(state.file === undefined ? {} : { file: state.file }),
      options: state.options,
      ...(risk === undefined ? {} : { risk }),
    })
    const asking = { key, withdraw: undefined as (() => void) | undefined }
    this.asking = asking
    asking.withdraw = approvalOf(this.spec.approvals, request, (decision) => {
      if (this.asking === asking) this.asking = undefined
      return this.answer(state, decision, 0)
    })
  }

  /** Presses the decision's key while the very prompt shows; again after {@link RETRY_MS}, up to `retries` times. */
  private async answer(
    state: ScreenState,
    decision: PermissionDecision,
    tries: number,
  ): Promise<void> {
    // A prompt drawn again since (same question, new frame) is still the one answered.
    if (this.last?._tag !== 'permission' || !samePrompt(this.last, state)) return
    if (this.inner === undefined || this.state === 'stopped') return
    await this.inner.write(this.spec.keys[decision])
    if (tries >= (this.spec.retries ?? 0)) return
    setTimeout(() => {
      void this.answer(state, decision, tries + 1).catch(() => undefined)
    }, RETRY_MS)
  }

  async start(): Promise<void> {
    if (this.inner !== undefined) return this.inner.start()
    const node = await this.spec.prepare()
    const { killGraceMs } = this.spec
    this.inner = openPty(node, {
      onScreenState: this.onScreenState,
      ...(killGraceMs === undefined ? {} : { killGraceMs }),
    })
    await this.inner.start()
  }

  private started(): PtyTerminal {
    if (this.inner === undefined)
      throw new TerminalNotStarted(
        this.spec.nodeId,
        `${this.spec.program} node "${this.spec.nodeId}": start it first`,
      )
    return this.inner
  }

  stop(): Promise<void> {
    clearTimeout(this.settle)
    this.withdraw()
    return this.inner?.stop() ?? Promise.resolve()
  }
  reset(): Promise<void> {
    return this.started().reset()
  }
  execute(input: string, options?: ExecuteOptions): Promise<ParsedResponse> {
    return this.started().execute(input, options)
  }
  executeStream(
    input: string,
    options?: ExecuteOptions,
  ): AsyncIterable<string, ParsedResponse, undefined> {
    return this.started().executeStream(input, options)
  }
  write(data: string): Promise<void> {
    return this.started().write(data)
  }
  read(): string {
    return this.inner?.read() ?? ''
  }
  readTail(lines: number): string {
    return this.inner?.readTail(lines) ?? ''
  }
  screen(): string {
    return this.inner?.screen() ?? ''
  }
  clearBuffer(): void {
    this.inner?.clearBuffer()
  }
  interrupt(): Promise<void> {
    return this.inner?.interrupt() ?? Promise.resolve()
  }
}
