/**
 * `nerve network run|show FILE`: a network file, in this process. `run`
 * starts the network, sends what `--send` says, prints each delivery,
 * firing, live edit, approval and halt as it happens (NDJSON with
 * `--json`), and ends when the network is idle: exit 0 when it finished,
 * 1 when it halted or was cancelled. `show` prints its topology.
 */
import * as E from 'fp-ts/lib/Either.js'
import {
  decodeNetwork,
  renderEnvelopesHtml,
  showNetworkFileError,
  startNetwork,
  type Network,
  type NetworkEvent,
} from '../../network/index.js'
import { writeFileAtomic } from '../../interpreters/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'
import { readJson } from './files.js'
import { mermaidId } from './graph.js'

const decoded = async (file: string): Promise<Network> => {
  const net = decodeNetwork(await readJson(file))
  if (E.isLeft(net)) {
    throw new CliError(
      'NetworkFileInvalid',
      `${file} is not a valid network file:\n${net.left.map((e) => `  ${showNetworkFileError(e)}`).join('\n')}`,
      net.left[0]?.path,
    )
  }
  return net.right
}

/** One event as a line a person reads; `undefined` for those not worth a line. */
const eventLine = (e: NetworkEvent): string | undefined => {
  switch (e.type) {
    case 'envelope': {
      const m = e.envelope.payload.message.split('\n')[0]
      return `${e.envelope.kind.padEnd(7)} ${e.envelope.fromNodeId} → ${e.envelope.toNodeId}: ${m}`
    }
    case 'halt':
      return `halted  ${e.nodes.join(', ')}: ${e.error}: ${e.message}`
    case 'done':
      return `done    ${e.nodeId} (${e.reason})`
    case 'patch':
      return `edit    ${e.label}`
    case 'approval':
      return `approve? ${JSON.stringify(e.request)}`
    case 'decision':
      return `decided ${JSON.stringify(e.decision)}`
    case 'refused':
      return `refused ${e.nodeId}: ${e.tool} ${e.target}: ${e.reason}`
    default:
      return undefined
  }
}

export interface NetworkRunOptions extends GlobalOptions {
  readonly send?: readonly string[]
  readonly root?: string
  readonly html?: string
}

/** `NODE=MESSAGE` → `[node, message]`. */
const sendOf = (s: string): readonly [string, string] => {
  const eq = s.indexOf('=')
  if (eq <= 0) throw new CliError('BadOption', `--send takes NODE=MESSAGE, got ${s}`, '--send', 2)
  return [s.slice(0, eq), s.slice(eq + 1)]
}

export const run = async (file: string, o: NetworkRunOptions): Promise<void> => {
  const net = await decoded(file)
  const sends = (o.send ?? []).map(sendOf)
  for (const [node] of sends) {
    if (net.nodes[node] === undefined) {
      throw new CliError(
        'UnknownNode',
        `--send names node ${node}, which ${file} does not have`,
        '--send',
        2,
      )
    }
  }
  const run = await startNetwork(net, {
    root: o.root ?? process.cwd(),
    onEvent: (e) => {
      const line = o.json === true ? JSON.stringify(e) : eventLine(e)
      if (line !== undefined) process.stdout.write(`${line}\n`)
    },
  })
  const cancel = (): void => {
    run.cancel(new Error('interrupted'))
  }
  process.once('SIGINT', cancel)
  try {
    for (const [node, message] of sends) run.send(node, message)
    await run.idle()
    const outcome = await run.stop()
    if (o.html !== undefined) {
      await writeFileAtomic(
        o.html,
        renderEnvelopesHtml(outcome.log, { title: `${net.id}: envelopes` }),
      )
    }
    const summary = {
      networkId: net.id,
      status: outcome.status,
      envelopes: outcome.log.size,
      done: outcome.done,
      halts: outcome.halts,
      usage: outcome.usage,
    }
    if (o.json === true) process.stdout.write(`${JSON.stringify(summary)}\n`)
    else
      process.stderr.write(`network ${net.id} ${outcome.status}: ${outcome.log.size} envelopes\n`)
    if (outcome.status === 'halted' || outcome.status === 'cancelled') process.exitCode = 1
  } finally {
    process.off('SIGINT', cancel)
  }
}

/** `nerve network show FILE [--mermaid]`: nodes (role, mode, trigger, provider) and edges. */
export const show = async (
  file: string,
  o: GlobalOptions & { readonly mermaid?: boolean },
): Promise<void> => {
  const net = await decoded(file)
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
