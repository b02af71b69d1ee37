import type { Method } from '../../../protocol/index.js'
import { chatCommands } from './chats.js'
import { approvalCommands } from './approvals.js'
import type { Command, Commands } from './context.js'
import { graphCommands } from './graphs.js'
import { ioCommands } from './io.js'
import { networkCommands } from './networks.js'
import { nodeCommands } from './nodes.js'
import { storeCommands } from './store.js'

export type { CallContext } from './context.js'

/** Every command of the protocol, by method name. */
export const commands: Commands<Method> = {
  ...nodeCommands,
  ...ioCommands,
  ...graphCommands,
  ...networkCommands,
  ...chatCommands,
  ...approvalCommands,
  ...storeCommands,
}

/** The command of a method, typed loosely for the dispatcher (its params are decoded by the method's codec). */
export const commandOf = (method: Method): Command<Method> =>
  commands[method] as unknown as Command<Method>
