/**
 * The network runs of an engine, by network id, and the errors of the
 * network commands. Each network runs in a session of its own (its nodes
 * are the network's, not the engine session's); its events are published as
 * engine events under the protocol's names, tagged with the network's id
 * and the session it was created in (`NETWORK_CREATED` once it runs, with the
 * network as `GET_NETWORK` answers it). Finished networks are kept (the last
 * `kept` of them) so their outcome can still be read.
 */
import * as E from 'fp-ts/lib/Either.js'
import { showJson, under, type ShapeError } from '../../codec/index.js'
import {
  applyChange,
  decodeNetwork,
  edgeId,
  encodeNetwork,
  showNetworkFileError,
  startNetwork,
  type Network,
  type NetworkFile,
  type NetworkFileError,
  type NetworkRun,
  type Patch,
} from '../../network/index.js'
import type { Provider } from '../../interpreters/index.js'
import type { RunControl } from '../../runtime/index.js'
import {
  networkEventNames,
  type EngineEvent,
  type NetworkEngineEvent,
  type NetworkInfo,
} from '../../protocol/index.js'
import { Stopped, taggedError } from '../../errors.js'
import { EngineError, fileErrorsLine } from './errors.js'

/**
 * No network with this id.
 *
 * @category engine errors
 */
export class UnknownNetwork extends taggedError('UnknownNetwork', 'notFound', EngineError)<{
  readonly networkId: string
}> {
  constructor(networkId: string) {
    super(`there is no network "${networkId}"`, { networkId, path: '/networkId' })
  }
}

/**
 * A network with this id exists already.
 *
 * @category engine errors
 */
export class NetworkExists extends taggedError('NetworkExists', 'conflict', EngineError)<{
  readonly networkId: string
}> {
  constructor(networkId: string) {
    super(`a network "${networkId}" exists already`, { networkId, path: '/networkId' })
  }
}

/**
 * The network has no node with this id.
 *
 * @category engine errors
 */
export class UnknownNetworkNode extends taggedError('UnknownNetworkNode', 'notFound', EngineError)<{
  readonly networkId: string
  readonly nodeId: string
}> {
  constructor(networkId: string, nodeId: string) {
    super(`the network "${networkId}" has no node "${nodeId}"`, {
      networkId,
      nodeId,
      path: '/nodeId',
    })
  }
}

/**
 * A message or a firing for a network that has finished: nothing would
 * ever deliver it, so it is refused rather than answered "sent".
 *
 * @category engine errors
 */
export class NetworkFinished extends taggedError('NetworkFinished', 'invalidState', EngineError)<{
  readonly networkId: string
}> {
  constructor(networkId: string) {
    super(`network "${networkId}" has finished: start it again to send to it`, {
      networkId,
      path: '/networkId',
    })
  }
}

/** A network file error, its path under where the file is in `params`. */
interface PathError {
  readonly _tag: string
  readonly path: string
}

/**
 * A network-file value that does not decode; `errors` carry their paths in `params`.
 *
 * @category engine errors
 */
export class NetworkFileInvalid extends taggedError(
  'NetworkFileInvalid',
  'invalidGraph',
  EngineError,
)<{ readonly errors: readonly PathError[] }> {
  constructor(errors: readonly NetworkFileError[]) {
    const at = under('/network', errors)
    super(fileErrorsLine('the network file is invalid', at), { errors: at, path: at[0]?.path })
  }
}

/**
 * Patches that do not apply to the network, or leave a network that is not
 * valid (an edge to a node that is gone, a bad delivery, a limit below 1
 * or removed, a key the network has not, an id that is not its key);
 * nothing changed.
 * `errors` are the network file's errors of the patched network, their
 * paths in the network value (`/edges/a->b/delivery/ms`, where a patch
 * points), and the message says what each expected.
 *
 * @category engine errors
 */
export class InvalidPatch extends taggedError('InvalidPatch', 'invalidInput', EngineError)<{
  readonly errors: readonly PathError[]
}> {
  constructor(message: string, errors: readonly NetworkFileError[] = []) {
    super(errors.length === 0 ? message : fileErrorsLine(message, errors, showNetworkFileError), {
      errors,
      path: '/patches',
    })
  }
}

/**
 * A path in a network file (nodes, edges and sub-networks in lists) as the
 * path in the network value, where they are by id: `/edges/0/delivery` →
 * `/edges/a->b/delivery`.
 */
