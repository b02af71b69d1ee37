/**
 * `npm run demo [-- [--live] [out-dir]]`: the main job, on the built-in
 * defaults (no API key; `--live` lets the agents part call the model your
 * environment names).
 * Builds a conversation, forks it into two branches that share history,
 * records a parallel tool fan-out and merge, prints the text rendering, and
 * writes an HTML view and a nano-agent JSON file. Then runs a small graph with
 * parallel steps, a retry and a nested graph, streaming its events, and prints
 * its trace; and a graph that drives a real shell through a PTY node,
 * streaming its output. Then agents in a session, and a live agent network
 * (planner, coder, verifier) on a temporary git repository.
 */
import { agentsDemo } from './demoAgents.js'
import { networkDemo } from './demoNetwork.js'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import * as E from 'fp-ts/lib/Either.js'
import {
  addStep,
  ancestors,
  assistant,
  defaultInterpreters,
  empty,
  fn,
  graph,
  lowestCommonAncestor,
  messages,
  providerFromEnv,
  pty,
  retry,
  run,
  stop,
  system,
  taggedError,
  toolResults,
  tools,
  usage,
  user,
} from './index.js'
import {
  interpreters,
  parseNano,
  renderHtml,
  renderText,
  stringifyConversation,
  stringifyNano,
} from './core.js'
import { ptyInterpreter, stripAnsi } from './interpreters/index.js'
import { explain } from './runtime/index.js'

const USAGE = 'usage: npm run demo -- [--live] [out-dir]'

/** A step of the demo that did not go as planned (or a failure it stages on purpose). */
class DemoFailed extends taggedError('DemoFailed', 'failed') {}
const args = process.argv.slice(2)
const live = args.includes('--live')
const rest = args.filter((a) => a !== '--live')
if (rest.length > 1 || rest.some((a) => a.startsWith('-'))) {
  console.error(`demo: unknown arguments ${rest.join(' ')}\n${USAGE}`)
  process.exit(2)
}
if (live && providerFromEnv() === undefined) {
  console.error(
    'demo: --live needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENAI_BASE_URL',
  )
  process.exit(2)
}
const out = resolve(rest[0] ?? 'out/demo')
const schema = (field: string) => ({
  type: 'object',
  properties: { [field]: { type: 'string' } },
  required: [field],
})

// 1. A conversation: system prompt, tools, a question.
const asked = pipe(
  empty,
  system('You are a careful release assistant. Use tools to check facts.'),
  tools([
    {
      name: 'read_file',
      description: 'Read a file of the repository',
      input_schema: schema('path'),
    },
    {
      name: 'run_tests',
      description: 'Run the test suite of a package',
      input_schema: schema('package'),
    },
  ]),
  user('Is the parser package ready to release?'),
)

// 2. The model asks for three tools at once; they finish in any order and are
//    merged into one message of results in call order.
const checked = pipe(
  asked,
  assistant([
    {
      type: 'thinking',
      thinking: 'Check the changelog, the version and the tests.',
      signature: 'sig-1',
    },
    { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'parser/CHANGELOG.md' } },
    { type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'parser/package.json' } },
    { type: 'tool_use', id: 'call_3', name: 'run_tests', input: { package: 'parser' } },
  ]),
  toolResults([
    { tool_use_id: 'call_3', content: '212 passed, 0 failed' },
    { tool_use_id: 'call_1', content: '## 2.1.0\n- faster tokenizer\n- fix: unicode escapes' },
    { tool_use_id: 'call_2', content: '{ "name": "parser", "version": "2.0.4" }' },
  ]),
  stop('tool_use', { input_tokens: 420, output_tokens: 61 }),
)

// 3. Fork: two answers built on the same checked history. Nothing is copied.
const cautious = pipe(
  checked,
  assistant('Not yet: the changelog says 2.1.0 but package.json still says 2.0.4. Bump it first.'),
  stop('end_turn', { input_tokens: 510, output_tokens: 24 }),
)
const eager = pipe(
  checked,
  assistant('Yes: the tests pass and the changelog is written.'),
  user('Double-check the version field, please.'),
  assistant(
    'You are right: package.json says 2.0.4, the changelog 2.1.0. Bump to 2.1.0 before releasing.',
  ),
  stop('end_turn', { input_tokens: 1130, output_tokens: 58 }),
)

const shared = pipe(lowestCommonAncestor(cautious, eager), (o) =>
  o._tag === 'Some' ? ancestors(o.value).length : 0,
)
console.log(renderText([cautious, eager]))
console.log()
console.log(
  `branches: ${messages(cautious).length} and ${messages(eager).length} messages, sharing ${shared} vertices`,
)
console.log(
  `usage: cautious ${usage(cautious).input_tokens}+${usage(cautious).output_tokens} tokens, eager ${usage(eager).input_tokens}+${usage(eager).output_tokens}`,
)

// 4. Files: an HTML viewer, nano-agent's JSON and Nerve's own JSON.
mkdirSync(out, { recursive: true })
const doc = { heads: [cautious, eager], metadata: { demo: 'release-check' } }
const files = {
  html: join(out, 'conversation.html'),
  nano: join(out, 'conversation.nano.json'),
  nerve: join(out, 'conversation.nerve.json'),
}
writeFileSync(files.html, renderHtml([cautious, eager], { title: 'Nerve demo: release check' }))
const nanoText = stringifyNano({ ...doc, sessionId: 'nerve-demo', createdAt: 0 })
writeFileSync(files.nano, nanoText)
writeFileSync(files.nerve, stringifyConversation(doc))

