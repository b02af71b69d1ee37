/**
 * `nerve graph validate|show|run|cancel`. `validate` and `show` are pure
 * reads of the file; `run` goes through the engine: the daemon's with
 * `--server`, else one in this process (the same engine, no socket).
 */
import * as E from 'fp-ts/lib/Either.js'
import { NerveClient, type RemoteRun } from '../../client/index.js'
import { pointer } from '../../codec/index.js'
import {
  decodeGraph,
  Graph,
  isGraph,
  showGraphFileError,
  type GraphFileError,
} from '../../graph/index.js'
import type { EngineEvent, RunInfo } from '../../protocol/index.js'
import type { Recording } from '../../store/index.js'
import type { TraceTimes } from '../trace.js'
import { CliError, connect, print, withClient, type GlobalOptions } from '../context.js'
import { exitCodes, runExitCode } from '../exitCodes.js'
import { parseValue } from '../parseValue.js'
import { runErrorLine, runLines } from '../runLines.js'
import { readJson } from './files.js'
import { answeringHere, printingRequests } from './approvals.js'

/** Decodes a graph file strictly; every error is one line with its JSON path. */
export const decoded = async (file: string): Promise<{ json: unknown; graph: Graph }> => {
  const json = await readJson(file)
  const g = decodeGraph(json)
  if (E.isLeft(g)) {
    const lines = g.left.map(showGraphFileError)
    throw new CliError(
      'GraphFileInvalid',
      // the first problem on the one error line (`nerve graph validate` lists them all)
      `${file}${lines[0]!}${lines.length > 1 ? ` (and ${lines.length - 1} more: nerve graph validate ${file})` : ''}\n${lines.map((l) => `  ${l}`).join('\n')}`,
      g.left[0]?.path,
      'invalidGraph',
    )
  }
  return { json, graph: g.right }
}

/**
 * The kinds a graph file may describe in its `nodes` table: the daemon's (`LIST_KINDS`) with `--server`, else those of the
 * engine `graph run` makes in this process.
 */
const fileKinds = async (o: GlobalOptions & { readonly server?: boolean }) => {
  const kinds =
    o.server === true
      ? await withClient(o, (c) => c.listKinds())
      : [...(await import('../../interpreters/index.js')).builtinKinds.values()]
  return kinds.filter((k) => k.describable === true)
}

/** The errors of nodes whose kind no interpreter of `kinds` runs (a nested graph is its own form). */
const unknownKinds = (
  json: unknown,
  kinds: readonly { readonly kind: string }[],
): GraphFileError[] => {
  const words = new Set(kinds.map((k) => k.kind))
  const nodes = (json as { nodes?: Record<string, { kind?: unknown } | null> } | null)?.nodes
  return Object.entries(nodes ?? {}).flatMap(([id, d]) => {
    const kind = d?.kind
    return typeof kind !== 'string' || kind === 'graph' || words.has(kind)
      ? []
      : [
          {
            _tag: 'InvalidValue' as const,
            path: `${pointer(['nodes', id])}/kind`,
            reason: `no interpreter runs "${kind}" nodes (known: ${kinds.map((k) => k.kind).join(', ')})`,
          },
        ]
  })
}

/**
 * `nerve graph validate FILE [--server]`: prints every error with its
 * path, a node of a kind the engine does not run included; exit 2 when
 * there is one.
 */
export const validate = async (
  file: string,
  o: GlobalOptions & { readonly server?: boolean },
): Promise<void> => {
  const json = await readJson(file)
  const g = decodeGraph(json)
  const found = E.isLeft(g) ? g.left : []
  // a kind the decoder already found wrong (a typo of a known one) is told once
  const kinds = unknownKinds(json, await fileKinds(o)).filter(
    (k) => !found.some((e) => e.path === k.path),
  )
  const errors = [...found, ...kinds].map((e) => ({ ...e, message: showGraphFileError(e) }))
  print(o, { file, valid: errors.length === 0, errors }, () =>
    errors.length === 0
      ? `${file}: valid (${E.isRight(g) ? Graph.steps(g.right).length : 0} steps)`
      : errors.map((e) => `${file}${e.message}`).join('\n'),
  )
  if (errors.length > 0) process.exitCode = exitCodes.invalidGraph
}

