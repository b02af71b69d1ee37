import { fromPatches, setMode, setWorkflow, type NetworkChange } from '../../../network/index.js'
import type { NetworkPatches } from '../../../protocol/index.js'
import { checkPatches, networkOf } from '../networks.js'
import { rethrow, type Commands } from './context.js'

type NetworkMethods =
  | 'CREATE_NETWORK'
  | 'GET_NETWORK'
  | 'LIST_NETWORKS'
  | 'EDIT_NETWORK'
  | 'UNDO_NETWORK'
  | 'SET_NODE_MODE'
  | 'SET_WORKFLOW_MODE'
  | 'SEND_ENVELOPE'
  | 'TRIGGER_NODE'
  | 'PAUSE_NETWORK'
  | 'RESUME_NETWORK'
  | 'STOP_NETWORK'
  | 'CANCEL_NETWORK'
  | 'GET_ENVELOPES'

const patchesOf = (c: NetworkChange): NetworkPatches => ({
  patches: c.patches,
  inverse: c.inverse,
})

/** Resolves when `done` does; throws the signal's reason (a RequestCancelled) when it aborts first. */
const until = async <A>(done: Promise<A>, signal: AbortSignal): Promise<A> => {
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason as Error)
      },
      { once: true },
    )
  })
  aborted.catch(() => undefined)
  try {
    return await Promise.race([done, aborted])
  } catch (e) {
    return rethrow(signal, e)
  }
}

/** Live agent networks: create, edit with patches, send, trigger, pause, stop. */
export const networkCommands: Commands<NetworkMethods> = {
  CREATE_NETWORK: async (p, { core }) => {
    const { session } = await core.kit(p.sessionId)
    const net = networkOf(p.network)
    return core.networks.start({
      networkId: p.networkId ?? net.id,
      sessionId: session.id,
      net,
      root: p.root ?? process.cwd(),
      providers: core.providerTable,
      publish: (e) => {
        core.publish(e)
      },
      now: () => core.now(),
      control: core.control,
    })
  },

  GET_NETWORK: (p, { core }) => Promise.resolve(core.networks.info(p.networkId)),

  LIST_NETWORKS: (_, { core }) => Promise.resolve({ networks: core.networks.list() }),

  EDIT_NETWORK: (p, { core }) => {
    const run = core.networks.run(p.networkId)
    checkPatches(run.network, p.patches)
    return Promise.resolve(patchesOf(run.edit(fromPatches(p.patches))))
  },

  UNDO_NETWORK: (p, { core }) => Promise.resolve({ undone: core.networks.run(p.networkId).undo() }),

  SET_NODE_MODE: (p, { core }) =>
    Promise.resolve(
      patchesOf(core.networks.node(p.networkId, p.nodeId).edit(setMode(p.nodeId, p.mode))),
    ),

  SET_WORKFLOW_MODE: (p, { core }) =>
    Promise.resolve(patchesOf(core.networks.run(p.networkId).edit(setWorkflow(p.workflow)))),

  SEND_ENVELOPE: (p, { core }) => {
    const run = core.networks.live(p.networkId, p.nodeId)
    const envelope = run.send(
      p.nodeId,
      p.message,
      p.structured === undefined ? {} : { structured: p.structured },
    )
    run.kick()
    return Promise.resolve({ envelope })
  },

  TRIGGER_NODE: (p, { core }) => {
    core.networks.live(p.networkId, p.nodeId).trigger(p.nodeId, p.message)
    return Promise.resolve({ triggered: true })
  },

  PAUSE_NETWORK: (p, { core }) => {
    core.networks.run(p.networkId).pause()
    return Promise.resolve(core.networks.info(p.networkId))
  },

  RESUME_NETWORK: (p, { core }) => {
    core.networks.run(p.networkId).resume()
    return Promise.resolve(core.networks.info(p.networkId))
  },

  STOP_NETWORK: async (p, { core, signal }) => {
    const run = core.networks.run(p.networkId)
    if (run.status !== 'finished') await until(run.idle(), signal)
    return core.networks.stop(p.networkId, false)
  },

  CANCEL_NETWORK: (p, { core }) => core.networks.stop(p.networkId, true),

  GET_ENVELOPES: (p, { core }) =>
    Promise.resolve({ envelopes: core.networks.run(p.networkId).log.envelopes() }),
}
