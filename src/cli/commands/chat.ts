/**
 * `nerve chat`: a chat in the terminal, over the SDK. Each line is a
 * message, answered as it streams (tool calls shown as they run), or a
 * command: `/retry`, `/edit TEXT`, `/branches`, `/switch N`, `/help`,
 * `/quit`. By default the chat runs on an engine of its own, kept in the
 * SQLite store of Nerve's home (`nerve chat ID` comes back to it); with
 * `--daemon`, on the daemon. Ctrl-C stops an answer (what was said is kept),
 * or leaves at the prompt. Lines may come from a pipe: each runs in turn.
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import type { NerveClient, RemoteChat, RemoteTurn } from '../../client/index.js'
import type { Results } from '../../protocol/index.js'
import {
  CliError,
  connect,
  errorLine,
  fileCategory,
  print,
  type GlobalOptions,
} from '../context.js'
import { daemonFiles } from '../home.js'
import { Stopped } from '../../errors.js'

export interface ChatCommandOptions extends GlobalOptions {
  readonly provider?: string
  readonly system?: string
  readonly model?: string
  readonly graph?: string
  readonly daemon?: boolean
  readonly store?: string | false
  readonly list?: boolean
}

const HELP = `  TEXT          send a message
  /retry        a new answer to the last message (a new branch)
  /edit TEXT    change the last message and answer it (a new branch)
  /branches     the chat's branches; the current one is marked *
  /switch N     go on from branch N (a number from /branches, or a head id)
  /help         this
  /quit         leave (Ctrl-D too)`

const out = (s: string): void => {
  process.stdout.write(s)
}

const short = (u: unknown, max = 80): string => {
  const s = typeof u === 'string' ? u : u === undefined ? '' : JSON.stringify(u)
  const line = s.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Prints a turn as it runs: the answer's text as it streams, thinking dimmed, tool calls and results on lines of their own. */
const show = async (turn: RemoteTurn, tty: boolean): Promise<void> => {
  let atLineStart = true
  // Text streamed since the last tool result: a provider that does not stream gives none.
  let streamed = false
  const line = (s: string): void => {
    out(`${atLineStart ? '' : '\n'}${s}\n`)
    atLineStart = true
  }
  for await (const e of turn.events()) {
    switch (e.type) {
      case 'CHAT_DELTA':
      case 'CHAT_THINKING': {
        const text = String(e.text)
        out(e.type === 'CHAT_THINKING' && tty ? `\x1b[2m${text}\x1b[22m` : text)
        if (text !== '') atLineStart = text.endsWith('\n')
        if (e.type === 'CHAT_DELTA') streamed = true
        break
      }
      case 'CHAT_TOOL_CALL':
        line(`⚙ ${String(e.name)} ${short(e.input)}`)
        break
      case 'CHAT_TOOL_RESULT':
        line(`  ${e.isError === true ? '✗' : '↳'} ${short(e.content)}`)
        streamed = false
        break
      case 'CHAT_COMPLETED':
        if (!streamed && typeof e.text === 'string' && e.text !== '') line(e.text)
        break
      case 'CHAT_CANCELLED':
        line('(stopped)')
        break
      default:
        break
    }
  }
  if (!atLineStart) out('\n')
  try {
    await turn.result()
  } catch (e) {
    line(errorLine(e))
  }
}

const branchLines = (tree: Results['CHAT_BRANCHES']): string =>
  tree.branches
    .map(
      (b, i) =>
        `${b.current ? '*' : ' '} ${String(i + 1).padStart(2)}  ${short(b.asked, 30).padEnd(30)}  → ${short(b.answer, 40)}  (${b.messages} messages${b.forkedAt === undefined ? '' : `, forked after ${b.sharedMessages ?? 0}`})`,
    )
    .join('\n')

/** What a line asks for. */
type Line =
  | { readonly type: 'send'; readonly text: string }
  | { readonly type: 'retry' }
  | { readonly type: 'edit'; readonly text: string }
  | { readonly type: 'branches' }
  | { readonly type: 'switch'; readonly to: string }
  | { readonly type: 'help' }
  | { readonly type: 'quit' }
  | { readonly type: 'none' }
  | { readonly type: 'usage'; readonly message: string }

/** Reads one line of `nerve chat`. */
export const parseChatLine = (raw: string): Line => {
  const text = raw.trim()
  if (text === '') return { type: 'none' }
  if (!text.startsWith('/')) return { type: 'send', text }
  const [cmd = '', ...rest] = text.slice(1).split(/\s+/)
  const arg = text.slice(1 + cmd.length).trim()
  switch (cmd) {
    case 'retry':
      return { type: 'retry' }
    case 'edit':
      return arg === ''
        ? { type: 'usage', message: 'usage: /edit TEXT' }
        : { type: 'edit', text: arg }
    case 'branches':
      return { type: 'branches' }
    case 'switch':
      return rest.length === 1
        ? { type: 'switch', to: rest[0]! }
        : { type: 'usage', message: 'usage: /switch N' }
    case 'help':
      return { type: 'help' }
    case 'quit':
    case 'exit':
      return { type: 'quit' }
    default:
      return { type: 'usage', message: `unknown command /${cmd}: /help lists them` }
  }
}

/** The chat's id when none is given: the time, to the second, and four random characters (two chats started in one second are two). */
const freshId = (): string =>
  `chat-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '')
    .replace('T', '-')}-${randomBytes(3).toString('hex').slice(0, 4)}`

