/**
 * The `wezterm cli` plumbing of the WezTerm node: a {@link PaneBackend} over
 * one WezTerm pane. Internal: not exported from the package (its error and
 * pane description are, through `wezterm.ts`).
 */
import { taggedError } from '../../errors.js'
import { execFile, execFileSync, spawn } from 'node:child_process'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { WeztermNode } from '../../node/WeztermNode.js'
import type { PaneBackend } from './paneTerminal.js'
import { TerminalNotStarted } from './Terminal.js'
import { endProcesses, MARK_VARIABLE, newMark, processesOf } from './processTree.js'

/** Characters per `send-text` call: long inputs go in pieces, as a paste would. */
const CHUNK_CHARS = 1024
const DEFAULT_COMMAND = ['bash', '--norc', '--noprofile'] as const

/**
 * `wezterm cli` answered with an error (an unknown pane, no running
 * WezTerm), or printed what Nerve could not read.
 *
 * @category errors
 */
export class WeztermCommandFailed extends taggedError('WeztermCommandFailed', 'failed')<{
  readonly args: readonly string[]
  readonly stderr: string
}> {
  constructor(args: readonly string[], stderr: string, cause?: unknown) {
    super(
      `wezterm cli ${args.join(' ')}: ${stderr.trim() === '' ? 'failed' : stderr.trim()}`,
      { args: Object.freeze([...args]), stderr },
      { cause },
    )
  }
}

const PaneEntry = t.intersection([
  t.type({
    pane_id: t.number,
    window_id: t.number,
    tab_id: t.number,
    size: t.type({ rows: t.number, cols: t.number }),
    title: t.string,
    cwd: t.string,
  }),
  t.partial({
    workspace: t.string,
    cursor_x: t.number,
    cursor_y: t.number,
    is_active: t.boolean,
    tty_name: t.string,
  }),
])
const PaneList = t.array(PaneEntry)

/**
 * One pane as `wezterm cli list --format json` describes it.
 *
 * @category terminals
 */
export interface WeztermPaneInfo {
  readonly paneId: number
  readonly windowId: number
  readonly tabId: number
  readonly workspace: string | undefined
  readonly title: string
  /** A `file://host/path` URL, as WezTerm reports it. */
  readonly cwd: string
  readonly rows: number
  readonly cols: number
  readonly cursorX: number | undefined
  readonly cursorY: number | undefined
  readonly isActive: boolean | undefined
  readonly ttyName: string | undefined
}

const infoOf = (p: t.TypeOf<typeof PaneEntry>): WeztermPaneInfo =>
  Object.freeze({
    paneId: p.pane_id,
    windowId: p.window_id,
    tabId: p.tab_id,
    workspace: p.workspace,
    title: p.title,
    cwd: p.cwd,
    rows: p.size.rows,
    cols: p.size.cols,
    cursorX: p.cursor_x,
    cursorY: p.cursor_y,
    isActive: p.is_active,
    ttyName: p.tty_name,
  })

/** Splits text into pieces of at most `size` UTF-16 units, never inside a surrogate pair. */
const chunksOf = (text: string, size: number): string[] => {
  const out: string[] = []
  let at = 0
  while (at < text.length) {
    let end = Math.min(at + size, text.length)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
    out.push(text.slice(at, end))
    at = end
  }
  return out
}

