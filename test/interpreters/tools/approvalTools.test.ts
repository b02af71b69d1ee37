import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { tool, type Tool, toolbox, toolset } from '../../../src/index.js'
import {
  approvalRules,
  promptRisk,
  toolsetTools,
  withApprovals,
} from '../../../src/interpreters/index.js'
import { type ApprovalRequest, RunControl } from '../../../src/runtime/index.js'
import { ctxOf } from './fixture.js'

const named = (name: string, risk?: 'low' | 'medium' | 'high'): Tool =>
  tool(
    { name, description: name, input_schema: { type: 'object' } },
    t.type({}),
    () => Promise.resolve(`${name} ran`),
    risk === undefined ? {} : { risk },
  )

describe('tools rated by risk', () => {
  it('rates the built-in tools: reading low, changing files medium, running commands high', () => {
    const tools = toolsetTools(
      toolset('fs', { builtin: ['read', 'glob', 'grep', 'write', 'edit', 'bash'], root: '.' }),
    )
    expect(tools.map((x) => [x.definition.name, x.risk])).toEqual([
      ['read', 'low'],
      ['glob', 'low'],
      ['grep', 'low'],
      ['write', 'medium'],
      ['edit', 'medium'],
      ['bash', 'high'],
    ])
  })

  it('refuses a risk that is not low, medium or high, naming the tool', () => {
    expect(() => named('x', 'extreme' as 'high')).toThrow(/tool "x": risk must be/)
    const odd = { ...named('y'), risk: 'huge' } as unknown as Tool
    expect(() => toolbox(odd)).toThrow(/tool "y": risk must be/)
  })

  it('holds the calls a risk rule names, and the request carries the tool’s risk', async () => {
    const asked: ApprovalRequest[] = []
    const control = new RunControl({ onRequest: (r) => asked.push(r) })
    const [look, run] = withApprovals([named('look', 'low'), named('run', 'high')], {
      control,
      nodeId: 'dev',
      policy: { rules: [{ risk: 'medium', decision: 'ask' }] },
    })
    expect([look!.risk, run!.risk]).toEqual(['low', 'high'])
    expect(await look!.run({}, ctxOf())).toBe('look ran')
    expect(asked).toEqual([])
    const held = run!.run({}, ctxOf())
    await Promise.resolve()
    expect(asked).toMatchObject([{ action: 'run', risk: 'high', nodeId: 'dev' }])
    control.approve(asked[0]!.id, 'ana')
    expect(await held).toBe('run ran')
  })

  it('rates what CLI agents ask about, and code rules match the rating', () => {
    expect(
      [
        'Bash',
        'Write',
        'Read',
        'run_shell_command',
        'WebFetch',
        'WebSearch',
        'web_fetch',
        'google_web_search',
        'mcp__github__create_issue',
        'Frobnicate',
      ].map(promptRisk),
    ).toEqual([
      'high',
      'medium',
      'low',
      'high',
      'medium',
      'medium',
      'medium',
      'medium',
      'high',
      undefined,
    ])
    const policy = approvalRules([{ risk: 'high', decision: 'deny' }], 'approve')
    const request = (tool: string) => ({
      nodeId: 'a',
      tool,
      command: 'x',
      options: [],
      ...(promptRisk(tool) !== undefined && { risk: promptRisk(tool)! }),
    })
    expect(policy(request('Bash'))).toBe('deny')
    expect(policy(request('Edit'))).toBe('approve')
    expect(policy(request('WebFetch'))).toBe('approve')
    // A rule that holds what reaches the network holds web fetches and searches, not reads.
    const network = approvalRules([{ risk: 'medium', decision: 'ask' }], 'approve')
    expect(['WebFetch', 'WebSearch', 'Read'].map((t) => network(request(t)))).toEqual([
      'ask',
      'ask',
      'approve',
    ])
  })
})