const loop = async (chat: RemoteChat): Promise<void> => {
  const tty = process.stdin.isTTY
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: tty })
  let running: AbortController | undefined
  rl.on('SIGINT', () => {
    if (running !== undefined) running.abort(new Stopped('the chat was closed'))
    else rl.close()
  })
  const prompt = (): void => {
    if (tty) rl.prompt()
  }
  rl.setPrompt('› ')
  prompt()
  const run = async (start: (signal: AbortSignal) => Promise<RemoteTurn>): Promise<void> => {
    running = new AbortController()
    const { signal } = running
    const stop = () => void chat.cancel()
    signal.addEventListener('abort', stop)
    try {
      await show(await start(signal), tty)
    } finally {
      signal.removeEventListener('abort', stop)
      running = undefined
    }
  }
  for await (const raw of rl) {
    const l = parseChatLine(raw)
    try {
      if (l.type === 'quit') break
      else if (l.type === 'send') await run(() => chat.send(l.text))
      else if (l.type === 'retry') {
        const before = (await chat.branches()).branches.length
        await run(() => chat.retry())
        // The same answer is the same vertex: the branch is the one there was.
        if ((await chat.branches()).branches.length === before)
          out('(the same answer as before: no new branch)\n')
      } else if (l.type === 'edit') await run(() => chat.edit(l.text))
      else if (l.type === 'branches') out(`${branchLines(await chat.branches())}\n`)
      else if (l.type === 'switch') {
        const tree = await chat.branches()
        const n = Number(l.to)
        const head = Number.isInteger(n) && n >= 1 ? tree.branches[n - 1]?.head : l.to
        if (head === undefined) out(`no branch ${l.to}: /branches lists them\n`)
        else {
          await chat.switch(head)
          const b = tree.branches.find((x) => x.head === head)
          out(`on branch ${l.to}${b === undefined ? '' : `: ${short(b.answer, 60)}`}\n`)
        }
      } else if (l.type === 'help') out(`${HELP}\n`)
      else if (l.type === 'usage') out(`${l.message}\n`)
    } catch (e) {
      out(`${errorLine(e)}\n`)
    }
    prompt()
  }
  rl.close()
}

/** `nerve chat --list`: the chats the store keeps (the one `--store` names, else the home's). */
const listChats = async (o: ChatCommandOptions): Promise<void> => {
  if (o.store === false) {
    throw new CliError(
      'BadOption',
      '--list reads the store: not with --no-store',
      '--list',
      'invalidInput',
    )
  }
  const { chatLines, chatList } = await import('./store.js')
  const { sqliteStore } = await import('../../store/index.js')
  const path = o.store ?? daemonFiles(o).store
  if (!existsSync(path)) {
    print(o, { path, chats: [] }, () => 'No chats')
    return
  }
  const store = sqliteStore(path)
  try {
    print(o, { path, chats: chatList(store) }, (v) =>
      v.chats.length === 0
        ? 'No chats'
        : chatLines(v.chats)
            .map((l) => l.slice(2))
            .join('\n'),
    )
  } finally {
    await store.close()
  }
}

/** `nerve chat [id]`; `nerve chat --list`. */
export const chatCommand = async (id: string | undefined, o: ChatCommandOptions): Promise<void> => {
  if (o.list === true) return listChats(o)
  const chatId = id ?? freshId()
  const agent = {
    ...(o.provider !== undefined && { provider: o.provider }),
    ...(o.system !== undefined && { system: o.system }),
    ...(o.model !== undefined && { model: o.model }),
  }
  let graph: unknown
  if (o.graph !== undefined) {
    try {
      graph = JSON.parse(await readFile(o.graph, 'utf8')) as unknown
    } catch (e) {
      throw new CliError(
        'GraphFileUnreadable',
        `${o.graph}: ${(e as Error).message}`,
        o.graph,
        e instanceof SyntaxError ? 'invalidInput' : fileCategory(e),
      )
    }
  }
  let client: NerveClient
  let closeStore = (): Promise<void> => Promise.resolve()
  if (o.daemon === true) client = await connect(o)
  else {
    const { standaloneClient } = await import('../../server/index.js')
    const { providerFromEnv } = await import('../../interpreters/index.js')
    // The provider the environment names, streaming: the answer shows as it comes.
    const env = providerFromEnv(process.env, { stream: true })
    const { sqliteStore } = await import('../../store/index.js')
    // The store keeps the chats only: this engine's sessions are its own.
    const chats = o.store === false ? undefined : sqliteStore(o.store ?? daemonFiles(o).store)
    client = await standaloneClient({
      history: false,
      ...(chats !== undefined && { chats }),
      ...(env !== undefined && { providers: { default: env, [env.name]: env } }),
    })
    if (chats !== undefined) closeStore = () => chats.close()
  }
  try {
    const chat = await client.chat(chatId, {
      ...(o.session !== undefined && { sessionId: o.session }),
      ...(graph !== undefined ? { graph } : Object.keys(agent).length > 0 && { agent }),
    })
    const info = await chat.info()
    const last = info.messages.length
    const kept =
      o.store === false && o.daemon !== true
        ? 'not kept (--no-store)'
        : `\`nerve chat ${chatId}\` comes back to it`
    const state =
      last > 0 ? ` (${last} messages)` : id !== undefined ? ' (new: no chat had this id)' : ''
    process.stderr.write(`chat ${chatId}${state}: /help for commands; ${kept}\n`)
    if (info.recovered !== undefined) {
      process.stderr.write(
        '(the last answer was cut off when the program stopped: kept as it was)\n',
      )
    }
    await loop(chat)
  } finally {
    await client.close()
    await closeStore()
  }
}