// 5. The nano-agent file reads back to the same conversation.
const reloaded = parseNano(nanoText)
if (E.isLeft(reloaded)) throw new DemoFailed('the nano-agent file did not load back')
const same = reloaded.right.heads.map((h) => h.id).join() === doc.heads.map((h) => h.id).join()
console.log(`\nwrote ${files.html}`)
console.log(`wrote ${files.nano} (reloads with the same heads: ${same ? 'yes' : 'NO'})`)
console.log(`wrote ${files.nerve}`)

// 6. A graph: three checks in parallel (one flaky, retried), then a nested
//    report graph that reads their results. Events stream as it runs.
let flakyCalls = 0
const check = (id: string, answer: (input: string) => string) =>
  fn(id, async (ctx) => {
    await new Promise((r) => setTimeout(r, 5))
    return answer(String(ctx.input))
  })
const report = pipe(
  graph('report'),
  addStep({
    id: 'verdict',
    node: fn('verdict', (ctx) => {
      const up = ctx.input as Record<string, string>
      return up.version === up.changelog
        ? 'ready'
        : `blocked: version ${up.version} ≠ changelog ${up.changelog}`
    }),
  }),
  addStep({
    id: 'format',
    node: fn('format', (ctx) => `parser → ${String(ctx.upstream.verdict)}`),
    dependsOn: ['verdict'],
  }),
)
const release = pipe(
  graph('release-check', { maxParallel: 3 }),
  addStep({ id: 'changelog', node: check('read-changelog', () => '2.1.0') }),
  addStep({ id: 'version', node: check('read-version', () => '2.0.4') }),
  addStep({
    id: 'tests',
    node: fn('run-tests', () => {
      flakyCalls++
      if (flakyCalls === 1) throw new DemoFailed('flaky: port 8080 in use')
      return '212 passed'
    }),
    onError: retry({ count: 2, delayMs: 20, backoff: 2 }),
  }),
  addStep({
    id: 'report',
    node: report,
    dependsOn: ['changelog', 'version', 'tests'],
    inputFn: (up) => up,
  }),
)
console.log('\nrunning graph "release-check"')
const { results, trace } = await run(release, {
  input: 'parser',
  interpreters: defaultInterpreters,
  onEvent: (e) => {
    if (e.type === 'step_start' || e.type === 'step_complete' || e.type === 'step_error') {
      console.log(`  ${e.type.padEnd(13)} ${e.path.join('/')}`)
    }
  },
})
console.log(`result: ${String((results.report as Record<string, unknown>).format)}\n`)
console.log(explain(trace))

// 7. A real shell in a pseudo-terminal, driven by graph steps; its output
//    streams as step_chunk events and each answer is parsed at the prompt.
const ptys = ptyInterpreter()
const shell = pty('shell', {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
})
const session = pipe(
  graph('shell-session'),
  addStep({ id: 'where', node: shell, input: `cd '${out}' && pwd` }),
  addStep({
    id: 'write',
    node: shell,
    input: 'printf "alpha\\nbeta\\n" > notes.txt && wc -l notes.txt',
    dependsOn: ['where'],
  }),
  addStep({
    id: 'count',
    node: shell,
    input: 'for i in 1 2 3; do echo "tick $i"; done',
    dependsOn: ['write'],
  }),
)
console.log('\nrunning graph "shell-session" on a PTY node (bash)')
const shellRun = await run(session, {
  interpreters: interpreters(...defaultInterpreters.values(), ptys),
  onEvent: (e) => {
    if (e.type !== 'step_chunk') return
    for (const line of stripAnsi(String(e.chunk)).split('\n')) {
      if (line.trim() !== '') console.log(`  ${e.stepId.padEnd(5)} │ ${line.trimEnd()}`)
    }
  },
})
for (const id of ['where', 'write', 'count']) {
  console.log(`${id}: ${(shellRun.results[id] as { text: string }).text.replaceAll('\n', ' | ')}`)
}

// 8. Agents: a developer and a coach (LLM nodes in a session) loop until the
//    coach approves, the developer using real tools in a workspace; then the
//    developer is forked to try two alternatives. Scripted models, unless --live.
const failure = await agentsDemo(out, { live })
if (failure !== undefined) {
  console.error(`demo: ${failure}`)
  process.exitCode = 1
}

// 9. A live agent network: planner → coder ⇄ verifier on a git repository,
//    planning then implementation mode, until the verifier's tests pass.
await networkDemo(out)

// 10. The same engine from a terminal: the `nerve` command (built by `npm ci`).
console.log(`
from a terminal:
  node dist/cli/main.js graph run examples/release-check.json
  node dist/cli/main.js graph run examples/fan-out.json --trace ${out}/fan-out.html
  node dist/cli/main.js graph show examples/fan-out.json --mermaid
  node dist/cli/main.js graph run examples/fan-out.json --record ${out}/fan-out.rec.json && node dist/cli/main.js replay ${out}/fan-out.rec.json
  node dist/cli/main.js network run examples/review.network.json --send 'writer=Write a haiku'
  node dist/cli/main.js repl                 # @node text, :create, :fork, :graph run
  node dist/cli/main.js mcp                  # an MCP server on stdio`)
