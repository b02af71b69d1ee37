/**
 * Drives the real Claude Code, Codex CLI and Gemini CLI (devDependencies)
 * against the model proxy answering from a script: a model the test feeds
 * turn by turn.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { type Block, type Provider, pty } from '../../../src/index.js'
import {
  anthropicMessages,
  codexBinary,
  geminiBinary,
  geminiProtocol,
  type ModelProxy,
  type ModelRequest,
  type ModelResponse,
  openaiResponsesProtocol,
  openPty,
  type PtyTerminal,
  startModelProxy,
} from '../../../src/interpreters/index.js'

/** One scripted turn: text, tool calls, and how long the model takes before it answers. */
export interface Turn {
  readonly text?: string
  readonly tools?: readonly { readonly name: string; readonly input: Record<string, unknown> }[]
  readonly delayMs?: number
}

/** A model answering the turns pushed to it, and the proxy in front of it. */
export interface ScriptedModel {
  readonly proxy: ModelProxy
  /** The requests of the agent's turns (side calls left out). */
  readonly requests: ModelRequest[]
  push(...turns: Turn[]): void
}

const zero = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
}

/**
 * Whether a request is a program's side call rather than a turn of the
 * agent: Codex's thread title and Gemini CLI's session summary carry no
 * tools, every turn does.
 */
export const isSideCall = (request: ModelRequest): boolean => request.tools.length === 0

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason as Error)
      },
      { once: true },
    )
  })

/** Starts the proxy (Anthropic Messages, OpenAI Responses and Gemini protocols) answering from a script. */
export const scriptedModel = async (): Promise<ScriptedModel> => {
  const turns: Turn[] = []
  const requests: ModelRequest[] = []
  let calls = 0
  const provider: Provider = {
    name: 'scripted',
    async call(request, { signal }): Promise<ModelResponse> {
      if (isSideCall(request)) {
        // Codex asks for a title as JSON; Gemini CLI for a one-line summary.
        const text = JSON.stringify({ title: 'Nerve test' })
        return { content: [{ type: 'text', text }], stopReason: 'end_turn', usage: zero }
      }
      requests.push(request)
      const turn = turns.shift() ?? { text: 'No more turns scripted.' }
      if (turn.delayMs !== undefined) await sleep(turn.delayMs, signal)
      const content: Block[] = []
      if (turn.text !== undefined) content.push({ type: 'text', text: turn.text })
      for (const t of turn.tools ?? [])
        content.push({ type: 'tool_use', id: `call_${++calls}`, name: t.name, input: t.input })
      const tools = content.some((b) => b.type === 'tool_use')
      return { content, stopReason: tools ? 'tool_use' : 'end_turn', usage: zero }
    },
  }
  const proxy = await startModelProxy({
    protocols: [anthropicMessages, openaiResponsesProtocol, geminiProtocol],
    upstream: { _tag: 'provider', provider },
  })
  return { proxy, requests, push: (...more) => turns.push(...more) }
}

/** The pids of the processes whose environment holds `entry` (`NAME=value`). */
export const processesWith = (entry: string): number[] =>
  readdirSync('/proc').flatMap((name) => {
    const pid = Number(name)
    if (!Number.isSafeInteger(pid) || pid === process.pid) return []
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1')
      return `\0${env}`.includes(`\0${entry}\0`) ? [pid] : []
    } catch {
      return []
    }
  })

/** Resolves once `ready()` holds, checking as often as `everyMs`; rejects after `timeoutMs`. */
export const until = async (
  ready: () => boolean,
  what: () => string,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> => {
  const end = Date.now() + timeoutMs
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting; last seen:\n${what()}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/** The text of a message's blocks (its string content as is). */
export const textOf = (m: ModelRequest['messages'][number] | undefined): string =>
  m === undefined
    ? ''
    : typeof m.content === 'string'
      ? m.content
      : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n')

/** A temporary `root` for a test file's CLI, with its working directory `work`; removed after the file's tests. */
export const cliRoot = (name: string): { readonly root: string; readonly work: string } => {
  const root = mkdtempSync(join(tmpdir(), `nerve-${name}-`))
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })
  const work = join(root, 'work')
  mkdirSync(work)
  return { root, work }
}

/**
 * Opens the real Codex or Gemini CLI (`parser` names which) in a PTY node
 * `name` on a 100×30 screen, working in `work`, with `env` and a HOME of its
 * own at `root`: login shells it starts read no profile of the machine's.
 */
export const openCli = (
  name: string,
  parser: 'codex' | 'gemini',
  options: {
    readonly root: string
    readonly work: string
    readonly env: Record<string, string>
    readonly args?: readonly string[]
    readonly timeoutMs: number
  },
): PtyTerminal =>
  openPty(
    pty(name, {
      command: parser === 'codex' ? codexBinary() : geminiBinary(),
      ...(options.args === undefined ? {} : { args: options.args }),
      cwd: options.work,
      env: { ...options.env, HOME: options.root },
      parser,
      cols: 100,
      rows: 30,
      timeoutMs: options.timeoutMs,
    }),
  )
