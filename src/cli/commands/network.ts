/**
 * `nerve network …`: live agent networks. `run FILE` starts a network file
 * (in this process, or on the daemon with `--server`), sends what `--send`
 * says, prints each delivery, live edit, approval and halt as it happens
 * (NDJSON with `--json`), and ends when the network is idle: exit 0 when it
 * finished, 1 when it halted or was cancelled. `show FILE` prints a file's
 * topology. `list`, `status`, `send`, `trigger`, `approve`, `deny`, `stop`
 * and `cancel` work on the daemon's networks.
 */
import * as E from 'fp-ts/lib/Either.js'
import { resolve } from 'node:path'
import type { RemoteNetwork } from '../../client/index.js'
import {
  decodeNetwork,
  EnvelopeLog,
  renderEnvelopesHtml,
  showNetworkFileError,
  type InboxInfo,
  type Network,
} from '../../network/index.js'
import { writeFileAtomic } from '../../interpreters/index.js'
import type { EngineEvent, NetworkInfo } from '../../protocol/index.js'
import { CliError, connect, print, withClient, type GlobalOptions } from '../context.js'
import { runExitCode } from '../exitCodes.js'
import { readJson } from './files.js'
import { mermaidId } from './graph.js'

const decoded = async (
  file: string,
): Promise<{ readonly json: unknown; readonly net: Network }> => {
  const json = await readJson(file)
  const net = decodeNetwork(json)
  if (E.isLeft(net)) {
    throw new CliError(
      'NetworkFileInvalid',
      // the first problem on the one error line, then every one on the lines --verbose shows
      `${file}${showNetworkFileError(net.left[0]!)}${net.left.length > 1 ? ` (and ${net.left.length - 1} more)` : ''}\n${net.left.map((e) => `  ${showNetworkFileError(e)}`).join('\n')}`,
      net.left[0]?.path,
      'invalidGraph',
    )
  }
  return { json, net: net.right }
}

/** One event as a line a person reads; `undefined` for those not worth a line. */
const eventLine = (e: EngineEvent): string | undefined => {
  switch (e.type) {
    case 'ENVELOPE_DELIVERED': {
      const m = e.envelope.payload.message.split('\n')[0]
      return `${e.envelope.kind.padEnd(7)} ${e.envelope.fromNodeId} → ${e.envelope.toNodeId}: ${m}`
    }
    case 'NETWORK_HALTED':
      return `halted  ${e.nodes.join(', ')}: ${e.error}: ${e.message}`
    case 'NODE_DONE':
      return `done    ${e.nodeId} (${e.reason})`
    case 'NETWORK_PATCHED':
      return `edit    ${e.label}`
    case 'APPROVAL_REQUESTED':
      return `approve? ${e.request.id}: ${e.request.nodeId} wants ${e.request.action} ${e.request.target} (${e.request.reason})`
    case 'APPROVAL_DECIDED':
      return `decided ${e.decision.request.id}: ${e.decision.decision} by ${e.decision.by}`
    case 'NETWORK_NODE_RESPAWNED':
      return `respawn ${e.nodeId}: its program exited and was started again`
    case 'POLICY_REFUSED':
      return `refused ${e.nodeId}: ${e.tool} ${e.target}: ${e.reason}`
    case 'LAGGED':
      return `(${e.dropped} events missed)`
    default:
      return undefined
  }
}

export interface NetworkRunOptions extends GlobalOptions {
  readonly send?: readonly string[]
  readonly root?: string
  readonly html?: string
  readonly server?: boolean
  readonly detach?: boolean
}

/** `NODE=MESSAGE` → `[node, message]`. */
const sendOf = (s: string): readonly [string, string] => {
  const eq = s.indexOf('=')
  if (eq <= 0)
    throw new CliError('BadOption', `--send takes NODE=MESSAGE, got ${s}`, '--send', 'invalidInput')
  return [s.slice(0, eq), s.slice(eq + 1)]
}

/** One line about a network: its id, state, how it ended, envelopes, Done. */
const infoLine = (n: NetworkInfo): string =>
  `${n.networkId.padEnd(16)} ${(n.outcome ?? n.state).padEnd(9)} ${String(n.envelopes).padStart(4)} envelopes${n.done.length > 0 ? `, done: ${n.done.join(', ')}` : ''}${n.pending.length > 0 ? `, ${n.pending.length} approval(s) waiting` : ''}`

