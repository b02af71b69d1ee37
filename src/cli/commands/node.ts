/**
 * `nerve node …`: nodes on the daemon, through the SDK. Each command is one
 * or two protocol calls; the daemon answers, the command prints.
 */
import * as E from 'fp-ts/lib/Either.js'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { decodeConversation, formatDecodeError, renderText } from '../../conversation/index.js'
import type { NodeInfo } from '../../node/index.js'
import type { HistoryEntry, KindInfo } from '../../protocol/index.js'
import { CliError, print, withClient, type GlobalOptions } from '../context.js'
import { parseValue } from '../parseValue.js'
import { printingRequests } from './approvals.js'
import { duration } from '../runLines.js'

const sessionOf = (o: GlobalOptions): string | undefined => o.session

const infoLine = (n: NodeInfo): string => `${n.id.padEnd(20)} ${n.type.padEnd(15)} ${n.state}`

export interface CreateOptions extends GlobalOptions {
  readonly kind: string
  readonly options?: string
  readonly set?: readonly string[]
}

/** `--options JSON` merged with each `--set key=value` (the value JSON when it parses). */
export const optionsOf = (o: CreateOptions): Record<string, unknown> => {
  const base = o.options === undefined ? {} : parseValue(o.options)
  if (typeof base !== 'object' || base === null || Array.isArray(base)) {
    throw new CliError('BadOption', '--options must be a JSON object', '--options', 'invalidInput')
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const kv of o.set ?? []) {
    const eq = kv.indexOf('=')
    if (eq <= 0)
      throw new CliError('BadOption', `--set takes key=value, got ${kv}`, '--set', 'invalidInput')
    out[kv.slice(0, eq)] = parseValue(kv.slice(eq + 1))
  }
  return out
}

/** Whether `program` is an executable file on PATH. */
const onPath = (program: string): boolean =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d !== '')
    .some((d) => {
      try {
        accessSync(join(d, program), constants.X_OK)
        return true
      } catch {
        return false
      }
    })

export const create = (name: string, o: CreateOptions): Promise<void> =>
  withClient(o, async (c) => {
    const options = optionsOf(o)
    let node
    try {
      node = await c.createNode(name, o.kind, {
        options,
        ...(o.session !== undefined && { sessionId: o.session }),
      })
    } catch (e) {
      // the daemon's raw `wezterm cli spawn … failed`, said as what it means
      if (o.kind === 'wezterm' && /wezterm/i.test((e as Error).message) && !onPath('wezterm')) {
        const command = (options.command as string | undefined) ?? 'bash'
        throw new CliError(
          'WeztermMissing',
          `a wezterm node runs in a WezTerm pane, and WezTerm is not installed (no wezterm on PATH): ` +
            `run it in tmux or a terminal Nerve owns instead — nerve node create ${name} --kind tmux --set command=${command} (or --kind pty) — or install WezTerm`,
          '--kind',
          'unavailable',
        )
      }
      throw e
    }
    const info = await node.describe()
    print(o, info, (i) => `Created ${i.type} node '${i.id}' (${i.state})`)
  })

/** The option names a JSON Schema of options lists (an `allOf` of objects too). */
const optionNames = (schema: Readonly<Record<string, unknown>>): string[] => [
  ...new Set([
    ...Object.keys(schema.properties ?? {}),
    ...((schema.allOf ?? []) as Readonly<Record<string, unknown>>[]).flatMap(optionNames),
  ]),
]

/**
 * `node kinds`: the kinds the daemon makes, each with its aliases, what it
 * is for and its options; then those only a graph file describes (an
 * `approval` gate), which `node create` does not make.
 */
export const kinds = (o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const all = await c.listKinds()
    const made = all.filter((k) => k.creatable)
    const inFiles = all.filter((k) => !k.creatable && k.describable === true)
    const shown = (ks: readonly KindInfo[]): string[] =>
      ks.map((k) => {
        const options = optionNames(k.options)
        const aliases = k.aliases.length > 0 ? ` (also: ${k.aliases.join(', ')})` : ''
        return [
          `${k.kind}${aliases}`,
          `  ${k.summary}`,
          ...(options.length > 0 ? [`  options: ${options.join(', ')}`] : []),
        ].join('\n')
      })
    print(o, { kinds: made, graphFileKinds: inFiles }, () =>
      [
        ...shown(made),
        ...(inFiles.length > 0
          ? ['', 'In graph files only (node create does not make these):', ...shown(inFiles)]
          : []),
      ].join('\n'),
    )
  })