const valuePath = (file: NetworkFile, path: string): string => {
  const [, list, index, ...rest] = path.split('/')
  const at = Number(index)
  const item =
    list === 'nodes' || list === 'subnetworks'
      ? (file[list]?.[at] as { id?: unknown } | undefined)?.id
      : list === 'edges'
        ? ((e) => (e === undefined ? undefined : edgeId(e.from, e.to, e.direction ?? 'both')))(
            file.edges?.[at],
          )
        : undefined
  return typeof item === 'string' ? ['', list, item, ...rest].join('/') : path
}

/** Decodes a network-file value at `/network` of `params`. */
export const networkOf = (file: unknown): Network => {
  const decoded = decodeNetwork(file)
  if (E.isLeft(decoded)) throw new NetworkFileInvalid(decoded.left)
  return decoded.right
}

/**
 * `patches` applied to `net`, checked as a network file is, and the result
 * must be the very network its file reads back (nothing the file would
 * fill in or leave out): throws {@link InvalidPatch} if they do not apply
 * or leave a network that is not valid.
 */
export const checkPatches = (net: Network, patches: readonly Patch[]): void => {
  let next: Network
  try {
    next = applyChange(patches)(net)
  } catch (e) {
    throw new InvalidPatch(
      `the patches do not apply: ${e instanceof Error ? e.message : String(e)}`,
    )
  }
  let file: NetworkFile
  try {
    file = JSON.parse(JSON.stringify(encodeNetwork(next))) as NetworkFile
  } catch (e) {
    throw new InvalidPatch(
      `the patched network is not valid: ${e instanceof Error ? e.message : String(e)}`,
    )
  }
  const decoded = decodeNetwork(file)
  if (E.isLeft(decoded)) {
    throw new InvalidPatch(
      'the patched network is not valid',
      decoded.left.map((e) => ({ ...e, path: valuePath(file, e.path) })),
    )
  }
  // The file leaves out what it does not know and fills in what is missing: the patched value
  // must be the very network it reads back (a limit removed, a key of its own, an id not its key).
  const wrong = misplacedId(next) ?? firstDifference(decoded.right, next, '')
  if (wrong !== undefined) throw new InvalidPatch('the patched network is not valid', [wrong])
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === 'object' && u !== null

/** A node, edge or sub-network whose id is not the key it is kept under. */
const misplacedId = (net: Network): ShapeError | undefined => {
  const keyed = {
    nodes: (n: { id: string }) => n.id,
    edges: (e: Network['edges'][string]) => edgeId(e.from, e.to, e.direction),
    subnetworks: (g: { id: string }) => g.id,
  } as const
  for (const [list, idOf] of Object.entries(keyed)) {
    for (const [key, item] of Object.entries(net[list as keyof typeof keyed] ?? {})) {
      const id = isObject(item) ? (idOf as (i: unknown) => unknown)(item) : undefined
      if (id !== key) {
        return {
          _tag: 'WrongType',
          path: `/${list}/${key}/id`,
          expected: showJson(key),
          actual: id,
        }
      }
    }
  }
  return undefined
}

/** The first place where `actual` is not `expected` (keys in any order), as a shape error. */
const firstDifference = (
  expected: unknown,
  actual: unknown,
  path: string,
): ShapeError | undefined => {
  if (isObject(expected) && isObject(actual) && Array.isArray(expected) === Array.isArray(actual)) {
    for (const k of Object.keys(expected)) {
      if (!Object.hasOwn(actual, k)) return { _tag: 'MissingKey', path: `${path}/${k}` }
    }
    for (const k of Object.keys(actual)) {
      if (!Object.hasOwn(expected, k)) return { _tag: 'UnknownKey', path: `${path}/${k}` }
      const d = firstDifference(expected[k], actual[k], `${path}/${k}`)
      if (d !== undefined) return d
    }
    return undefined
  }
  return JSON.stringify(expected) === JSON.stringify(actual)
    ? undefined
    : { _tag: 'WrongType', path, expected: showJson(expected), actual }
}

interface Entry {
  readonly run: NetworkRun
  readonly sessionId: string
  readonly root: string
  readonly startedAt: string
  readonly halts: NetworkInfo['halts'][number][]
}

/** The network runs of an engine. */
export class Networks {
  readonly #entries = new Map<string, Entry>()
  readonly #kept: number

  constructor(kept: number) {
    this.#kept = kept
  }

  /** Starts `net` as `networkId`; its events go to `publish` as engine events. */
  async start(options: {
    readonly networkId: string
    readonly sessionId: string
    readonly net: Network
    readonly root: string
    readonly providers: Readonly<Record<string, Provider>>
    readonly publish: (event: EngineEvent) => void
    readonly now: () => string
    /** The engine's run control: the network's approvals are asked there. */
    readonly control: RunControl
  }): Promise<NetworkInfo> {
    const { networkId, sessionId, publish, now } = options
    if (this.#entries.has(networkId)) throw new NetworkExists(networkId)
    const halts: Entry['halts'] = []
    const run = await startNetwork(options.net, {
      root: options.root,
      runId: networkId,
      providers: options.providers,
      control: options.control,
      onEvent: (e) => {
        if (e.type === 'halt') halts.push({ tag: e.error, message: e.message, nodes: e.nodes })
        const { type, runId: _, ...rest } = e
        publish({
          ...rest,
          type: networkEventNames[type],
          time: now(),
          sessionId,
          networkId,
        } as NetworkEngineEvent)
      },
    })
    if (this.#entries.has(networkId)) {
      await run.stop()
      throw new NetworkExists(networkId)
    }
    this.#entries.set(networkId, { run, sessionId, root: options.root, startedAt: now(), halts })
    const info = this.info(networkId)
    publish({ type: 'NETWORK_CREATED', time: now(), sessionId, networkId, info })
    return info
  }

  /** Whether a network of this id is known (running or kept). */
  has(networkId: string): boolean {
    return this.#entries.has(networkId)
  }

  /** The run of a network; {@link UnknownNetwork} when there is none. */
  run(networkId: string): NetworkRun {
    return this.#entry(networkId).run
  }

  /** The node of a running network; {@link UnknownNetworkNode} when it has none. */
  node(networkId: string, nodeId: string): NetworkRun {
    const run = this.run(networkId)
    if (run.network.nodes[nodeId] === undefined) throw new UnknownNetworkNode(networkId, nodeId)
    return run
  }

  /** The run of a node that can still take a message (a `NetworkFinished` once the run ended). */
  live(networkId: string, nodeId: string): NetworkRun {
    const run = this.node(networkId, nodeId)
    if (run.status === 'finished') throw new NetworkFinished(networkId)
    return run
  }

  info(networkId: string): NetworkInfo {
    const { run, sessionId, root, startedAt, halts } = this.#entry(networkId)
    const outcome = run.outcome()
    return {
      networkId,
      sessionId,
      root,
      startedAt,
      state: run.status,
      ...(run.status === 'finished' && { outcome: outcome.status }),
      network: run.network,
      envelopes: outcome.log.size,
      done: outcome.done,
      halts: [...halts],
      usage: run.usage(),
      subnetworkUsage: run.subnetworkUsage(),
      pending: run.control.pending().filter((r) => r.runId === run.runId),
      inboxes: run.inboxes(),
    }
  }

  list(): readonly NetworkInfo[] {
    return [...this.#entries.keys()].map((id) => this.info(id))
  }

  /** Ends the run (cancelled first when `cancel`), then forgets the oldest finished ones beyond `kept`. */
  async stop(networkId: string, cancel: boolean): Promise<NetworkInfo> {
    const run = this.run(networkId)
    if (cancel) run.cancel(new Stopped('the network was cancelled (CANCEL_NETWORK)'))
    await run.stop()
    const info = this.info(networkId)
    const finished = [...this.#entries].filter(([, e]) => e.run.status === 'finished')
    for (const [id] of finished.slice(0, Math.max(0, finished.length - this.#kept))) {
      this.#entries.delete(id)
    }
    return info
  }

  /** Cancels and ends every network (engine shutdown). */
  async stopAll(): Promise<void> {
    await Promise.allSettled(
      [...this.#entries.values()].map(async ({ run }) => {
        run.cancel(new Stopped('the engine is shutting down'))
        await run.stop()
      }),
    )
  }

  #entry(networkId: string): Entry {
    const e = this.#entries.get(networkId)
    if (e === undefined) throw new UnknownNetwork(networkId)
    return e
  }
}