/**
 * `nerve network run FILE`: on the daemon with `--server` (and left running
 * there with `--detach`), else on an engine in this process — the same
 * commands either way.
 */
export const run = async (file: string, o: NetworkRunOptions): Promise<void> => {
  const { json, net } = await decoded(file)
  const sends = (o.send ?? []).map(sendOf)
  for (const [node] of sends) {
    if (net.nodes[node] === undefined) {
      throw new CliError(
        'UnknownNode',
        `--send names node ${node}, which ${file} does not have`,
        '--send',
        'invalidInput',
      )
    }
  }
  if (o.detach === true && o.server !== true) {
    throw new CliError(
      'BadOption',
      '--detach leaves the network on the daemon: add --server',
      '--detach',
      'invalidInput',
    )
  }
  const client =
    o.server === true
      ? await connect(o)
      : await (await import('../../server/index.js')).standaloneClient()
  try {
    const remote = await client.createNetwork(json, {
      root: resolve(o.root ?? '.'),
      ...(o.session !== undefined && { sessionId: o.session }),
    })
    for (const [node, message] of sends) await remote.send(node, message)
    if (o.detach === true) {
      print(o, await remote.info(), (n) => `Started ${n.networkId} on the daemon`)
      return
    }
    const info = await followNetwork(remote, o, () => remote.stop())
    if (o.html !== undefined) {
      const log = new EnvelopeLog()
      for (const e of await remote.envelopes()) log.add(e)
      await writeFileAtomic(o.html, renderEnvelopesHtml(log, { title: `${net.id}: envelopes` }))
    }
    summarise(info, o)
  } finally {
    await client.close()
  }
}

/**
 * Prints a network's events as they happen (a line each, NDJSON with
 * `--json`) until `ended` resolves; Ctrl-C cancels the network.
 */
const followNetwork = async (
  remote: RemoteNetwork,
  o: GlobalOptions,
  ended: () => Promise<NetworkInfo>,
): Promise<NetworkInfo> => {
  const cancel = (): void => {
    void remote.cancel().catch(() => undefined)
  }
  process.once('SIGINT', cancel)
  try {
    const printing = (async () => {
      for await (const e of remote.events()) {
        const line = o.json === true ? JSON.stringify(e) : eventLine(e)
        if (line !== undefined) process.stdout.write(`${line}\n`)
      }
    })()
    const info = await ended()
    await printing
    return info
  } finally {
    process.off('SIGINT', cancel)
  }
}

/** The last line of a network that ended (its JSON summary with `--json`); exit 1 when it halted or was cancelled. */
const summarise = (info: NetworkInfo, o: GlobalOptions): void => {
  const summary = {
    networkId: info.networkId,
    status: info.outcome,
    envelopes: info.envelopes,
    done: info.done,
    halts: info.halts,
    usage: info.usage,
  }
  if (o.json === true) process.stdout.write(`${JSON.stringify(summary)}\n`)
  else
    process.stderr.write(`network ${info.networkId} ${info.outcome}: ${info.envelopes} envelopes\n`)
  if (info.outcome === 'halted' || info.outcome === 'cancelled') {
    process.exitCode = runExitCode(info.outcome)
  }
}

/**
 * `nerve network watch ID`: follows a network on the daemon (one started
 * with `--detach`) live: first where it stands (as `network status` says
 * it; not with `--json`), then the same lines as a foreground run, until
 * it ends; one that has ended prints its summary at once.
 */
export const watch = (id: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const remote = await c.watchNetwork(id)
    const now = await remote.info()
    if (now.state === 'finished') {
      summarise(now, o)
      return
    }
    if (o.json !== true) process.stdout.write(`${statusText(now)}\n`)
    const completed = (async () => {
      for (;;) {
        const info = await remote.info()
        if (info.state === 'finished') return info
        await new Promise((r) => setTimeout(r, 200))
      }
    })()
    summarise(await followNetwork(remote, o, () => completed), o)
  })

/** `nerve network list`: the daemon's networks. */
export const list = (o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const networks = await c.listNetworks()
    print(o, { networks }, (r) =>
      r.networks.length === 0 ? 'No networks' : r.networks.map(infoLine).join('\n'),
    )
  })