export const list = (o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const nodes = await c.listNodes(sessionOf(o))
    print(o, { nodes }, ({ nodes: ns }) =>
      ns.length === 0
        ? 'no nodes'
        : [`${'NODE'.padEnd(20)} ${'KIND'.padEnd(15)} STATE`, ...ns.map(infoLine)].join('\n'),
    )
  })

/** An answer as a person reads it: a string, a parsed answer's text, a command's stdout, else JSON. */
export const answerText = (answer: unknown): string => {
  if (typeof answer === 'string') return answer
  const o = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>
  for (const k of ['text', 'stdout']) if (typeof o[k] === 'string') return o[k]
  return JSON.stringify(answer, null, 2)
}

/** An output chunk as a person reads it: text, a command's `{ stream, data }` as its data, else JSON. */
export const chunkText = (chunk: unknown): string => {
  if (typeof chunk === 'string') return chunk
  const data = (chunk as { data?: unknown } | null)?.data
  return typeof data === 'string' ? data : `${JSON.stringify(chunk)}\n`
}

export interface ExecuteCommandOptions extends GlobalOptions {
  readonly parser?: string
  readonly timeout?: string
  readonly stream?: boolean
}

const timeoutOf = (t: string | undefined): number | undefined => {
  if (t === undefined) return undefined
  const n = Number(t)
  if (!(n > 0))
    throw new CliError(
      'BadOption',
      `--timeout takes milliseconds > 0, got ${t}`,
      '--timeout',
      'invalidInput',
    )
  return n
}

/** `node execute NAME INPUT`: waits for the parsed answer; `--stream` prints chunks as they come. */
export const execute = (name: string, input: string, o: ExecuteCommandOptions): Promise<void> =>
  withClient(o, async (c) => {
    const node = c.node(name, sessionOf(o))
    const timeout = timeoutOf(o.timeout)
    const options = {
      ...(o.parser !== undefined && { parser: o.parser }),
      ...(timeout !== undefined && { timeout }),
    }
    // A permission prompt the node meets while it works is printed, with how to answer it.
    const session = sessionOf(o)
    const mine = (r: { nodeId: string; sessionId?: string; runId?: string }) =>
      r.nodeId === name &&
      r.runId === undefined &&
      (session === undefined || r.sessionId === session)
    await printingRequests(c, mine, async () => {
      if (o.stream !== true) {
        const answer = await node.execute(input, options).catch((e: unknown) => {
          // A command that failed still printed what it printed: shown before the error.
          const stdout = (e as { data?: { result?: { stdout?: unknown } } }).data?.result?.stdout
          if (o.json !== true && typeof stdout === 'string' && stdout !== '')
            process.stdout.write(stdout.endsWith('\n') ? stdout : `${stdout}\n`)
          throw e
        })
        print(o, answer, answerText)
        return
      }
      for await (const item of node.executeStream(input, options)) {
        if (o.json === true) process.stdout.write(`${JSON.stringify(item)}\n`)
        else if (item.type === 'chunk') process.stdout.write(chunkText(item.chunk))
      }
      if (o.json !== true) process.stdout.write('\n')
    })
  })

/**
 * `node info NAME`: the node's kind, state, where its terminal runs (a
 * Claude node: `wezterm`, `tmux` — with the command that attaches — or
 * `pty`) and its metadata; `--json`: the daemon's answer as is.
 */
export const info = (name: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const n = await c.node(name, sessionOf(o)).describe()
    print(o, n, (i) => {
      const { backend, attach, ...rest } = i.metadata as Record<string, unknown>
      return [
        `node     ${i.id}`,
        `kind     ${i.type}`,
        `state    ${i.state}`,
        ...(typeof backend === 'string' ? [`runs on  ${backend}`] : []),
        ...(typeof attach === 'string' ? [`attach   ${attach}`] : []),
        ...Object.entries(rest).map(([k, v]) => `${k.padEnd(8)} ${JSON.stringify(v)}`),
      ].join('\n')
    })
  })

export const runCommand = (name: string, command: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const r = await c.node(name, sessionOf(o)).run(command)
    print(o, r, () => `Sent to '${name}'`)
  })

export const read = (name: string, o: GlobalOptions & { readonly tail?: string }): Promise<void> =>
  withClient(o, async (c) => {
    const node = c.node(name, sessionOf(o))
    const lines = o.tail === undefined ? undefined : Number(o.tail)
    if (lines !== undefined && !(Number.isInteger(lines) && lines >= 0)) {
      throw new CliError(
        'BadOption',
        `--tail takes a line count, got ${o.tail}`,
        '--tail',
        'invalidInput',
      )
    }
    const buffer = lines === undefined ? await node.read() : await node.readTail(lines)
    print(o, { nodeId: name, buffer }, (b) => b.buffer)
  })