/** A Mermaid node id for a name. */
export const mermaidId = (s: string): string => s.replace(/[^A-Za-z0-9_]/g, '_')

/** The graph's shape as a Mermaid flowchart, nested graphs as subgraphs. */
export const graphMermaid = (g: Graph): string => {
  const lines = ['flowchart TD']
  const walk = (graph: Graph, prefix: string, indent: string): void => {
    for (const s of Graph.steps(graph)) {
      const id = mermaidId(`${prefix}${s.id}`)
      const node = s.node
      if (isGraph(node)) {
        lines.push(`${indent}subgraph ${id}["${s.id}"]`)
        walk(node, `${prefix}${s.id}/`, `${indent}  `)
        lines.push(`${indent}end`)
      } else {
        lines.push(`${indent}${id}["${s.id}: ${node?.kind ?? `@${s.nodeRef ?? '?'}`}"]`)
      }
      for (const d of s.dependsOn) lines.push(`${indent}${mermaidId(`${prefix}${d}`)} --> ${id}`)
    }
  }
  walk(g, '', '  ')
  return lines.join('\n')
}

/** The graph's steps as an indented tree, each with its node and dependencies. */
export const graphTree = (g: Graph, indent = ''): string =>
  Graph.steps(g)
    .map((s) => {
      const node = s.node
      const what = node !== undefined ? `${node.kind} ${node.id}` : `@${s.nodeRef}`
      const deps = s.dependsOn.length > 0 ? ` ← ${s.dependsOn.join(', ')}` : ''
      const head = `${indent}${s.id}  (${what})${deps}`
      return isGraph(node) ? `${head}\n${graphTree(node, `${indent}  `)}` : head
    })
    .join('\n')

/** `nerve graph show FILE [--mermaid]`. */
export const show = async (
  file: string,
  o: GlobalOptions & { readonly mermaid?: boolean },
): Promise<void> => {
  const { json, graph } = await decoded(file)
  if (o.mermaid === true) print(o, { mermaid: graphMermaid(graph) }, (m) => m.mermaid)
  else print(o, json, () => `${graph.id}\n${graphTree(graph, '  ')}`)
}

/** The last lines of a finished run: its state and each step's outcome. */
export const runSummary = (info: RunInfo): string => {
  const steps = info.trace?.steps ?? []
  const rows = steps.map(
    (s) =>
      `  ${s.status.padEnd(9)} ${s.stepId}${s.durationMs > 0 ? ` (${s.durationMs.toFixed(0)} ms)` : ''}${s.error !== undefined ? `: ${s.error.message.split('\n')[0]}` : ''}`,
  )
  const why = runErrorLine(info)
  return [...(why === undefined ? [] : [why]), `run ${info.runId} ${info.state}`, ...rows].join(
    '\n',
  )
}

/** The conversations of the nodes with one (LLM nodes) a run's steps used (nested steps too), by node id. */
const conversationsOf = async (
  client: NerveClient,
  trace: NonNullable<RunInfo['trace']>,
  sessionId: string | undefined,
): Promise<Record<string, unknown>> => {
  const ids = new Set<string>()
  const talking = new Set(
    (await client.listKinds()).filter((k) => k.capabilities.conversation).map((k) => k.kind),
  )
  const walk = (t: NonNullable<RunInfo['trace']>): void => {
    for (const s of t.steps) {
      if (talking.has(s.kind)) ids.add(s.nodeId)
      if (s.nested !== undefined) walk(s.nested)
    }
  }
  walk(trace)
  const out: Record<string, unknown> = {}
  for (const id of ids) {
    out[id] = (await client.node(id, sessionId).conversation()).conversation
  }
  return out
}

export interface RunCommandOptions extends GlobalOptions {
  readonly server?: boolean
  readonly maxParallel?: string
  readonly input?: string
  readonly trace?: string
  /** A file, or `true`: the store. */
  readonly record?: string | true
}

/**
 * `nerve graph run FILE`: runs the graph and streams its events; Ctrl-C
 * cancels the run (its steps see the AbortSignal) and the command reports
 * what finished. Exit 1 unless the run completed.
 */
