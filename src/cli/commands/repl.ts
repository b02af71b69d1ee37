/**
 * `nerve repl` (an engine in this process) and `nerve server repl` (the
 * daemon's): a line editor with a history file and tab completion, over
 * the SDK. Each line is understood by `repl/line.ts`; an error is one line
 * and the REPL goes on. Ctrl-C stops what runs (or clears the line),
 * Ctrl-D or `:quit` leaves.
 */
import { printingRequests, requestLine } from './approvals.js'
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { NerveClient } from '../../client/index.js'
import { nerveHome } from '../../session/index.js'
import { connect, errorLine, type GlobalOptions } from '../context.js'
import { runLines } from '../runLines.js'
import { COMMANDS, complete, forkName, parseLine, type ReplCommand } from '../repl/line.js'
import { decoded, graphTree, runSummary } from './graph.js'
import { answerText, chunkText, historyLine } from './node.js'
import { Stopped } from '../../errors.js'

export interface ReplOptions extends GlobalOptions {
  readonly historyFile?: string
}

const HISTORY_SIZE = 1000

/** `--history-file`, then `NERVE_REPL_HISTORY`, then `repl_history` in Nerve's home. */
const historyPath = (o: ReplOptions): string =>
  o.historyFile ?? process.env.NERVE_REPL_HISTORY ?? join(nerveHome(), 'repl_history')

/** The saved lines, newest first (readline's order). */
const loadHistory = async (file: string): Promise<string[]> => {
  try {
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '')
    return lines.slice(-HISTORY_SIZE).reverse()
  } catch {
    return []
  }
}

/** What the REPL keeps between lines. */
interface State {
  readonly client: NerveClient
  readonly session: { readonly sessionId?: string }
  nodes: string[]
  /** The kinds the daemon makes, for completion. */
  kinds: readonly string[]
  graph?: { readonly file: string; readonly json: unknown; readonly text: string }
  /** Aborts what the current line runs. */
  running?: AbortController | undefined
}

const say = (s: string): void => {
  process.stdout.write(s.endsWith('\n') ? s : `${s}\n`)
}

const refresh = async (st: State): Promise<void> => {
  st.nodes = (await st.client.listNodes(st.session.sessionId)).map((n) => n.id)
}

const execute = async (st: State, nodeId: string, input: string): Promise<void> => {
  const running = (st.running = new AbortController())
  let streamed = false
  let last = ''
  for await (const item of st.client
    .node(nodeId, st.session.sessionId)
    .executeStream(input, { signal: running.signal })) {
    if (item.type === 'chunk') {
      streamed = true
      last = chunkText(item.chunk)
      process.stdout.write(last)
    } else if (!streamed) say(answerText(item.answer))
  }
  if (streamed && !last.endsWith('\n')) say('')
}

const runGraph = async (st: State): Promise<void> => {
  if (st.graph === undefined) {
    say('No graph loaded: :graph load FILE')
    return
  }
  const run = await st.client.runGraph(st.graph.json, st.session)
  const running = (st.running = new AbortController())
  running.signal.addEventListener('abort', () => void run.cancel())
  // one line per step that finishes, fails or is skipped (a skip is one line, not a failure and a skip)
  const lines = runLines({ output: false })
  const show = (ls: readonly string[]): void => {
    for (const l of ls) if (!l.startsWith('▸')) say(`  ${l}`)
  }
  for await (const e of run.events()) show(lines.push(e))
  show(lines.flush())
  say(runSummary(await run.result()))
}

