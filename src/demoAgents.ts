/**
 * The agents part of the demo: a developer and a coach (LLM nodes in a
 * session) loop until the coach approves; the developer works in a real
 * workspace through the real bash, write and edit tools. Then the developer
 * is forked twice to try two alternatives, and the conversations are written
 * as JSON and HTML. The models are scripted unless the demo is asked for a
 * live one (`--live`), which is the provider the environment names.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Block,
  createSession,
  defaultInterpreters,
  fork,
  llm,
  llmInterpreter,
  type Message,
  type Provider,
  providerFromEnv,
  type Session,
} from './index.js'
import { interpreters, renderHtml, stringifyConversation } from './core.js'
import {
  AgentFailed,
  type ModelRequest,
  ProviderError,
  workspaceTools,
  writeFileAtomic,
} from './interpreters/index.js'
import {
  COACH_VERDICT_FORMAT,
  conversationOf,
  devCoachLoop,
  saveConversation,
} from './session/index.js'
import { scriptedProvider, toolUse } from './testing/index.js'

const textOf = (m: Message | undefined): string =>
  m === undefined
    ? ''
    : typeof m.content === 'string'
      ? m.content
      : m.content.map((b: Block) => (b.type === 'text' ? b.text : '')).join('')

const toolOutputOf = (m: Message | undefined): string | undefined => {
  if (m === undefined || typeof m.content === 'string') return undefined
  const results = m.content.flatMap((b) =>
    b.type === 'tool_result' ? [typeof b.content === 'string' ? b.content : ''] : [],
  )
  return results.length === 0 ? undefined : results.join('\n')
}

const buggy = `for i in $(seq 1 15); do
  if (( i % 3 == 0 )); then echo Fizz
  elif (( i % 5 == 0 )); then echo Buzz
  elif (( i % 15 == 0 )); then echo FizzBuzz
  else echo $i; fi
done
`

/** The lines a bash tool result printed on stdout. */
const stdoutOf = (output: string): readonly string[] => {
  const [, after = ''] = output.split('--- stdout ---\n')
  return after
    .split('\n--- stderr ---')[0]!
    .split('\n')
    .filter((l) => l !== '')
}

/** Writes a script, then (once written) runs it: one tool per turn, so the run sees the file. */
const writeThenRun = (file: string, content: string) => toolUse('write', { path: file, content })

