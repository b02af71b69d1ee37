import * as t from 'io-ts'
import { startBash, type BashResult } from '../bashProcess.js'
import { tool, type Tool, type ToolOutput } from './Tool.js'
import { nonEmptyString } from './inputs.js'
import {
  cutBytes,
  failure,
  truncationNotice,
  workspace,
  type WorkspaceOptions,
} from './workspace.js'

/** Between `SIGINT`/`SIGTERM` and `SIGKILL`: short, since a model waits. */
const KILL_GRACE_MS = 500

/** How many bytes each stream may show when together they have more than `max`. */
const budgets = (out: number, err: number, max: number): readonly [number, number] => {
  if (out + err <= max) return [out, err]
  const half = Math.floor(max / 2)
  if (err <= half) return [max - err, err]
  if (out <= half) return [out, max - out]
  return [max - half, half]
}

/** One stream's section of the answer, cut to `budget` bytes of its `total`. */
const section = (name: string, text: string, total: number, budget: number): string => {
  if (total === 0 && text === '') return ''
  const { kept } = cutBytes(text, budget)
  const shown = Buffer.byteLength(kept)
  const newline = kept === '' || kept.endsWith('\n') ? '' : '\n'
  const notice = shown < total ? `${newline}${truncationNotice(total - shown, total)}\n` : newline
  return `--- ${name} ---\n${kept}${notice}`
}

const howItEnded = (r: BashResult, timeoutMs: number): string => {
  if (r.timedOut) return `timed out after ${timeoutMs} ms; its process group was killed`
  if (r.interrupted) return 'interrupted; its process group was killed'
  if (r.exitCode === null) return `killed by ${String(r.signal)}`
  return `exit code ${r.exitCode}`
}

const Input = t.type({ command: nonEmptyString })

/**
 * A tool that runs a bash command in the workspace root: `bash --norc
 * --noprofile -c command`, stdin closed, in a process group of its own that
 * is killed when the call is aborted or `timeoutMs` passes. The answer is
 * how it ended (exit code), then its stdout and stderr; an exit code other
 * than 0, a timeout or an interrupt make it an error. When the two streams
 * together are longer than `maxOutputBytes`, they share that budget and each
 * cut one says how much was cut. The command is not confined: only its
 * working directory is the root.
 *
 * @category tools
 */
export const bashTool = (options: WorkspaceOptions): Tool => {
  const ws = workspace('bashTool', options)
  return tool(
    {
      name: 'bash',
      description:
        'Runs a bash command in the workspace directory and returns its exit code, stdout and stderr. ' +
        `Stdin is closed; the command is killed after ${ws.timeoutMs} ms. ` +
        'Each call starts a new shell: directory changes and variables do not carry over.',
      input_schema: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The command to run.' } },
        required: ['command'],
      },
    },
    Input,
    async ({ command }, ctx): Promise<ToolOutput> => {
      const root = await ws.root()
      const totals = { stdout: 0, stderr: 0 }
      const env: Record<string, string | undefined> = { ...process.env }
      // Without SHLVL, `bash -c` may read ~/.bashrc (see MEASUREMENTS.md).
      env.SHLVL ??= '1'
      let r: BashResult
      try {
        r = await startBash({
          command,
          cwd: root,
          env,
          timeoutMs: ws.timeoutMs,
          maxOutputBytes: ws.maxOutputBytes,
          killGraceMs: KILL_GRACE_MS,
          signal: ctx.signal,
          onChunk: (chunk) => {
            totals[chunk.stream] += Buffer.byteLength(chunk.data)
          },
        }).result
      } catch (e) {
        return failure(`could not start bash: ${e instanceof Error ? e.message : String(e)}`)
      }
      const [outBudget, errBudget] = budgets(totals.stdout, totals.stderr, ws.maxOutputBytes)
      const body =
        section('stdout', r.stdout, totals.stdout, outBudget) +
        section('stderr', r.stderr, totals.stderr, errBudget)
      const content = `${howItEnded(r, ws.timeoutMs)}${body === '' ? ' (no output)' : `\n${body.slice(0, -1)}`}`
      return Object.freeze(r.exitCode === 0 ? { content } : { content, is_error: true })
    },
    { risk: 'high' },
  )
}
