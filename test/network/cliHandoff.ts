import { pipe } from 'fp-ts/lib/function.js'
import { expect } from 'vitest'
import { addNode, connect, network, startNetwork, type NetworkNode } from 'nerve-agents'

/**
 * Runs a network where the CLI agent node `agent` (of `provider`) hands its
 * answer to a mock `sink`: sends it `message` and stops once all is idle.
 * Checks that the session starts the agent's terminal only when the message
 * reaches it, and stops it with the run. Answers the message the agent handed on.
 */
export const cliHandoff = async (
  provider: NetworkNode['provider'],
  root: string,
  message: string,
): Promise<unknown> => {
  const net = pipe(
    network('cli'),
    addNode({ id: 'agent', provider }),
    addNode({ id: 'sink', provider: { type: 'mock', script: ['DONE'] } }),
    connect('agent', 'sink', { direction: 'one-way' }),
  )
  const run = await startNetwork(net, { root })
  expect(run.session.state('agent')).toBe('created')
  run.send('agent', message)
  await run.idle()
  expect(run.session.state('agent')).toBe('ready')
  const out = await run.stop()
  expect(run.session.state('agent')).toBe('stopped')
  expect(out.done).toEqual(['sink'])
  return out.log.envelopes().find((e) => e.fromNodeId === 'agent')?.payload.message
}