const handlers: {
  readonly [T in ReplCommand['type']]: (
    st: State,
    c: Extract<ReplCommand, { type: T }>,
  ) => Promise<void> | void
} = {
  none: () => undefined,
  usage: (_st, c) => {
    say(c.message)
  },
  help: () => {
    say(COMMANDS.map(([u, what]) => `  ${u.padEnd(26)} ${what}`).join('\n'))
  },
  quit: () => undefined,
  // A permission prompt the node meets is printed (another face answers it while this line runs).
  execute: (st, c) =>
    printingRequests(
      st.client,
      (r) => r.nodeId === c.nodeId && r.runId === undefined,
      () => execute(st, c.nodeId, c.input),
    ),
  approvals: async (st) => {
    const pending = await st.client.approvals()
    say(pending.length === 0 ? 'No approvals waiting' : pending.map(requestLine).join('\n'))
  },
  decide: async (st, c) => {
    const note = c.note === undefined ? {} : { note: c.note }
    if (c.how === 'approve') await st.client.approve(c.requestId, note)
    else await st.client.deny(c.requestId, note)
    say(`${c.how === 'approve' ? 'Approved' : 'Denied'} ${c.requestId}`)
  },
  nodes: async (st) => {
    const nodes = await st.client.listNodes(st.session.sessionId)
    say(
      nodes.length === 0
        ? 'No nodes'
        : nodes.map((n) => `  @${n.id}  ${n.type}  ${n.state}`).join('\n'),
    )
  },
  create: async (st, c) => {
    const node = await st.client.createNode(c.nodeId, c.kind, {
      options: c.options,
      ...st.session,
    })
    const info = await node.describe()
    say(`Created ${info.type} node @${info.id} (${info.state})`)
  },
  fork: async (st, c) => {
    await refresh(st)
    if (!st.nodes.includes(c.source)) {
      say(`Node '@${c.source}' not found`)
      return
    }
    const target = c.target ?? forkName(c.source, Date.now(), new Set(st.nodes))
    if (st.nodes.includes(target)) {
      say(`Node '@${target}' already exists`)
      return
    }
    const r = await st.client.call('FORK_NODE', {
      sourceId: c.source,
      targetId: target,
      ...st.session,
    })
    const count = r.messageCount === undefined ? '' : ` (${r.messageCount} messages copied)`
    say(`Forked @${c.source} → @${target}${count}`)
  },
  history: async (st, c) => {
    const records = await st.client.node(c.nodeId, st.session.sessionId).history()
    say(records.length === 0 ? 'No history' : records.map(historyLine).join('\n'))
  },
  interrupt: async (st, c) => {
    const done = await st.client.node(c.nodeId, st.session.sessionId).interrupt()
    say(done ? `Interrupted @${c.nodeId}` : `@${c.nodeId} was idle`)
  },
  'graph-load': async (st, c) => {
    const { json, graph } = await decoded(c.file)
    st.graph = { file: c.file, json, text: `${graph.id}\n${graphTree(graph, '  ')}` }
    say(`Loaded graph '${graph.id}' from ${c.file}`)
  },
  'graph-show': (st) => {
    say(st.graph?.text ?? 'No graph loaded: :graph load FILE')
  },
  'graph-run': runGraph,
}

const handle = (st: State, c: ReplCommand): Promise<void> | void =>
  (handlers[c.type] as (st: State, c: ReplCommand) => Promise<void> | void)(st, c)

/** The kinds the daemon makes, by name: what `:create NAME` completes. */
export const creatableKinds = async (client: NerveClient): Promise<readonly string[]> =>
  (await client.listKinds()).filter((k) => k.creatable).map((k) => k.kind)

const loop = async (client: NerveClient, o: ReplOptions): Promise<void> => {
  const file = historyPath(o)
  const st: State = {
    client,
    session: o.session === undefined ? {} : { sessionId: o.session },
    nodes: [],
    kinds: [],
  }
  await refresh(st).catch(() => undefined)
  st.kinds = await creatableKinds(client).catch(() => [])
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: 'nerve> ',
    history: await loadHistory(file),
    historySize: HISTORY_SIZE,
    completer: (line: string) => complete(line, st.nodes, st.kinds),
  })
  // Iterate from now on: lines (and the end of input) that arrive during the awaits below are
  // kept for the loop, not emitted to nobody — `printf ':nodes\n' | nerve server repl` sees them.
  const lines = rl[Symbol.asyncIterator]()
  rl.on('SIGINT', () => {
    if (st.running !== undefined) st.running.abort(new Stopped('interrupted'))
    else {
      rl.write(null, { ctrl: true, name: 'u' })
      say('')
      rl.prompt()
    }
  })
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  say(
    `Nerve REPL${o.session !== undefined ? ` (session ${o.session})` : ''}: :help lists the commands`,
  )
  rl.prompt()
  for await (const line of { [Symbol.asyncIterator]: () => lines }) {
    if (line.trim() !== '') await appendFile(file, `${line}\n`, { mode: 0o600 })
    const c = parseLine(line)
    if (c.type === 'quit') break
    try {
      await handle(st, c)
    } catch (e) {
      say(errorLine(e))
    } finally {
      st.running = undefined
    }
    await refresh(st).catch(() => undefined)
    rl.prompt()
  }
  rl.close()
}

/** `nerve repl`: an engine of its own, in this process. */
export const repl = async (o: ReplOptions): Promise<void> => {
  const client = await (await import('../../server/index.js')).standaloneClient()
  try {
    await loop(client, o)
  } finally {
    await client.close()
  }
}

/** `nerve server repl`: the daemon's engine. */
export const serverRepl = async (o: ReplOptions): Promise<void> => {
  const client = await connect(o)
  try {
    await loop(client, o)
  } finally {
    await client.close()
  }
}
