/**
 * The tmux plumbing of the tmux node: a {@link PaneBackend} over one pane of
 * a tmux server, driven with the `tmux` command. Internal: not exported from
 * the package.
 *
 * Output events come from `pipe-pane`: tmux copies everything the pane's
 * program writes to a shell command, here `cat` into a TCP connection to a
 * server on 127.0.0.1 that this process opens for the pane (bash's
 * `/dev/tcp`, so nothing but bash and tmux is needed). Each chunk that arrives
 * makes the terminal capture the pane (`capture-pane -p -J`) and ask its
 * parser; the connection closing, when Nerve did not close it, means the pane
 * is gone. A spawned pane is kept when its program exits (`remain-on-exit`),
 * which leaves the pipe open, so its `pane-died` hook connects to a second
 * loopback server (`run-shell` with bash's `/dev/tcp`), and the exit status
 * is read from the dead pane (`#{pane_dead_status}`, `#{pane_dead_signal}`)
 * before the session is killed (see `watch` for a tmux 3.3a race). This was
 * chosen over control mode (`tmux -C attach`), which gives
 * `%output` events too but attaches a client to the session (which can change
 * the size of a user's window), and over a FIFO, whose reader cannot tell
 * "no writer yet" from "the writer left".
 */
import { taggedError } from '../../errors.js'
import { execFile, execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, type Server, type Socket } from 'node:net'
import { constants } from 'node:os'
import type { TmuxNode } from '../../node/TmuxNode.js'
import type { PaneBackend, PaneExit } from './paneTerminal.js'
import { endProcesses, MARK_VARIABLE, newMark, processesOf } from './processTree.js'
import { TerminalExited, TerminalNotStarted } from './Terminal.js'

/** How long `open` waits for tmux's `pipe-pane` to connect before giving up. */
const CONNECT_MS = 10_000
/** How long a spawned pane is quiet before {@link TmuxPane.watch} asks whether it died, and how often. */
const WATCH_MS = 200
const WATCH_TRIES = 10
const DEFAULT_COMMAND = ['bash', '--norc', '--noprofile'] as const

/**
 * The tmux pane a node was to attach to already has a pipe-pane: another
 * tool, or another node, reads it.
 *
 * @category terminals
 */
export class TmuxPaneTaken extends taggedError('TmuxPaneTaken', 'conflict')<{
  readonly paneId: string
}> {
  constructor(paneId: string) {
    super(`tmux pane ${paneId} already has a pipe-pane (another tool, or another node, reads it)`, {
      paneId,
    })
  }
}

/** tmux answered with an error (an unknown pane, no server, a bad option). */
export class TmuxCommandFailed extends taggedError('TmuxCommandFailed', 'failed')<{
  readonly args: readonly string[]
  readonly stderr: string
}> {
  constructor(args: readonly string[], stderr: string, cause?: unknown) {
    super(
      `tmux ${args.join(' ')}: ${stderr.trim() === '' ? 'failed' : stderr.trim()}`,
      { args: Object.freeze([...args]), stderr },
      { cause },
    )
  }
}

const childEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env }
  delete env.TMUX
  return env
}

/** The `-L name` / `-S path` arguments that select a node's server. */
export const serverArgs = (node: Pick<TmuxNode, 'socket' | 'socketPath'>): string[] =>
  node.socketPath !== undefined ? ['-S', node.socketPath] : ['-L', node.socket ?? 'nerve']

/** Runs `tmux` on a server; resolves with its stdout. */
export const runTmux = (server: readonly string[], args: readonly string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(
      'tmux',
      [...server, ...args],
      { env: childEnv(), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout)
        else reject(new TmuxCommandFailed(args, stderr, error))
      },
    )
  })

/** {@link runTmux}, blocking (for the synchronous reads of the Terminal interface). */
export const runTmuxSync = (server: readonly string[], args: readonly string[]): string => {
  try {
    return execFileSync('tmux', [...server, ...args], {
      env: childEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (e) {
    const stderr = (e as { stderr?: unknown }).stderr
    throw new TmuxCommandFailed(args, typeof stderr === 'string' ? stderr : '', e)
  }
}

/** tmux reads an argument ending in `;` as the end of a command; `\\;` keeps the `;`. */
const literal = (text: string): string => (text.endsWith(';') ? `${text.slice(0, -1)}\\;` : text)

const listen = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      resolve(typeof address === 'object' && address !== null ? address.port : 0)
    })
  })

/** A tmux pane as a {@link PaneBackend}, spawned or attached as the node says. */
export class TmuxPane implements PaneBackend {
  readonly events = true
  private readonly server: readonly string[]
  private pane: string | undefined
  private session: string | undefined
  private listener: Server | undefined
  private notifier: Server | undefined
  private connection: Socket | undefined
  private closing = false
  private closed: Promise<void> | undefined
  private watcher: ReturnType<typeof setTimeout> | undefined
  /** The pid of a spawned pane's program: the leader of the session its processes run in. */
  private panePid: number | undefined
  /** Marks the environment of every process a spawned pane starts (see processTree.ts). */
  private readonly processMark = newMark()