export const run = async (file: string, o: RunCommandOptions): Promise<void> => {
  const { json, graph: decodedGraph } = await decoded(file)
  let graph = json as Record<string, unknown>
  if (o.maxParallel !== undefined) {
    const n = Number(o.maxParallel)
    if (!Number.isInteger(n) || n < 1) {
      throw new CliError(
        'BadOption',
        `--max-parallel must be a positive integer, got ${o.maxParallel}`,
        '--max-parallel',
        'invalidInput',
      )
    }
    graph = { ...graph, maxParallel: n }
  }
  const input = o.input !== undefined ? parseValue(o.input) : undefined
  const client =
    o.server === true
      ? await connect(o)
      : await (await import('../../server/index.js')).standaloneClient()
  // A run in this process is answered here (no other command reaches it), one on the daemon from anywhere.
  let live: Live | undefined
  const here = o.server === true ? undefined : answeringHere(client, () => live?.pause() ?? noop)
  try {
    // A request of the run (an approval gate, a held tool call, a CLI agent's prompt) is printed as it comes.
    let runId: string | undefined
    const info = await printingRequests(
      client,
      (r) => r.runId !== undefined && r.runId === runId,
      async (recheck) => {
        const remote = await client.runGraph(graph, {
          ...(input !== undefined && { input }),
          ...(o.session !== undefined && { sessionId: o.session }),
          ...(o.record !== undefined && { record: true }),
          // on the daemon, the steps run here too, unless their node names a cwd
          ...(o.server === true && { cwd: process.cwd() }),
        })
        runId = remote.runId
        // drawn before a request is answered: a question on the terminal holds it still
        live = await liveTree(o, decodedGraph)
        const info = await follow(remote, o, { live, following: recheck }, async (info, times) => {
          if (o.trace !== undefined) {
            const { traceHtml } = await import('../trace.js')
            if (info.trace === undefined) {
              throw new CliError(
                'NoTrace',
                `run ${info.runId} has no trace to write`,
                '--trace',
                'notFound',
              )
            }
            await (
              await import('../../interpreters/index.js')
            ).writeFileAtomic(
              o.trace,
              traceHtml(info.trace, {
                times,
                graph: decodedGraph,
                mermaid: graphMermaid(decodedGraph),
                conversations: await conversationsOf(client, info.trace, o.session),
              }),
            )
            if (o.json !== true) process.stderr.write(`Wrote ${o.trace}\n`)
          }
          if (o.record !== undefined) {
            const where = await keepRecording(o.record, info, json, o)
            if (o.json !== true) process.stderr.write(`Recorded ${where}\n`)
          }
        })
        return info
      },
      here?.answer,
    )
    if (info.state !== 'completed') process.exitCode = runExitCode(info.state)
  } finally {
    here?.close()
    await client.close()
  }
}

const noop = (): void => undefined

type Live = ReturnType<typeof import('../progress.js').progress>

/** The live tree of a run, on a terminal without `--json`. */
const liveTree = async (o: GlobalOptions, graph: Graph | undefined): Promise<Live | undefined> =>
  o.json !== true && process.stdout.isTTY
    ? (await import('../progress.js')).progress(graph, process.stdout)
    : undefined

/**
 * Shows a run as it goes, the way `graph run` does: the live tree on a
 * terminal, a line per step off one, NDJSON with `--json`; then the run's
 * record. Ctrl-C cancels the run. `before` runs once the run ended, before
 * the last lines are printed (the trace and recording are written there).
 * `live` is the tree to draw on; `seen` are events of before it followed
 * (a run it came to late), shown first, and the same events again from the
 * run are not shown twice; `following` is told once the events are read.
 */
