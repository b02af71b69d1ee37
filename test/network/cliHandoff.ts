import { pipe } from 'fp-ts/lib/function.js'
import { expect } from 'vitest'
import {
  addNode,
  connect,
  network,
  type NetworkNode,
  type NetworkOutcome,
  type NetworkRunOptions,
  startNetwork,
} from 'nerve-agents'
import { type ProxyCall } from 'nerve-agents/interpreters'

/** What {@link cliHandoff} saw: the message the agent handed on, the outcome, the agent's model calls. */
export interface Handoff {
  readonly message: unknown
  readonly outcome: NetworkOutcome
  readonly calls: readonly ProxyCall[]
}

/**
 * Runs a network where the CLI agent node `agent` (of `provider`) hands its
 * answer to a mock `sink`: sends it `message` and stops once all is idle.
 * Checks that the session starts the agent's terminal only when the message
 * reaches it, and stops it with the run.
 */
export const cliHandoff = async (
  provider: NetworkNode['provider'],
  root: string,
  message: string,
  options: Omit<NetworkRunOptions, 'root'> = {},
): Promise<Handoff> => {
  const net = pipe(
    network('cli'),
    addNode({ id: 'agent', provider }),
    addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
    connect('agent', 'sink', { direction: 'one-way' }),
  )
  const run = await startNetwork(net, { root, ...options })
  expect(run.session.state('agent')).toBe('created')
  run.send('agent', message)
  await run.idle()
  expect(run.session.state('agent')).toBe('ready')
  const outcome = await run.stop()
  expect(run.session.state('agent')).toBe('stopped')
  expect(outcome.done).toEqual(['sink'])
  return {
    message: outcome.log.envelopes().find((e) => e.fromNodeId === 'agent')?.payload.message,
    outcome,
    calls: run.modelCalls().filter((c) => c.agent === 'agent'),
  }
}
