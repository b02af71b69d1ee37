import { statSync } from 'node:fs'
import { taggedError, UsageError } from '../errors.js'
import { forkBash, isBashNode, type BashNode } from '../node/BashNode.js'
import {
  type ForkContext,
  type Interpreter,
  type NodeContext,
  refuseForkPoint,
} from '../node/Interpreter.js'
import type { Node } from '../node/Node.js'
import { systemClock, type Clock } from '../runtime/Clock.js'
import { startBash, type BashChunk, type BashProcess, type BashResult } from './bashProcess.js'
import { chunkStream } from './terminal/chunkStream.js'

export type { BashChunk, BashResult } from './bashProcess.js'

/** The output cap of a node without `maxOutputBytes`: 10 MiB per stream. */
const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024

const lastLine = (text: string): string => {
  const lines = text.trimEnd().split('\n')
  const line = lines[lines.length - 1] ?? ''
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

const howItEnded = (r: BashResult, timeoutMs: number | undefined): string => {
  if (r.timedOut) return `timed out after ${String(timeoutMs)} ms`
  if (r.interrupted) return 'was interrupted'
  if (r.exitCode === null) return `was killed by ${String(r.signal)}`
  return `exited with code ${r.exitCode}`
}

/**
 * A bash command ended other than with exit code 0 (a non-zero code, a
 * signal, an interrupt or a timeout) on a node without `allowFailure`.
 * `result` has everything the command printed.
 *
 * @category errors
 */
export class BashFailed extends taggedError('BashFailed', 'failed')<{
  readonly nodeId: string
  readonly command: string
  readonly result: BashResult
}> {
  constructor(nodeId: string, command: string, result: BashResult, timeoutMs?: number) {
    const stderr = lastLine(result.stderr)
    super(
      `bash node "${nodeId}": the command ${howItEnded(result, timeoutMs)}${stderr === '' ? '' : `: ${stderr}`}`,
      { nodeId, command, result },
    )
  }
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * bash could not be started at all, e.g. its working directory does not
 * exist; `cause` is the error of `child_process.spawn`.
 *
 * @category errors
 */
export class BashSpawnFailed extends taggedError('BashSpawnFailed', 'failed')<{
  readonly nodeId: string
  readonly cwd: string | undefined
}> {
  constructor(nodeId: string, cwd: string | undefined, cause: unknown) {
    // Node says `spawn bash ENOENT` for a working directory that is not there, as for no bash.
    const why =
      cwd !== undefined && !isDirectory(cwd)
        ? 'the working directory does not exist (or is not a directory)'
        : cause instanceof Error
          ? cause.message
          : String(cause)
    super(
      `bash node "${nodeId}": could not start bash${cwd === undefined ? '' : ` in ${cwd}`}: ${why}`,
      { nodeId, cwd },
      { cause },
    )
  }
}

/**
 * Options of {@link bashInterpreterWith}.
 *
 * @category interpreters
 */
export interface BashInterpreterOptions {
  /** Milliseconds between `SIGINT`/`SIGTERM` and `SIGKILL` for a group that does not end. Default: 2000. */
  readonly killGraceMs?: number
  /** Where `fork` reads the time it stamps and `onRun` its durations (`now()` in epoch milliseconds). Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
  /** Told of each command that was started, once it has ended; see {@link BashRunHook}. */
  readonly onRun?: BashRunHook
}

/**
 * One bash command, as {@link BashRunHook} is told of it: the `command`, and
 * its `result` (whatever its exit code; also when the step then fails with
 * {@link BashFailed}) or, when bash could not start, the `error`; and the
 * `durationMs` from launch to end.
 *
 * @category interpreters
 */
export type BashRun = {
  readonly command: string
  readonly durationMs: number
} & ({ readonly result: BashResult } | { readonly error: unknown })

/**
 * Called by the `bash` interpreter (`bashInterpreterWith({ onRun })`) after
 * each command it started has ended, before the step's result settles;
 * `bashHistory` builds one that records runs in the node's history. A hook
 * that throws or rejects never fails the run.
 *
 * @category interpreters
 */
export type BashRunHook = (node: BashNode, run: BashRun) => void | Promise<void>

const commandOf = (node: BashNode, input: unknown): string => {
  if (node.command !== undefined) return node.command
  if (typeof input === 'string' && input.trim() !== '') return input
  throw new UsageError(
    'bashInterpreter',
    `node "${node.id}" has no command, and its step's input is not a command string (got ${
      input === null ? 'null' : typeof input
    })`,
  )
}

const requireBash = (node: Node): BashNode => {
  if (!isBashNode(node)) throw new TypeError(`node "${node.id}" is not a bash node`)
  return node
}

/**
 * The `bash` interpreter with the given options; {@link bashInterpreter} is
 * the one with the defaults.
 *
 * @category interpreters
 */
export const bashInterpreterWith = (
  options: BashInterpreterOptions = {},
): Interpreter<BashNode> => {
  const killGraceMs = options.killGraceMs ?? 2000
  if (!Number.isFinite(killGraceMs) || killGraceMs < 0) {
    throw new UsageError('bashInterpreterWith', `killGraceMs must be ≥ 0, got ${killGraceMs}`)
  }
  const clock = options.clock ?? systemClock
  const onRun = options.onRun

  /** `result`, settling after `onRun` has been told how it ended. */
  const observed = (
    node: BashNode,
    command: string,
    start: number,
    result: Promise<BashResult>,
  ): Promise<BashResult> => {
    if (onRun === undefined) return result
    const tell = async (outcome: { result: BashResult } | { error: unknown }): Promise<void> => {
      try {
        await onRun(node, { command, durationMs: clock.now() - start, ...outcome })
      } catch {
        // a failing hook never fails the run
      }
    }
    return result.then(
      async (r) => {
        await tell({ result: r })
        return r
      },
      async (error: unknown) => {
        await tell({ error })
        throw error
      },
    )
  }

  const launch = (
    node: BashNode,
    command: string,
    signal: AbortSignal,
    onChunk: ((chunk: BashChunk) => void) | undefined,
  ): BashProcess => {
    signal.throwIfAborted()
    const env: Record<string, string | undefined> = { ...process.env, ...node.env }
    // Without SHLVL, `bash -c` may read ~/.bashrc (see MEASUREMENTS.md); --norc and a closed stdin also prevent it.
    env.SHLVL ??= '1'
    const start = clock.now()
    const proc = startBash({
      command,
      cwd: node.cwd,
      env,
      timeoutMs: node.timeoutMs,
      maxOutputBytes: node.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      killGraceMs,
      signal,
      onChunk,
    })
    return {
      ...proc,
      result: observed(
        node,
        command,
        start,
        proc.result.catch((e: unknown) => {
          throw new BashSpawnFailed(node.id, node.cwd, e)
        }),
      ),
    }
  }

  const finish = (node: BashNode, command: string, result: BashResult): BashResult => {
    if (result.exitCode === 0 || node.allowFailure === true) return result
    throw new BashFailed(node.id, command, result, node.timeoutMs)
  }

  const stream = (node: BashNode, ctx: NodeContext): AsyncGenerator<BashChunk, BashResult> => {
    const command = commandOf(node, ctx.input)
    let proc: ReturnType<typeof launch> | undefined
    return chunkStream<BashResult, BashChunk>({
      run: (onChunk) => {
        proc = launch(node, command, ctx.signal, onChunk)
        return proc.result.then((result) => finish(node, command, result))
      },
      pause: () => proc?.pause(),
      resume: () => proc?.resume(),
      size: (chunk) => chunk.data.length,
      // The reader left early: end the command before the iteration closes.
      leave: async () => {
        proc?.stop('SIGTERM')
        proc?.resume()
        await proc?.result.catch(() => undefined)
      },
    })
  }

  return Object.freeze({
    kind: 'bash' as const,
    async execute(node: BashNode, ctx: NodeContext): Promise<BashResult> {
      const n = requireBash(node)
      const command = commandOf(n, ctx.input)
      return finish(n, command, await launch(n, command, ctx.signal, undefined).result)
    },
    executeStream(node: BashNode, ctx: NodeContext): AsyncGenerator<BashChunk, BashResult> {
      return stream(requireBash(node), ctx)
    },
    fork(node: BashNode, id: string, ctx?: ForkContext): Promise<BashNode> {
      refuseForkPoint('bashInterpreter', node, ctx)
      const time = ctx?.time ?? new Date(clock.now()).toISOString()
      return Promise.resolve(forkBash(id, time)(requireBash(node)))
    },
  })
}

/**
 * Runs bash nodes: `bash --norc --noprofile -c command` through
 * `child_process` (no terminal), stdin closed, in a process group of its own.
 * The command is the node's `command`, or else the step's input (a string).
 * The result is a {@link BashResult}; an exit other than 0 rejects with
 * {@link BashFailed} (carrying the result) unless the node has
 * `allowFailure`. The step's signal interrupts: the whole group gets
 * `SIGINT`; the node's `timeoutMs` sends `SIGTERM`; both escalate to
 * `SIGKILL` after 2 s. `executeStream` yields {@link BashChunk}s as the
 * command prints them (in order within each stream), so a graph step's
 * output becomes `step_chunk` events. `fork` copies the configuration under
 * a new id with `{ forked_from, fork_time }` metadata.
 *
 * @category interpreters
 * @example
 * import { bash } from 'nerve-agents'
 * import { bashInterpreter } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const greet = bash('greet', { command: 'echo "hi $WHO"; echo oops >&2', env: { WHO: 'you' } })
 * const ctx = { input: undefined, signal: new AbortController().signal } as never
 * const r = await bashInterpreter.execute!(greet, ctx) as { stdout: string; stderr: string; exitCode: number }
 * assert.deepStrictEqual([r.stdout, r.stderr, r.exitCode], ['hi you\n', 'oops\n', 0])
 */
export const bashInterpreter: Interpreter<BashNode> = bashInterpreterWith()
