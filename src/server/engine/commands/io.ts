import {
  ExecuteTimeout,
  filterHistory,
  historyPath,
  NodeStopped,
  readHistory,
  UnknownNode,
  type HistoryFilter,
} from '../../../session/index.js'
import type { Terminal } from '../../../interpreters/index.js'
import type { Node } from '../../../node/index.js'
import type { EngineEvent, Params } from '../../../protocol/index.js'
import type { Core } from '../Core.js'
import { NotATerminal, RequestCancelled, RequestTimeout } from '../errors.js'
import { eventOutput, runEvents } from '../eventMap.js'
import { errorShape } from '../json.js'
import type { SessionKit } from '../SessionKit.js'
import type { Commands } from './context.js'

type IoMethods =
  'EXECUTE_INPUT' | 'RUN_COMMAND' | 'SEND_INTERRUPT' | 'WRITE_DATA' | 'GET_BUFFER' | 'GET_HISTORY'

/** How much of the output a timeout keeps as its partial answer. */
const PARTIAL_CHARS = 4000

/** The text of an output chunk: a terminal's string, a bash chunk's data. */
const textOf = (chunk: unknown): string | undefined => {
  if (typeof chunk === 'string') return chunk
  const data = (chunk as { data?: unknown } | null)?.data
  return typeof data === 'string' ? data : undefined
}

type Kit = SessionKit & { readonly session: NonNullable<SessionKit['session']> }

const nodeIn = (kit: Kit, nodeId: string): Node => {
  const node = kit.session.get(nodeId)
  if (node === undefined) throw new UnknownNode(kit.session.id, nodeId)
  return node
}

/**
 * Runs an input on a node as `EXECUTE_INPUT` and `RUN_COMMAND` do: through
 * the session (so the node is busy meanwhile, and `SEND_INTERRUPT` reaches
 * it), with the parser, the request's timeout and signal; output chunks and
 * the answer are published.
 */
const execute = async (
  core: Core,
  kit: Kit,
  p: Params<'EXECUTE_INPUT'>,
  signal: AbortSignal | undefined,
): Promise<unknown> => {
  const { session } = kit
  const node = nodeIn(kit, p.nodeId)
  /** The end of the text output so far: the partial answer a timeout reports. */
  let partial = ''
  const publish = (event: EngineEvent): void => {
    if (event.type === 'OUTPUT_CHUNK') {
      const text = textOf(event.chunk)
      if (text !== undefined) partial = (partial + text).slice(-PARTIAL_CHARS)
    }
    core.publish(event)
  }
  try {
    const output = await session.execute(p.nodeId, p.input, {
      ...(signal !== undefined && { signal }),
      ...(p.timeout !== undefined && { timeoutMs: p.timeout }),
      ...(p.parser !== undefined && { parser: p.parser }),
      onEvent: runEvents(
        session.id,
        publish,
        () => core.now(),
        node.kind === 'graph' ? {} : { chunksOf: p.nodeId },
      ),
    })
    core.publish({
      type: 'OUTPUT_PARSED',
      time: core.now(),
      sessionId: session.id,
      nodeId: p.nodeId,
      ...eventOutput(output),
    })
    return output
  } catch (e) {
    if (e instanceof ExecuteTimeout) throw new RequestTimeout(e.timeoutMs, partial)
    // A cancelled request answers with why it was cancelled.
    throw signal?.aborted === true ? signal.reason : e
  }
}

/** Whether nodes of a kind are terminals. */
const isTerminalKind = (core: Core, kind: string): boolean =>
  core.kinds.get(kind)?.capabilities.terminal === true

/**
 * The terminal of a node: NotATerminal for other kinds, NodeStopped when
 * the node is not started. To write to it, a started node whose program
 * exited gets a fresh one first, as its next execute would (the session
 * respawns it); to read it, the exited one still shows its last screen.
 */
const terminalOf = async (
  core: Core,
  kit: Kit,
  nodeId: string,
  use: 'read' | 'write',
): Promise<Terminal> => {
  const node = nodeIn(kit, nodeId)
  if (!isTerminalKind(core, node.kind)) throw new NotATerminal(nodeId, node.kind)
  const { session } = kit
  const terminal = session.live(nodeId) as Terminal | undefined
  if (terminal !== undefined && (terminal.state !== 'stopped' || use === 'read')) return terminal
  const state = session.state(nodeId)
  const interpreter = session.interpreters.get(node.kind)
  const respawned =
    terminal !== undefined && (state === 'ready' || state === 'busy') && interpreter !== undefined
      ? session.startFor(node, interpreter)
      : undefined
  if (respawned === undefined) throw new NodeStopped(session.id, nodeId, 'stopped')
  return (await respawned) as Terminal
}

/** Executes, terminals' I/O and history. */
export const ioCommands: Commands<IoMethods> = {
  EXECUTE_INPUT: async (p, { core, signal }) =>
    execute(core, await core.kit(p.sessionId), p, signal),

  RUN_COMMAND: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    nodeIn(kit, p.nodeId)
    execute(core, kit, p, undefined).catch((e: unknown) => {
      core.publish({
        type: 'ERROR',
        time: core.now(),
        sessionId: kit.session.id,
        nodeId: p.nodeId,
        error: errorShape(e),
      })
    })
    return { accepted: true }
  },

  SEND_INTERRUPT: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const node = nodeIn(kit, p.nodeId)
    if (isTerminalKind(core, node.kind)) {
      const terminal = kit.session.live(p.nodeId) as Terminal | undefined
      if (terminal === undefined || terminal.state === 'stopped') return { interrupted: false }
      await terminal.interrupt()
      return { interrupted: true }
    }
    return {
      interrupted:
        kit.session.interrupt(p.nodeId, new RequestCancelled('the node was interrupted')) > 0,
    }
  },

  WRITE_DATA: async (p, { core }) => {
    const terminal = await terminalOf(core, await core.kit(p.sessionId), p.nodeId, 'write')
    await terminal.write(p.data)
    return { written: p.data.length }
  },

  GET_BUFFER: async (p, { core }) => {
    const terminal = await terminalOf(core, await core.kit(p.sessionId), p.nodeId, 'read')
    return { buffer: p.lines === undefined ? terminal.read() : terminal.readTail(p.lines) }
  },

  GET_HISTORY: async (p, { core }) => {
    const kit = await core.kit(p.sessionId)
    const where = core.historyRoot
    if (where === undefined) {
      nodeIn(kit, p.nodeId)
      return { records: [], corrupt: 0 }
    }
    const path = historyPath({ ...where, session: kit.session.id, node: p.nodeId })
    const read = await readHistory(path)
    if (read.records.length === 0 && !kit.session.has(p.nodeId)) {
      throw new UnknownNode(kit.session.id, p.nodeId)
    }
    const filter: HistoryFilter = {
      ...(p.op !== undefined && { op: p.op }),
      ...(p.fromSeq !== undefined && { fromSeq: p.fromSeq }),
      ...(p.toSeq !== undefined && { toSeq: p.toSeq }),
      ...(p.since !== undefined && { since: p.since }),
      ...(p.until !== undefined && { until: p.until }),
    }
    const kept = filterHistory(filter)(read.records)
    const records = p.limit === undefined ? kept : kept.slice(Math.max(0, kept.length - p.limit))
    return {
      records,
      corrupt: read.problems.length + (read.tornLine === undefined ? 0 : 1),
    }
  },
}
