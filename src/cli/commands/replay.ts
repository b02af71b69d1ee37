/**
 * `nerve replay RECORDING`: the recorded run again, its steps answered from
 * the recording (`graph run --record` writes one, with its graph file), in
 * this process. A graph that differs stops at the first divergence, named
 * with its step; `--from STEP` replays up to that step and runs the rest
 * live with the built-in kinds.
 */
import * as E from 'fp-ts/lib/Either.js'
import { decodeGraph, showGraphFileError } from '../../graph/index.js'
import { defaultInterpreters } from '../../interpreters/index.js'
import { isReplayDivergence, replay, RecordingCodec } from '../../store/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'
import { readJson } from './files.js'

export interface ReplayCommandOptions extends GlobalOptions {
  readonly graph?: string
  readonly from?: string
}

export const replayCommand = async (file: string, o: ReplayCommandOptions): Promise<void> => {
  const json = (await readJson(file)) as { graph?: unknown }
  const recording = RecordingCodec.decode(json)
  if (E.isLeft(recording)) throw new CliError('RecordingInvalid', `${file} is not a recording`)
  const source = o.graph === undefined ? json.graph : await readJson(o.graph)
  if (source === undefined) {
    throw new CliError(
      'NoGraph',
      `${file} holds no graph file: name one with --graph`,
      '--graph',
      2,
    )
  }
  const graph = decodeGraph(source)
  if (E.isLeft(graph)) {
    const where = o.graph ?? `${file} (its graph)`
    throw new CliError(
      'GraphFileInvalid',
      `${where}: ${graph.left.map(showGraphFileError).join('; ')}`,
      graph.left[0]?.path,
    )
  }
  const from = o.from?.split('/')
  const outcome = await replay(recording.right, graph.right, {
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
    process.exitCode = 1
    return
  }
  print(o, { state: 'completed', results: outcome.right.results }, (x) =>
    [
      `replayed ${recording.right.graphId}: completed`,
      ...Object.entries(x.results).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    ].join('\n'),
  )
}
