import { spawn } from 'node:child_process'
import { StringDecoder } from 'node:string_decoder'
import type { Readable } from 'node:stream'
import { processGroup } from './processGroup.js'

/**
 * A piece of a bash command's output, as `executeStream` yields it: text
 * decoded as UTF-8 (a character split between two reads is kept whole).
 *
 * @category bash nodes
 */
export interface BashChunk {
  readonly stream: 'stdout' | 'stderr'
  readonly data: string
}

/**
 * What a bash command did. `exitCode` is `null` when a signal ended it
 * (`signal` names it). `interrupted`: the step's signal was aborted and the
 * process group got `SIGINT`; `timedOut`: the node's `timeoutMs` passed and
 * the group got `SIGTERM`. A truncated stream keeps its first
 * `maxOutputBytes` bytes and has its `…Truncated` flag set.
 *
 * @category bash nodes
 */
export interface BashResult {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number | null
  readonly signal: string | null
  readonly interrupted: boolean
  readonly timedOut: boolean
  readonly durationMs: number
  readonly stdoutTruncated: boolean
  readonly stderrTruncated: boolean
}

/** What {@link startBash} needs. @internal */
export interface BashSpawn {
  readonly command: string
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number | undefined
  readonly maxOutputBytes: number
  /** Between the first signal and `SIGKILL`. */
  readonly killGraceMs: number
  readonly signal: AbortSignal
  /** Called with each piece of output; `undefined` when nobody streams. */
  readonly onChunk: ((chunk: BashChunk) => void) | undefined
}

/** A running command. @internal */
export interface BashProcess {
  /** Settles when the process has exited and its output is closed; rejects only when bash could not start. */
  readonly result: Promise<BashResult>
  /** Stops reading output (back-pressure: the command blocks when the pipe fills). */
  pause(): void
  resume(): void
  /** Ends the process group: `sig`, then `SIGKILL` after the grace period. */
  stop(sig: NodeJS.Signals): void
}

/** An output stream kept up to a byte cap. */
class Capture {
  private readonly parts: Buffer[] = []
  private bytes = 0
  truncated = false
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    const room = this.cap - this.bytes
    if (chunk.length > room) {
      this.truncated = true
      if (room > 0) this.parts.push(chunk.subarray(0, room))
      this.bytes = this.cap
      return
    }
    this.parts.push(chunk)
    this.bytes += chunk.length
  }
  /** The text kept; a character cut by the cap is dropped whole. */
  text(): string {
    return new StringDecoder('utf8').write(Buffer.concat(this.parts))
  }
}

/**
 * Spawns `bash --norc --noprofile -c command` in a process group of its own
 * (`detached`), stdin closed, stdout and stderr piped. Interrupts (the
 * signal) send `SIGINT` and timeouts `SIGTERM` to the whole group, then
 * `SIGKILL` after the grace period; once bash itself has exited after one of
 * them, what is left of the group is killed at once, so no background child
 * keeps the pipes (and the step) open.
 *
 * @internal
 */
export const startBash = (spec: BashSpawn): BashProcess => {
  const started = performance.now()
  const child = spawn('bash', ['--norc', '--noprofile', '-c', spec.command], {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const pid = child.pid
  const stdout = new Capture(spec.maxOutputBytes)
  const stderr = new Capture(spec.maxOutputBytes)
  let interrupted = false
  let timedOut = false
  const group = processGroup(pid, spec.killGraceMs)
  /** Runs until the output closes, so it also ends background children that hold it open. */
  let timeout: NodeJS.Timeout | undefined

  const stop = (sig: NodeJS.Signals): void => {
    group.stop(sig)
  }
  const onAbort = (): void => {
    interrupted = true
    stop('SIGINT')
  }

  const pipe = (from: Readable, name: BashChunk['stream'], capture: Capture): void => {
    const decoder = spec.onChunk === undefined ? undefined : new StringDecoder('utf8')
    from.on('data', (chunk: Buffer) => {
      capture.add(chunk)
      if (decoder !== undefined) {
        const data = decoder.write(chunk)
        if (data !== '') spec.onChunk!({ stream: name, data })
      }
    })
    from.on('end', () => {
      const rest = decoder?.end()
      if (rest !== undefined && rest !== '') spec.onChunk!({ stream: name, data: rest })
    })
  }

  const result = new Promise<BashResult>((resolve, reject) => {
    child.once('error', (e) => {
      // Only a failure to start reaches here (kill errors are handled above).
      group.closed()
      clearTimeout(timeout)
      spec.signal.removeEventListener('abort', onAbort)
      reject(e)
    })
    if (pid === undefined) return
    pipe(child.stdout, 'stdout', stdout)
    pipe(child.stderr, 'stderr', stderr)
    child.once('exit', group.exited)
    child.once('close', (code, sig) => {
      group.closed()
      clearTimeout(timeout)
      spec.signal.removeEventListener('abort', onAbort)
      resolve(
        Object.freeze({
          stdout: stdout.text(),
          stderr: stderr.text(),
          exitCode: code,
          signal: sig,
          interrupted,
          timedOut,
          durationMs: performance.now() - started,
          stdoutTruncated: stdout.truncated,
          stderrTruncated: stderr.truncated,
        }),
      )
    })
    if (spec.timeoutMs !== undefined) {
      timeout = setTimeout(() => {
        timedOut = true
        stop('SIGTERM')
      }, spec.timeoutMs)
    }
    if (spec.signal.aborted) onAbort()
    else spec.signal.addEventListener('abort', onAbort, { once: true })
  })

  return {
    result,
    pause: () => {
      child.stdout.pause()
      child.stderr.pause()
    },
    resume: () => {
      child.stdout.resume()
      child.stderr.resume()
    },
    stop,
  }
}