/** One inbox: `  inbox x → j (e1, queue): 1 waiting, 0 taken` (and `held`, `dropped` when so). */
const inboxLine = (i: InboxInfo): string => {
  const { edgeId, from, to } = i.route
  const counts = [
    `${i.waiting} waiting`,
    ...(i.holding ? ['1 held'] : []),
    `${i.delivered} taken`,
    ...(i.dropped > 0 ? [`${i.dropped} dropped`] : []),
  ]
  return `  inbox ${from} → ${to} (${edgeId ?? 'user'}, ${i.delivery}): ${counts.join(', ')}`
}

/** Where a network stands: its line, its nodes, inboxes, the approvals waiting and its halts. */
const statusText = (n: NetworkInfo): string =>
  [
    infoLine(n),
    ...Object.values(n.network.nodes).map(
      (node) => `  ${node.id.padEnd(14)} ${node.role.padEnd(12)} ${node.mode}`,
    ),
    ...n.inboxes.map(inboxLine),
    ...n.pending.map((r) => `  approve? ${r.id}: ${r.nodeId} wants ${r.action} ${r.target}`),
    ...n.halts.map((h) => `  halted ${h.nodes.join(', ')}: ${h.tag}: ${h.message}`),
  ].join('\n')

/** `nerve network status ID`: one network on the daemon, its nodes, inboxes and the approvals waiting. */
export const status = (id: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    print(o, await c.network(id).info(), statusText)
  })

/** `nerve network send ID NODE MESSAGE`. */
export const send = (id: string, node: string, message: string, o: GlobalOptions): Promise<void> =>
  withClient(o, async (c) => {
    const envelope = await c.network(id).send(node, message)
    print(o, envelope, (e) => `Sent ${e.id} to ${e.toNodeId}`)
  })

/** `nerve network trigger ID NODE [MESSAGE]`. */
export const trigger = (
  id: string,
  node: string,
  message: string | undefined,
  o: GlobalOptions,
): Promise<void> =>
  withClient(o, async (c) => {
    await c.network(id).trigger(node, message)
    print(o, { triggered: true }, () => `Triggered ${node}`)
  })

/** `nerve network approve|deny ID REQUEST [--note TEXT]`. */
export const decide =
  (how: 'approve' | 'deny') =>
  (id: string, request: string, o: GlobalOptions & { readonly note?: string }): Promise<void> =>
    withClient(o, async (c) => {
      await c.network(id)[how](request, process.env.USER, o.note)
      print(o, { decided: true }, () => `${how === 'approve' ? 'Approved' : 'Denied'} ${request}`)
    })

/** `nerve network stop|cancel ID`: ends a network on the daemon (stop waits until it is idle). */
export const end =
  (how: 'stop' | 'cancel') =>
  (id: string, o: GlobalOptions): Promise<void> =>
    withClient(o, async (c) => {
      print(o, await c.network(id)[how](), infoLine)
    })

/** `nerve network show FILE [--mermaid]`: nodes (role, mode, trigger, provider) and edges. */
export const show = async (
  file: string,
  o: GlobalOptions & { readonly mermaid?: boolean },
): Promise<void> => {
  const { net } = await decoded(file)
  const nodes = Object.values(net.nodes)
  const edges = Object.values(net.edges)
  const arrow = (both: boolean): string => (both ? '↔' : '→')
  if (o.mermaid === true) {
    const lines = [
      'flowchart LR',
      ...nodes.map((n) => `  ${mermaidId(n.id)}["${n.id}: ${n.role}"]`),
    ]
    for (const e of edges) {
      lines.push(
        `  ${mermaidId(e.from)} ${e.direction === 'both' ? '<-->' : '-->'} ${mermaidId(e.to)}`,
      )
    }
    print(o, { mermaid: lines.join('\n') }, (m) => m.mermaid)
    return
  }
  print(o, { id: net.id, workflow: net.workflow, nodes, edges }, () =>
    [
      `${net.id} (${net.workflow} mode)`,
      ...nodes.map(
        (n) =>
          `  ${n.id.padEnd(14)} ${n.role.padEnd(12)} ${n.mode.padEnd(11)} ${n.trigger.type.padEnd(9)} ${n.provider.type}`,
      ),
      ...edges.map(
        (e) => `  ${e.from} ${arrow(e.direction === 'both')} ${e.to} (${e.delivery.type})`,
      ),
    ].join('\n'),
  )
}
