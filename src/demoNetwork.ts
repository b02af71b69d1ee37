/**
 * The network part of `npm run demo`, and the end-to-end test's scenario: a
 * planner, a coder and a verifier (mock providers, no API key) on a
 * temporary git repository. The planner writes docs/plan.md in planning
 * mode (its write to src/ is refused); a live edit switches to
 * implementation and hands the plan to the coder; the coder ⇄ verifier loop
 * runs until the verifier's test command passes; Done. Artifacts and the
 * envelope DAG are saved, the DAG also as HTML.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import {
  addNode,
  connect,
  network,
  type Network,
  type NetworkEvent,
  type NetworkOutcome,
  type NetworkRun,
  setWorkflow,
  startNetwork,
} from './index.js'
import {
  ArtifactStore,
  gitProgress,
  renderEnvelopesHtml,
  renderEnvelopesMermaid,
} from './network/index.js'

const PLAN = '# Plan\n\n1. Write `add(a, b)` in src/add.cjs.\n2. `node test.cjs` must pass.\n'
const BUGGY = 'exports.add = (a, b) => a - b\n'
const FIXED = 'exports.add = (a, b) => a + b\n'
const TEST = [
  "const { add } = require('./src/add.cjs')",
  "if (add(2, 3) !== 5) { console.error('add(2, 3) is ' + add(2, 3) + ', not 5'); process.exit(1) }",
  "console.log('ok: add(2, 3) is 5')",
  '',
].join('\n')

const write = (path: string, content: string) => ({
  tools: [{ name: 'write', input: { path, content } }],
})

/** The team: planner (one way) → coder ⇄ verifier, in planning mode. */
export const teamNetwork = (): Network =>
  pipe(
    network('team', { workflow: 'planning', limits: { maxIterations: 8 } }),
    addNode({
      id: 'planner',
      role: 'Planner',
      provider: {
        type: 'mock',
        script: [
          write('docs/plan.md', PLAN),
          write('src/add.cjs', FIXED),
          'Plan written to docs/plan.md; src/ is read-only while planning.',
        ],
      },
    }),
    addNode({
      id: 'coder',
      role: 'Coder',
      assignment: ['src'],
      provider: {
        type: 'mock',
        script: [
          write('src/add.cjs', BUGGY),
          'Implemented add in src/add.cjs.',
          write('src/add.cjs', FIXED),
          'Fixed the sign in add.',
        ],
      },
    }),
    addNode({
      id: 'verifier',
      role: 'Verifier',
      provider: { type: 'command', command: 'node test.cjs' },
      acceptance: { command: 'node test.cjs' },
    }),
    connect('coder', 'verifier'),
  )

/** A git repository with the test the verifier runs. */
export const teamRepository = (root: string): void => {
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'test.cjs'), TEST)
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'demo',
        GIT_AUTHOR_EMAIL: 'demo@example.com',
        GIT_COMMITTER_NAME: 'demo',
        GIT_COMMITTER_EMAIL: 'demo@example.com',
      },
    })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-q', '-m', 'test')
}

export interface TeamRun {
  readonly run: NetworkRun
  readonly outcome: NetworkOutcome
  readonly events: readonly NetworkEvent[]
  readonly artifacts: ArtifactStore
  /** The envelope DAG as HTML and as Mermaid. */
  readonly html: string
  readonly mermaid: string
}

/** Runs the scenario in `root` (made a git repository), saving into `sessionDir`. */
export const runTeam = async (root: string, sessionDir: string): Promise<TeamRun> => {
  teamRepository(root)
  const artifacts = new ArtifactStore(sessionDir)
  const events: NetworkEvent[] = []
  mkdirSync(sessionDir, { recursive: true })
  const run = await startNetwork(teamNetwork(), {
    root,
    artifacts,
    progress: gitProgress(root),
    journal: join(sessionDir, 'network.jsonl'),
    onEvent: (e) => events.push(e),
  })
  run.send('planner', 'Plan an add(a, b) function with a test.')
  await run.idle()
  run.edit(setWorkflow('implementation'), connect('planner', 'coder', { direction: 'one-way' }))
  run.trigger('planner', 'Implementation mode: hand the plan to the coder.')
  await run.idle()
  const outcome = await run.stop()
  const html = renderEnvelopesHtml(outcome.log, { title: 'team: envelope DAG' })
  const mermaid = renderEnvelopesMermaid(outcome.log)
  writeFileSync(join(sessionDir, 'envelopes.html'), html)
  writeFileSync(join(sessionDir, 'envelopes.mmd'), mermaid)
  writeFileSync(join(sessionDir, 'envelopes.json'), JSON.stringify(outcome.log, null, 2))
  return { run, outcome, events, artifacts, html, mermaid }
}

/** The demo's part: runs the scenario under `out` and prints what happened. */
export const networkDemo = async (out: string): Promise<void> => {
  const root = join(out, 'team-repo')
  const sessionDir = join(out, 'team-session')
  rmSync(root, { recursive: true, force: true })
  rmSync(sessionDir, { recursive: true, force: true })
  console.log('\nrunning the network "team": planner → coder ⇄ verifier on a git repository')
  const { outcome, events, artifacts } = await runTeam(root, sessionDir)
  for (const e of events) {
    if (e.type === 'envelope') {
      const m = e.envelope.payload.message.split('\n')[0]
      console.log(
        `  ${e.envelope.kind.padEnd(7)} ${e.envelope.fromNodeId} → ${e.envelope.toNodeId}: ${m}`,
      )
    } else if (e.type === 'refused') console.log(`  refused ${e.tool} ${e.target}: ${e.reason}`)
    else if (e.type === 'patch') console.log(`  live edit: ${e.label}`)
    else if (e.type === 'done') console.log(`  done: ${e.nodeId} (${e.reason})`)
  }
  console.log(
    `status: ${outcome.status}; ${outcome.log.size} envelopes; ${(await artifacts.list()).length} artifacts`,
  )
  console.log(`wrote ${join(sessionDir, 'envelopes.html')}`)
}