const follow = async (
  remote: RemoteRun,
  o: GlobalOptions,
  {
    live,
    seen = [],
    following = noop,
  }: {
    readonly live?: Live | undefined
    readonly seen?: readonly EngineEvent[]
    readonly following?: () => void
  },
  before: (info: RunInfo, times: TraceTimes) => Promise<void> = () => Promise.resolve(),
): Promise<RunInfo> => {
  const cancel = (): void => {
    void remote.cancel().catch(() => undefined)
  }
  process.on('SIGINT', cancel)
  try {
    const recorder = (await import('../trace.js')).recordTimes()
    // off a terminal: NDJSON with --json, else a line per step (see runLines)
    const lines = live === undefined && o.json !== true ? runLines() : undefined
    const say = (ls: readonly string[]): void => {
      if (ls.length > 0) process.stdout.write(`${ls.join('\n')}\n`)
    }
    const shown = new Set(seen.map((e) => JSON.stringify(e)))
    const events = async function* () {
      yield* seen
      following()
      for await (const e of remote.events()) if (!shown.delete(JSON.stringify(e))) yield e
    }
    for await (const e of events()) {
      recorder.update(e)
      if (live !== undefined) live.update(e)
      else if (lines !== undefined) say(lines.push(e))
      else process.stdout.write(`${JSON.stringify(e)}\n`)
    }
    if (lines !== undefined) say(lines.flush())
    const info = await remote.result()
    await before(info, recorder.times)
    if (o.json === true) process.stdout.write(`${JSON.stringify(info)}\n`)
    else if (live !== undefined) live.finish(info)
    else process.stdout.write(`${runSummary(info)}\n`)
    return info
  } finally {
    process.off('SIGINT', cancel)
  }
}

/**
 * `nerve graph runs`: the daemon's graph runs, running ones and the last
 * finished, after those only its store keeps (marked `stored`).
 */
export const runs = (o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const list = await c.listRuns(o.session)
    print(o, { runs: list }, (r) =>
      r.runs.length === 0
        ? 'No runs'
        : r.runs
            .map(
              (x) =>
                `${x.runId}  ${x.graphId.padEnd(16)} ${x.state.padEnd(9)} ${x.startedAt}${x.stored === true ? '  stored' : ''}`,
            )
            .join('\n'),
    )
  })

/**
 * `nerve graph watch RUN`: follows a run on the daemon live, the same
 * tree and lines as a foreground run (NDJSON with `--json`; off a
 * terminal, first a line saying it follows); a run that has ended prints
 * its record at once. Exit 1 unless it completed.
 */
export const watch = (runId: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const remote = await c.watchRun(runId)
    // subscribed first, then asked: a run that ends in between is not waited for forever
    const now = await c.call('GET_RUN', { runId })
    // off a terminal, a line saying it follows: a long step may print nothing for a while
    if (now.state === 'running' && o.json !== true && !process.stdout.isTTY)
      process.stdout.write(`following run ${runId} (${now.graphId})\n`)
    // where it stands first (the steps it ran so far), then what follows
    const graph = now.graph === undefined ? undefined : decodeGraph(now.graph)
    const info =
      now.state === 'running'
        ? await follow(remote, o, {
            live: await liveTree(
              o,
              graph !== undefined && E.isRight(graph) ? graph.right : undefined,
            ),
            ...(now.steps !== undefined && { seen: now.steps }),
          })
        : (print(o, now, runSummary), now)
    if (info.state !== 'completed') process.exitCode = runExitCode(info.state)
  })

/**
 * Keeps a run's recording with the graph file it ran (so `nerve replay`
 * needs nothing else): in `file`, or in the store — the daemon's, which
 * saved it already, else the local one. Answers where.
 */
const keepRecording = async (
  file: string | true,
  info: RunInfo,
  graph: unknown,
  o: GlobalOptions,
): Promise<string> => {
  if (file !== true) {
    await (
      await import('../../interpreters/index.js')
    ).writeFileAtomic(file, `${JSON.stringify({ ...(info.recording as object), graph })}\n`)
    return file
  }
  if (info.recordingId !== undefined) return `as ${info.recordingId} in the daemon's store`
  const { recordingStore } = await import('./replay.js')
  const store = recordingStore(undefined, o)
  try {
    const id = store.saveRecording(info.recording as Recording, { graph })
    return `as ${id} in ${store.path}`
  } finally {
    await store.close()
  }
}

/** `nerve graph cancel RUN_ID` (a run on the daemon). */
export const cancel = (runId: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const cancelled = await c.run(runId).cancel()
    print(o, { runId, cancelled }, () =>
      cancelled ? `Cancelled ${runId}` : `${runId} was not running`,
    )
  })