export const write = (name: string, data: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    await c.node(name, sessionOf(o)).write(data)
    print(o, { written: data.length }, () => '')
  })

export const interrupt = (name: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const interrupted = await c.node(name, sessionOf(o)).interrupt()
    print(o, { interrupted }, () => (interrupted ? `Interrupted '${name}'` : `'${name}' was idle`))
  })

export interface HistoryCommandOptions extends GlobalOptions {
  readonly op?: readonly string[]
  readonly limit?: string
  readonly since?: string
  readonly until?: string
}

/** A text on one line, at most `n` characters (`…` marks a cut). */
const oneLine = (s: string, n = 60): string => {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat
}

/**
 * One history record as a person reads it: seq, the time of day, the op,
 * what was sent and what came back (each on one line, cut), the exit code
 * and the duration in whole milliseconds.
 */
export const historyLine = (h: HistoryEntry): string => {
  const r = h as HistoryEntry & {
    readonly input?: string
    readonly response?: { readonly text?: string }
    readonly stdout?: string
    readonly exitCode?: number | null
    readonly durationMs?: number
  }
  const at = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(h.time)?.[1] ?? h.time
  const answer = r.response?.text ?? r.stdout
  const parts = [
    ...(r.input !== undefined ? [oneLine(r.input)] : []),
    ...(answer !== undefined && answer.trim() !== '' ? [`→ ${oneLine(answer)}`] : []),
    ...(typeof r.exitCode === 'number' && r.exitCode !== 0 ? [`exit ${r.exitCode}`] : []),
    ...(typeof r.durationMs === 'number' ? [`(${duration(r.durationMs)})`] : []),
  ]
  return `${String(h.seq).padStart(4)}  ${at}  ${h.op.padEnd(11)} ${parts.join('  ')}`.trimEnd()
}

export const history = (name: string, o: HistoryCommandOptions): Promise<void> =>
  withClient(o, async (c) => {
    const entries = await c.node(name, sessionOf(o)).history({
      ...(o.op !== undefined && { op: o.op as never }),
      ...(o.limit !== undefined && { limit: Number(o.limit) }),
      ...(o.since !== undefined && { since: o.since }),
      ...(o.until !== undefined && { until: o.until }),
    })
    print(o, { nodeId: name, history: entries }, (r) =>
      r.history.length === 0 ? 'no history' : r.history.map(historyLine).join('\n'),
    )
  })

/**
 * `node conversation NAME`: an LLM node's conversation as a text tree (its
 * messages, branches and merges); `--json`: the daemon's answer, the
 * conversation as a Nerve conversation file.
 */
export const conversation = (name: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    print(o, await c.node(name, sessionOf(o)).conversation(), (got) => {
      if (got.messageCount === 0) return 'no messages yet'
      const decoded = decodeConversation(got.conversation)
      if (E.isLeft(decoded)) throw new CliError('Invalid', formatDecodeError(decoded.left))
      return renderText(decoded.right.heads)
    })
  })

export const stop = (name: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const info = await c.node(name, sessionOf(o)).stop()
    print(o, info, (i) => `Stopped '${i.id}' (${i.state})`)
  })

export const remove = (name: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    await c.deleteNode(name, sessionOf(o))
    print(o, { deleted: name }, () => `Deleted '${name}'`)
  })

/** `node fork SOURCE TARGET [--at N] [--execute INPUT]`. */
export const fork = (
  source: string,
  target: string,
  o: GlobalOptions & { readonly at?: string; readonly execute?: string },
): Promise<void> =>
  withClient(o, async (c) => {
    const at = o.at === undefined ? undefined : Number(o.at)
    const r = await c.call('FORK_NODE', {
      sourceId: source,
      targetId: target,
      ...(at !== undefined && { at }),
      ...(o.session !== undefined && { sessionId: o.session }),
    })
    const answer =
      o.execute === undefined ? undefined : await c.node(target, sessionOf(o)).execute(o.execute)
    print(o, { ...r, ...(answer !== undefined && { answer }) }, (f) =>
      [
        `Forked '${source}' → '${target}'${f.messageCount !== undefined ? ` (${f.messageCount} messages)` : ''}`,
        ...(answer !== undefined ? [answerText(answer)] : []),
      ].join('\n'),
    )
  })