const linesOf = (text: string): string[] => {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Physical rows joined into logical lines: a row that fills the pane's width
 * (its last cell not blank) continues on the next one. A guess (a line of
 * exactly `cols` characters looks wrapped), but `get-text` gives no wrap flags.
 */
const joinWrapped = (rows: readonly string[], cols: number | undefined): string[] => {
  if (cols === undefined) return [...rows]
  const out: string[] = []
  let carry = ''
  for (const row of rows) {
    if (row.length >= cols) carry += row
    else {
      out.push(carry + row)
      carry = ''
    }
  }
  if (carry !== '') out.push(carry)
  return out
}

/**
 * Runs `wezterm cli ARGS` (with `input` on its standard input, if given) and
 * answers what it printed; a failure — WezTerm missing, no GUI running, an
 * unknown pane — is a {@link WeztermCommandFailed}.
 */
export const weztermCli = (bin: string, args: readonly string[], input?: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const fail = (stderr: string, cause?: unknown): void => {
      reject(new WeztermCommandFailed(args, stderr, cause))
    }
    if (input === undefined) {
      execFile(bin, ['cli', ...args], { maxBuffer: 64 * 1024 * 1024 }, (e, out, err) => {
        if (e === null) resolve(out)
        else fail(err, e)
      })
      return
    }
    const child = spawn(bin, ['cli', ...args], { stdio: ['pipe', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', (e) => {
      fail(stderr, e)
    })
    child.on('close', (code) => {
      if (code === 0) resolve('')
      else fail(stderr)
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(input)
  })

/**
 * Every pane of the running WezTerm, as `wezterm cli list --format json` describes them.
 *
 * @category terminals
 */
export const listWeztermPanes = async (bin = 'wezterm'): Promise<WeztermPaneInfo[]> => {
  const args = ['list', '--format', 'json']
  const out = await weztermCli(bin, args)
  let json: unknown
  try {
    json = JSON.parse(out)
  } catch (e) {
    throw new WeztermCommandFailed(args, `not JSON: ${out.slice(0, 200)}`, e)
  }
  const decoded = PaneList.decode(json)
  if (E.isLeft(decoded)) {
    throw new WeztermCommandFailed(args, 'the pane list does not have the expected fields')
  }
  return decoded.right.map(infoOf)
}

/** A WezTerm pane driven through `wezterm cli`. */
export class WeztermPane implements PaneBackend {
  /** `wezterm cli` has no output events: the pane's text is re-read on an adaptive timer. */
  readonly events = false
  private readonly bin: string
  pane: number | undefined
  spawned = false
  private closed = false
  private cols: number | undefined
  /** Marks the environment of every process a spawned pane starts (see processTree.ts). */
  private readonly processMark = newMark()

  constructor(
    private readonly node: WeztermNode,
    /** Milliseconds between `SIGTERM` and `SIGKILL` when a spawned pane's processes are ended. */
    private readonly killGraceMs = 2000,
  ) {
    this.bin = node.wezterm ?? 'wezterm'
  }

  cli(args: readonly string[], input?: string): Promise<string> {
    return weztermCli(this.bin, args, input)
  }

  private cliSync(args: readonly string[]): string {
    try {
      return execFileSync(this.bin, ['cli', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 * 1024 * 1024,
      })
    } catch (e) {
      const stderr = (e as { stderr?: unknown }).stderr
      throw new WeztermCommandFailed(args, typeof stderr === 'string' ? stderr : '', e)
    }
  }

  private id(): string {
    if (this.pane === undefined) {
      throw new TerminalNotStarted(this.node.id, `wezterm node "${this.node.id}" has no pane yet`)
    }
    return String(this.pane)
  }

  list(): Promise<WeztermPaneInfo[]> {
    return listWeztermPanes(this.bin)
  }

  async info(): Promise<WeztermPaneInfo> {
    const id = this.pane
    const found = (await this.list()).find((p) => p.paneId === id)
    if (found === undefined) {
      throw new WeztermCommandFailed(['list'], `pane ${String(id)} is not in the list`)
    }
    return found
  }

  async open(): Promise<void> {
    const n = this.node
    if (n.paneId !== undefined) {
      this.pane = n.paneId
      this.cols = (await this.info()).cols
      return
    }
    const env = Object.entries(n.env ?? {}).map(([k, v]) => `${k}=${v}`)
    env.push(`${MARK_VARIABLE}=${this.processMark}`)
    const command = n.command === undefined ? [...DEFAULT_COMMAND] : [n.command, ...(n.args ?? [])]
    const args = ['spawn', ...(n.cwd === undefined ? [] : ['--cwd', n.cwd]), '--']
    args.push('env', ...env, ...command)
    const out = (await this.cli(args)).trim()
    if (!/^\d+$/.test(out)) throw new WeztermCommandFailed(args, `not a pane id: ${out}`)
    this.pane = Number(out)
    this.spawned = true
    this.cols = (await this.info()).cols
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (!this.spawned) return
    // The pane's processes, found by their mark (the pane may run on this machine's mux).
    const scope = { mark: this.processMark }
    const known = processesOf(scope)
    await this.cli(['kill-pane', '--pane-id', this.id()]).catch(() => undefined)
    await endProcesses(scope, { graceMs: this.killGraceMs, known })
  }

  private textArgs(): string[] {
    return ['get-text', '--pane-id', this.id(), '--start-line', `-${this.scrollback()}`]
  }

  private scrollback(): number {
    return this.node.scrollbackLines ?? 10_000
  }

  private markOf(text: string, info: Pick<WeztermPaneInfo, 'rows' | 'cols' | 'cursorY'>): number {
    this.cols = info.cols
    return Math.max(0, linesOf(text).length - info.rows) + (info.cursorY ?? info.rows - 1)
  }

  async mark(): Promise<number> {
    const [info, text] = await Promise.all([this.info(), this.cli(this.textArgs())])
    return this.markOf(text, info)
  }

  markSync(): number {
    const json = JSON.parse(this.cliSync(['list', '--format', 'json'])) as unknown
    const decoded = PaneList.decode(json)
    const entry = E.isRight(decoded)
      ? decoded.right.map(infoOf).find((p) => p.paneId === this.pane)
      : undefined
    if (entry === undefined) {
      throw new WeztermCommandFailed(['list'], `pane ${String(this.pane)} is not in the list`)
    }
    return this.markOf(this.cliSync(this.textArgs()), entry)
  }

  async capture(from: number | undefined): Promise<string> {
    return joinWrapped(linesOf(await this.cli(this.textArgs())).slice(from ?? 0), this.cols).join(
      '\n',
    )
  }

  captureSync(from: number | undefined): string {
    return joinWrapped(linesOf(this.cliSync(this.textArgs())).slice(from ?? 0), this.cols).join(
      '\n',
    )
  }

  async sendText(text: string): Promise<void> {
    for (const chunk of chunksOf(text, CHUNK_CHARS)) {
      await this.cli(['send-text', '--pane-id', this.id(), '--no-paste'], chunk)
    }
  }

  sendLine(text: string): Promise<void> {
    return this.sendText(`${text}\r`)
  }

  sendInterrupt(): Promise<void> {
    return this.sendText('\x03')
  }

  async alive(): Promise<boolean> {
    const id = this.pane
    return (await this.list()).some((p) => p.paneId === id)
  }
}
