/**
 * Graph runs: the list (newest first), a graph file to run, and the chosen
 * run's graph laid out with each step's state (and retries) as it changes,
 * its timeline on a time axis; a step chosen
 * shows its output (streamed chunks, then the value) or its error; a
 * running run can be cancelled. A run the page started is recorded, so
 * once it ended it can be re-run from a chosen step (`REPLAY_GRAPH`: the
 * steps before it answered from the recording, the rest live); so can a
 * recording's replay. Any run that ended, wherever it was started and
 * recorded or not, can be run again (`EXECUTE_GRAPH` of the graph file and
 * input `GET_RUN` tells), recorded.
 */
import { useEffect, useState } from 'preact/hooks'
import { BOX } from './drawing.js'
import { GraphSvg } from './GraphSvg.js'
import { useLayout } from './layoutClient.js'
import { chosenRun, chosenStep } from './nav.js'
import { attempt } from './problem.js'
import { RunTimeline } from './RunTimeline.js'
import { client, getRun } from './session.js'
import {
  addRun,
  applyTrace,
  inShown,
  runs,
  sessions,
  setRecording,
  shown,
  type RunView,
} from './state.js'
import { ProblemLine } from './ProblemLine.js'

/** A graph file's id and steps, as far as the page reads them to draw it before it starts. */
interface GraphShape {
  readonly id?: unknown
  readonly steps?: readonly { id: string; dependsOn?: readonly string[] }[]
}

/**
 * Starts `graph` (a graph file's value) on the daemon, recorded so that it
 * can be re-run from a step; its steps are drawn before they start.
 */
const start = async (
  graph: unknown,
  options: { readonly input?: unknown; readonly sessionId?: string } = {},
): Promise<void> => {
  const shape = graph as GraphShape
  const { runId } = await client().call('EXECUTE_GRAPH', { graph, ...options, record: true })
  addRun(
    {
      runId,
      sessionId: options.sessionId,
      graphId: typeof shape.id === 'string' ? shape.id : runId,
      state: runs.value.get(runId)?.state ?? 'running',
      startedAt: new Date().toISOString(),
    },
    Array.isArray(shape.steps) ? shape.steps : [],
  )
  chosenRun.value = runId
  chosenStep.value = undefined
}

/** Starts a graph file on the daemon, in the session shown. */
const runFile = async (file: File): Promise<void> => {
  await start(JSON.parse(await file.text()), inShown())
}

/**
 * Runs `run`'s recording again from `stepId` (`REPLAY_GRAPH`): the steps
 * before it answered from the recording, it and the rest live; the new
 * run is drawn with the same steps and chosen.
 */
const rerun = async (run: RunView, recordingId: string, stepId: string): Promise<void> => {
  // In the run's own session.
  const scope = run.sessionId === undefined ? {} : { sessionId: run.sessionId }
  const { runId } = await client().call('REPLAY_GRAPH', { recordingId, from: stepId, ...scope })
  addRun(
    {
      runId,
      graphId: run.graphId,
      state: 'running',
      startedAt: new Date().toISOString(),
      ...scope,
    },
    [...run.steps.keys()].map((id) => ({
      id,
      dependsOn: run.edges.filter(([, to]) => to === id).map(([from]) => from),
    })),
  )
  chosenRun.value = runId
  chosenStep.value = undefined
}

const show = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v, null, 2)

const StepDetail = ({ run, again }: { run: RunView; again: boolean }) => {
  const step = chosenStep.value === undefined ? undefined : run.steps.get(chosenStep.value)
  if (step === undefined) return <p class="hint">Choose a step to see its output.</p>
  return (
    <section class="step" aria-label={`Step ${step.id}`} data-detail={step.id}>
      <h3>
        {step.id} <span class={`state ${step.state}`}>{step.state}</span>{' '}
        {run.recordingId !== undefined && step.state !== 'pending' && (
          <button
            type="button"
            onClick={() => {
              const recordingId = run.recordingId!
              attempt(() => rerun(run, recordingId, step.id))
            }}
          >
            Re-run from here
          </button>
        )}
      </h3>
      {run.recordingId === undefined && run.state !== 'running' && (
        <p class="hint">
          {again
            ? 'Not recorded (started elsewhere): “Run again” runs it anew, recorded, and that run can be re-run from a step.'
            : 'Not recorded (started elsewhere), and the daemon does not say what graph it ran: it cannot be run again from here.'}
        </p>
      )}
      <p>
        node {step.nodeId ?? '?'} · attempt {step.attempts}
        {step.retries > 0 && ` (retried ${step.retries}×)`}
        {step.respawns > 0 && ` · its node respawned ${step.respawns}×`}
        {step.durationMs !== undefined && ` · ${Math.round(step.durationMs)} ms`}
      </p>
      {step.error !== undefined && (
        <pre class="error">
          {step.error.tag}: {step.error.message}
        </pre>
      )}
      {step.chunks !== '' && <pre class="chunks">{step.chunks}</pre>}
      {step.output !== undefined && <pre class="output">{show(step.output)}</pre>}
    </section>
  )
}

