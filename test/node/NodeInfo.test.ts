import { describe, expect, it } from 'vitest'
import { fn } from '../../src/node/FunctionNode.js'
import { makeNode } from '../../src/node/Node.js'
import { nodeInfo } from '../../src/node/NodeInfo.js'

describe('nodeInfo', () => {
  it('reports id, kind as type, state and metadata as JSON', () => {
    const n = makeNode({ id: 'sh', kind: 'bash', persistent: true, metadata: { owner: 'me' } })
    const info = nodeInfo('busy')(n)
    expect(info).toEqual({ id: 'sh', type: 'bash', state: 'busy', metadata: { owner: 'me' } })
    expect(JSON.parse(JSON.stringify(info))).toEqual(info)
    expect(Object.isFrozen(info)).toBe(true)
  })

  it('leaves out the code of a function node', () => {
    const info = nodeInfo('created')(fn('f', () => 1))
    expect(Object.keys(info)).toEqual(['id', 'type', 'state', 'metadata'])
  })
})