  constructor(
    private readonly node: TmuxNode,
    /** Milliseconds between `SIGTERM` and `SIGKILL` when a spawned pane's processes are ended. */
    private readonly killGraceMs = 2000,
  ) {
    this.server = serverArgs(node)
  }

  /** The pane's id (`%3`), once open. */
  get paneId(): string | undefined {
    return this.pane
  }

  /** The session spawned for the node, if it spawned one. */
  get sessionName(): string | undefined {
    return this.session
  }

  private tmux(...args: string[]): Promise<string> {
    return runTmux(this.server, args)
  }

  private target(): string {
    if (this.pane === undefined) {
      throw new TerminalNotStarted(this.node.id, `tmux node "${this.node.id}" has no pane yet`)
    }
    return this.pane
  }

  async open(onOutput: () => void, onGone: (exit?: PaneExit) => void): Promise<void> {
    let told = false
    // Until open is done, a pane that dies is open's to report (with its exit status): telling
    // the terminal at once would close the pane under it.
    let opening = true
    let goneWhileOpening: { readonly exit?: PaneExit } | undefined
    const tell = (exit?: PaneExit): void => {
      if (opening) {
        goneWhileOpening = exit === undefined ? {} : { exit }
        return
      }
      if (told || this.closing) return
      told = true
      onGone(exit)
    }
    const n = this.node
    const listener = createServer()
    this.listener = listener
    const port = await listen(listener)
    if (n.paneId !== undefined) {
      const [pane, piped] = (
        await this.tmux('display-message', '-p', '-t', n.paneId, '#{pane_id} #{pane_pipe}')
      )
        .trim()
        .split(' ')
      this.pane = pane
      if (piped === '1') {
        throw new TmuxPaneTaken(n.paneId)
      }
    } else {
      // The pane stays, dead, when its program exits (so its exit status can be read), and its
      // pane-died hook connects to `notifier`: the pipe of a dead pane does not close by itself.
      const notifier = createServer((socket) => {
        socket.destroy()
        // Only a dead pane counts: any local process can connect here.
        void this.exit().then((exit) => {
          if (exit !== undefined) tell(exit)
        })
      })
      this.notifier = notifier
      const notifyPort = await listen(notifier)
      const name = `nerve-${n.id}-${randomUUID().slice(0, 8)}`
      const args = ['new-session', '-d', '-P', '-F', '#{pane_id} #{pane_pid}', '-s', name]
      args.push('-x', String(n.cols ?? 200), '-y', String(n.rows ?? 50))
      if (n.cwd !== undefined) args.push('-c', n.cwd)
      for (const [k, v] of Object.entries(n.env ?? {})) args.push('-e', `${k}=${v}`)
      args.push('-e', `${MARK_VARIABLE}=${this.processMark}`)
      const command =
        n.command === undefined ? [...DEFAULT_COMMAND] : [n.command, ...(n.args ?? [])]
      const hook = `run-shell -b "exec bash -c ': > /dev/tcp/127.0.0.1/${notifyPort}'"`
      // One tmux call: the options are set before the server can see the program exit.
      const [pane, pid] = (
        await this.tmux(
          ...args,
          '--',
          ...command,
          ';',
          'set-option',
          '-w',
          '-t',
          `=${name}:`,
          'remain-on-exit',
          'on',
          ';',
          'set-hook',
          '-p',
          '-t',
          `=${name}:`,
          'pane-died',
          hook,
        )
      )
        .trim()
        .split(' ')
      this.pane = pane
      this.panePid = Number(pid)
      this.session = name
    }
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`tmux pane ${this.target()}: pipe-pane did not connect`))
      }, CONNECT_MS)
      timer.unref()
      listener.once('connection', (socket) => {
        clearTimeout(timer)
        listener.close()
        this.connection = socket
        socket.on('data', onOutput)
        if (this.session !== undefined) {
          socket.on('data', () => {
            this.watch(tell, WATCH_TRIES)
          })
        }
        socket.on('error', () => undefined)
        socket.on('close', () => {
          if (!this.closing) void this.exit().then(tell)
        })
        resolve()
      })
    })
    connected.catch(() => undefined) // awaited below, unless pipe-pane fails first
    // -o: never replace a pipe someone else opened on an attached pane (then the connect times out).
    try {
      await this.tmux(
        'pipe-pane',
        ...(this.session === undefined ? ['-o'] : []),
        '-t',
        this.target(),
        `exec bash -c 'exec cat > /dev/tcp/127.0.0.1/${port}'`,
      )
    } catch (e) {
      const exit = await this.reaped()
      if (exit !== undefined) throw new TerminalExited(n.id, exit.exitCode, exit.signal, '')
      throw e
    }
    await connected
    opening = false
    if (goneWhileOpening !== undefined) tell(goneWhileOpening.exit)
  }

  /**
   * After output, checks once the pane is quiet whether its program exited:
   * tmux 3.3a sometimes reaps a pane's program (and runs pane-died) only when
   * another of its children exits, so a dead pane gets a `run-shell true`.
   */
  private watch(tell: (exit?: PaneExit) => void, tries: number): void {
    clearTimeout(this.watcher)
    this.watcher = setTimeout(() => {
      void (async () => {
        const dead = await this.tmux('display-message', '-p', '-t', this.target(), '#{pane_dead}')
        if (dead.trim() !== '1' || this.closing) return
        await this.tmux('run-shell', '-b', 'true')
        const exit = await this.exit()
        if (exit !== undefined && (exit.exitCode !== null || exit.signal !== undefined)) tell(exit)
        else if (tries > 1) this.watch(tell, tries - 1)
        else tell(exit)
      })().catch(() => undefined)
    }, WATCH_MS)
    this.watcher.unref()
  }

  /**
   * How the program of a dead pane ended, once tmux has reaped it: a dead
   * pane may show no status yet (see `watch`), so it is nudged and asked
   * again, a bounded number of times. `undefined` for a pane still alive.
   */
  private async reaped(): Promise<PaneExit | undefined> {
    for (let tries = WATCH_TRIES; ; tries--) {
      const exit = await this.exit()
      if (exit === undefined || exit.exitCode !== null || exit.signal !== undefined || tries <= 1)
        return exit
      await this.tmux('run-shell', '-b', 'true').catch(() => '')
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS / 4))
    }
  }

  /** How the pane's program ended, if the pane is still there, dead (kept by `remain-on-exit`). */
  private async exit(): Promise<PaneExit | undefined> {
    if (this.pane === undefined) return undefined
    const fields = '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}'
    const out = await this.tmux('display-message', '-p', '-t', this.pane, fields).catch(() => '')
    const [dead, status, signal] = out.trim().split(':')
    if (dead !== '1') return undefined
    const number = signal === undefined || signal === '' ? undefined : Number(signal)
    const name = Object.entries(constants.signals).find(([, v]) => v === number)?.[0]
    return {
      exitCode: status === undefined || status === '' ? null : Number(status),
      signal: name ?? (number === undefined ? undefined : String(number)),
    }
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true
      clearTimeout(this.watcher)
      this.listener?.close()
      this.notifier?.close()
      try {
        if (this.session !== undefined) {
          // Found before the session goes: a job may leave it when its terminal closes.
          const scope = { session: this.panePid, root: this.panePid, mark: this.processMark }
          const known = processesOf(scope)
          await this.tmux('kill-session', '-t', `=${this.session}`).catch(() => undefined)
          await endProcesses(scope, { graceMs: this.killGraceMs, known })
        } else if (this.pane !== undefined && this.connection !== undefined) {
          await this.tmux('pipe-pane', '-t', this.pane).catch(() => undefined)
        }
      } finally {
        this.connection?.destroy()
      }
    })()
    return this.closed
  }

  private parseMark(out: string): number {
    const [history, cursor] = out.trim().split(' ').map(Number)
    return (history ?? 0) + (cursor ?? 0)
  }

  async mark(): Promise<number> {
    return this.parseMark(
      await this.tmux('display-message', '-p', '-t', this.target(), '#{history_size} #{cursor_y}'),
    )
  }

  markSync(): number {
    return this.parseMark(
      runTmuxSync(this.server, [
        'display-message',
        '-p',
        '-t',
        this.target(),
        '#{history_size} #{cursor_y}',
      ]),
    )
  }

  private captureArgs(from: number | undefined, history: number): string[] {
    const start = from === undefined || from - history < -history ? '-' : String(from - history)
    return ['capture-pane', '-p', '-J', '-t', this.target(), '-S', start]
  }

  async capture(from: number | undefined): Promise<string> {
    const history = Number(
      await this.tmux('display-message', '-p', '-t', this.target(), '#{history_size}'),
    )
    return this.tmux(...this.captureArgs(from, history))
  }

  captureSync(from: number | undefined): string {
    const history = Number(
      runTmuxSync(this.server, ['display-message', '-p', '-t', this.target(), '#{history_size}']),
    )
    return runTmuxSync(this.server, this.captureArgs(from, history))
  }

  async sendText(text: string): Promise<void> {
    if (text !== '') await this.tmux('send-keys', '-t', this.target(), '-l', '--', literal(text))
  }

  async sendLine(text: string): Promise<void> {
    const t = this.target()
    const typed = text === '' ? [] : ['send-keys', '-t', t, '-l', '--', literal(text), ';']
    await this.tmux(...typed, 'send-keys', '-t', t, 'Enter')
  }

  async sendInterrupt(): Promise<void> {
    await this.tmux('send-keys', '-t', this.target(), 'C-c')
  }

  async alive(): Promise<boolean> {
    if (this.pane === undefined) return false
    try {
      const dead = await this.tmux('display-message', '-p', '-t', this.pane, '#{pane_dead}')
      return dead.trim() !== '1'
    } catch {
      return false
    }
  }
}