/** The scripted developer: it acts on the last message it was sent. */
const developer = (request: ModelRequest) => {
  const last = request.messages.at(-1)
  const output = toolOutputOf(last)
  if (output !== undefined) {
    const written = /^(?:created|overwrote|edited|replaced)[^"]*"([^"]+)"/i.exec(output)
    if (written !== null) return [toolUse('bash', { command: `bash ${written[1]!} | tail -n 3` })]
    return `I ran it. The last lines it printed:\n${stdoutOf(output).join('\n')}`
  }
  const said = textOf(last)
  if (said.includes('alternative: awk')) {
    return [
      writeThenRun(
        'fizzbuzz-awk.sh',
        `awk 'BEGIN { for (i = 1; i <= 15; i++) print (i % 15 ? (i % 3 ? (i % 5 ? i : "Buzz") : "Fizz") : "FizzBuzz") }'\n`,
      ),
    ]
  }
  if (said.includes('alternative: printf')) {
    return [
      writeThenRun(
        'fizzbuzz-printf.sh',
        `for i in {1..15}; do w=; ((i%3)) || w=Fizz; ((i%5)) || w+=Buzz; printf '%s\\n' "\${w:-$i}"; done\n`,
      ),
    ]
  }
  if (said.startsWith('Not yet')) {
    return [
      toolUse('edit', {
        path: 'fizzbuzz.sh',
        old_string: '  if (( i % 3 == 0 )); then echo Fizz\n',
        new_string:
          '  if (( i % 15 == 0 )); then echo FizzBuzz\n  elif (( i % 3 == 0 )); then echo Fizz\n',
      }),
    ]
  }
  return [writeThenRun('fizzbuzz.sh', buggy)]
}

/** The scripted coach: it approves once the work's last line is FizzBuzz, with a JSON verdict. */
const coach = (request: ModelRequest) => {
  const asked = textOf(request.messages.at(-1)).replace(COACH_VERDICT_FORMAT, '')
  const work = asked.split('The work:')[1] ?? ''
  return JSON.stringify(
    work.trimEnd().endsWith('\nFizzBuzz')
      ? { approved: true, feedback: '15 prints FizzBuzz.' }
      : {
          approved: false,
          feedback: 'Not yet: 15 must print FizzBuzz, not Fizz. Check 15 before 3 and 5.',
        },
  )
}

const ENV_NAMES = 'ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENAI_BASE_URL'

/** One line saying why a live run failed: the provider's own message, no stack. */
const oneLine = (e: unknown): string => {
  const cause = e instanceof AgentFailed || e instanceof ProviderError ? e : undefined
  const text = cause === undefined ? (e instanceof Error ? e.message : String(e)) : cause.message
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * Runs the agents demo, writing into `out`. Answers why it failed, in one
 * line, when a live model call failed (or `--live` found no provider);
 * nothing when it ran.
 */
export const agentsDemo = async (
  out: string,
  options: { readonly live: boolean },
): Promise<string | undefined> => {
  const workspace = join(out, 'workspace')
  rmSync(workspace, { recursive: true, force: true })
  mkdirSync(workspace, { recursive: true })
  const found = providerFromEnv()
  if (options.live && found === undefined) {
    return `--live needs a model: set ${ENV_NAMES}`
  }
  const real = options.live ? found : undefined
  const providers: Record<string, Provider> =
    real === undefined
      ? {
          developer: scriptedProvider([developer], { loop: true, name: 'scripted-developer' }),
          coach: scriptedProvider([coach], { loop: true, name: 'scripted-coach' }),
        }
      : { developer: real, coach: real }
  console.log(
    real !== undefined
      ? `\nagents: live, using the ${real.name} provider`
      : found !== undefined
        ? `\nagents: scripted models (npm run demo -- --live calls the ${found.name} provider your environment names)`
        : `\nagents: scripted models (set ${ENV_NAMES} and run npm run demo -- --live for a live one)`,
  )
  const session = createSession({
    name: 'demo',
    interpreters: interpreters(
      ...defaultInterpreters.values(),
      llmInterpreter({ providers, tools: workspaceTools({ root: workspace, timeoutMs: 10_000 }) }),
    ),
  })
  try {
    await run(session, out)
    return undefined
  } catch (e) {
    if (real === undefined) throw e
    return `the live ${real.name} run failed: ${oneLine(e)}`
  } finally {
    await session.close()
  }
}

/** The agents' work, once the session is set up. */
const run = async (session: Session, out: string): Promise<void> => {
  session.register(
    llm('developer', {
      provider: 'developer',
      system: 'You write small shell scripts in the workspace and run them to check.',
      tools: ['bash', 'write', 'edit', 'read'],
    }),
  )
  session.register(
    llm('coach', {
      provider: 'coach',
      system: 'You review the work and answer with a JSON verdict, as each review asks.',
    }),
  )
  const loop = await devCoachLoop(session, {
    developer: 'developer',
    coach: 'coach',
    task: 'Write fizzbuzz.sh printing FizzBuzz from 1 to 15, and run it.',
    onTurn: (t) => {
      console.log(`  ${t.round} ${t.speaker.padEnd(9)} │ ${t.text.replaceAll('\n', ' ⏎ ')}`)
    },
  })
  console.log(`accepted: ${loop.accepted ? 'yes' : 'no'}, after ${loop.rounds} round(s)`)

  const alternatives = ['awk', 'printf']
  const forks = await Promise.all(
    alternatives.map((a) => fork(session, 'developer', `developer-${a}`)),
  )
  for (const f of forks) {
    const m = f.metadata
    console.log(
      `forked ${f.id} from ${String(m.forked_from)} at ${String(m.fork_message_count)} messages`,
    )
  }
  const answers = await Promise.all(
    alternatives.map((a) => session.execute(`developer-${a}`, `Try an alternative: ${a}.`)),
  )
  answers.forEach((a, i) => {
    console.log(`  developer-${alternatives[i]!} │ ${String(a).replaceAll('\n', ' ⏎ ')}`)
  })

  const heads = ['developer', ...alternatives.map((a) => `developer-${a}`)].map((n) =>
    conversationOf(session, n)!,
  )
  const files = {
    nerve: join(out, 'agents.nerve.json'),
    nano: join(out, 'developer.nano.json'),
    html: join(out, 'agents.html'),
  }
  await writeFileAtomic(files.nerve, stringifyConversation({ heads, metadata: { demo: 'agents' } }))
  await saveConversation(session, 'developer', files.nano, 'nano')
  await writeFileAtomic(
    files.html,
    renderHtml(heads, { title: 'A developer, a coach and two forks' }),
  )
  console.log(`wrote ${files.nerve} (the developer and its two forks, sharing history)`)
  console.log(`wrote ${files.nano} (the developer alone, in nano-agent's format)`)
  console.log(`wrote ${files.html}`)
}
