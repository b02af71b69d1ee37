/**
 * `nerve replay RECORDING`: the recorded run again, its steps answered from
 * the recording (`graph run --record FILE` writes one with its graph file;
 * `--record` alone, or a run on a daemon with a store, keeps it in the
 * store, where RECORDING is its id), in this process. A graph that differs
 * stops at the first divergence, named with its step; `--from STEP` replays
 * up to that step and runs the rest live with the built-in kinds.
 */
import { existsSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { decodeGraph, showGraphFileError } from '../../graph/index.js'
import { defaultInterpreters } from '../../interpreters/index.js'
import {
  isReplayDivergence,
  replay,
  RecordingCodec,
  sqliteStore,
  type Recording,
  type SqliteStore,
} from '../../store/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'
import { exitCodes } from '../exitCodes.js'
import { daemonFiles } from '../home.js'
import { readJson } from './files.js'

export interface ReplayCommandOptions extends GlobalOptions {
  readonly graph?: string
  readonly from?: string
  readonly store?: string
}

/** The SQLite store recordings are kept in: `path`, else `NERVE_STORE`, else `~/.nerve/nerve.db`. */
export const recordingStore = (path: string | undefined, o: GlobalOptions = {}): SqliteStore =>
  sqliteStore(path ?? (process.env.NERVE_STORE || daemonFiles(o).store))

/** A recording and the graph file it ran: from a file, or by id from the store. */
const recordingOf = async (
  name: string,
  o: ReplayCommandOptions,
): Promise<{ readonly recording: Recording; readonly graph: unknown }> => {
  if (o.store === undefined && existsSync(name)) {
    const json = (await readJson(name)) as { graph?: unknown }
    const decoded = RecordingCodec.decode(json)
    if (E.isLeft(decoded))
      throw new CliError(
        'RecordingInvalid',
        `${name} is not a recording`,
        undefined,
        'invalidInput',
      )
    return { recording: decoded.right, graph: json.graph }
  }
  const store = recordingStore(o.store, o)
  try {
    const stored = store.recording(name)
    if (stored === undefined) {
      throw new CliError(
        'UnknownRecording',
        `no file ${name}, and no recording ${name} in ${store.path}`,
        undefined,
        'notFound',
      )
    }
    return { recording: stored.recording, graph: stored.graph }
  } finally {
    await store.close()
  }
}

export const replayCommand = async (name: string, o: ReplayCommandOptions): Promise<void> => {
  const { recording, graph: recorded } = await recordingOf(name, o)
  const source = o.graph === undefined ? recorded : await readJson(o.graph)
  if (source === undefined) {
    throw new CliError(
      'NoGraph',
      `${name} holds no graph file: name one with --graph`,
      '--graph',
      'invalidInput',
    )
  }
  const graph = decodeGraph(source)
  if (E.isLeft(graph)) {
    const where = o.graph ?? `${name} (its graph)`
    throw new CliError(
      'GraphFileInvalid',
      `${where}: ${graph.left.map(showGraphFileError).join('; ')}`,
      graph.left[0]?.path,
      'invalidGraph',
    )
  }
  const from = o.from?.split('/')
  const outcome = await replay(recording, graph.right, {
    ...(from !== undefined && { from, live: defaultInterpreters }),
  }).catch((e: unknown) => {
    if (!isReplayDivergence(e)) throw e
    throw new CliError('ReplayDivergence', e.message, e.path.join('/'))
  })
  if (E.isLeft(outcome)) {
    const e = outcome.left
    print(
      o,
      { state: 'failed', error: e instanceof Error ? e.message : JSON.stringify(e) },
      (r) => `replayed: the run failed as recorded: ${r.error}`,
    )
    process.exitCode = exitCodes.failed
    return
  }
  // a step that differed would have thrown ReplayDivergence above: reaching here, all matched
  const matched =
    from === undefined
      ? 'every step matched the recording'
      : `matched the recording up to ${from.join('/')}, then ran live`
  print(o, { state: 'completed', matched: true, results: outcome.right.results }, (x) =>
    [
      `replayed ${recording.graphId}: completed — ${matched}`,
      ...Object.entries(x.results).map(
        ([k, v]) => `  ${k}: ${v === undefined ? 'skipped' : JSON.stringify(v)}`,
      ),
    ].join('\n'),
  )
}