const RunGraph = ({ run }: { run: RunView }) => {
  const ids = [...run.steps.keys()]
  const d = useLayout(`run:${run.runId}`, ids, run.edges, { when: 'changed' }).drawing
  return (
    <GraphSvg label={`Graph of run ${run.runId}`} drawing={d} arrow="arrow">
      {d.lines.map((l) => (
        <polyline
          key={`${l.from}>${l.to}`}
          class="edge"
          points={l.points}
          marker-end="url(#arrow)"
        />
      ))}
      {d.boxes.map((b) => {
        const s = run.steps.get(b.id)!
        return (
          <g
            key={b.id}
            class={`box ${s.state}${chosenStep.value === b.id ? ' chosen' : ''}`}
            data-step={b.id}
            data-state={s.state}
            transform={`translate(${b.x - BOX.width / 2},${b.y - BOX.height / 2})`}
            tabIndex={0}
            role="button"
            onClick={() => {
              chosenStep.value = b.id
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') chosenStep.value = b.id
            }}
          >
            <rect width={BOX.width} height={BOX.height} rx="6" />
            <text x="10" y="17">
              {b.id}
            </text>
            <text x="10" y="32" class="sub">
              {s.state}
              {s.durationMs !== undefined && ` · ${Math.round(s.durationMs)} ms`}
              {s.retries > 0 && ` · ↻${s.retries}`}
              {s.respawns > 0 && ` · respawned ${s.respawns}×`}
            </text>
          </g>
        )
      })}
    </GraphSvg>
  )
}

/** What a run ran (its graph file, input and session), to run it again. */
interface Source {
  readonly graph: unknown
  readonly options: { readonly input?: unknown; readonly sessionId: string }
}

const RunPanel = ({ run }: { run: RunView }) => {
  const [source, setSource] = useState<Source | undefined>(undefined)
  // A run that ended: its trace has every step, its edges and outputs.
  useEffect(() => {
    if (run.state === 'running') return
    attempt(async () => {
      const info = await getRun(run.runId)
      if (info.trace !== undefined) applyTrace(info.trace)
      // Whoever started it, and recorded or not, the daemon tells what it ran.
      if (info.graph !== undefined)
        setSource({
          graph: info.graph,
          options: {
            sessionId: info.sessionId,
            ...(info.input !== undefined && { input: info.input }),
          },
        })
      // A recorded run is re-run from its recording; a replay from the one it replays.
      const recordingId =
        info.recordingId ?? info.replayOf ?? (info.recording === undefined ? undefined : info.runId)
      if (recordingId !== undefined) setRecording(run.runId, recordingId)
    })
  }, [run.runId, run.state])
  return (
    <section
      class="run"
      aria-label={`Run ${run.runId}`}
      data-run={run.runId}
      data-state={run.state}
    >
      <h3>
        {run.graphId} <span class={`state ${run.state}`}>{run.state}</span>{' '}
        {run.state === 'running' && (
          <button
            type="button"
            onClick={() => {
              attempt(() => client().call('CANCEL_GRAPH', { runId: run.runId }))
            }}
          >
            Cancel run
          </button>
        )}
        {source !== undefined && (
          <button
            type="button"
            onClick={() => {
              attempt(() => start(source.graph, source.options))
            }}
          >
            Run again
          </button>
        )}
      </h3>
      <RunGraph run={run} />
      <h4>Timeline</h4>
      <RunTimeline run={run} />
      <StepDetail run={run} again={source !== undefined} />
    </section>
  )
}

export const RunsView = () => {
  const list = [...runs.value.values()].reverse()
  const chosen = chosenRun.value === undefined ? list[0] : runs.value.get(chosenRun.value)
  return (
    <section aria-labelledby="runs-title" class="runs">
      <h2 id="runs-title">Graph runs</h2>
      <p class="hint">
        A graph file runs in the session shown ({shown.value ?? 'the default one'}); the list has
        the runs of every session.
      </p>
      <label class="file">
        Run a graph file{' '}
        <input
          type="file"
          accept=".json,application/json"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0]
            e.currentTarget.value = ''
            if (file !== undefined) attempt(() => runFile(file))
          }}
        />
      </label>
      <ProblemLine />
      <div class="split">
        <ul class="runlist" aria-label="Runs">
          {list.map((r) => (
            <li key={r.runId}>
              <button
                type="button"
                aria-pressed={chosen?.runId === r.runId}
                data-runitem={r.runId}
                onClick={() => {
                  chosenRun.value = r.runId
                  chosenStep.value = undefined
                }}
              >
                {r.graphId} <span class={`state ${r.state}`}>{r.state}</span>
                <small>{new Date(r.startedAt).toLocaleTimeString()}</small>
                {sessions.value.size > 1 && r.sessionId !== undefined && (
                  <small class="session">in {r.sessionId}</small>
                )}
              </button>
            </li>
          ))}
          {list.length === 0 && <li class="empty">No runs yet.</li>}
        </ul>
        {chosen !== undefined && <RunPanel key={chosen.runId} run={chosen} />}
      </div>
    </section>
  )
}
