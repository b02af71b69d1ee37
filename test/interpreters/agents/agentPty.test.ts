import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pty } from '../../../src/index.js'
import {
  type AgentProgram,
  type AgentPtyTerminal,
  approvalRules,
  openAgentPty,
  type PermissionRequest,
} from '../../../src/interpreters/index.js'
import { scriptedModel, type ScriptedModel } from './realCli.js'

const root = mkdtempSync(join(tmpdir(), 'nerve-agent-pty-'))
let model: ScriptedModel
beforeAll(async () => {
  model = await scriptedModel()
})
afterAll(async () => {
  await model.proxy.close()
  rmSync(root, { recursive: true, force: true })
})

/** A turn asking for `tool` to run: an escalated command (Codex) or a file write / command (Gemini). */
const ask = (program: AgentProgram, target: string, write: boolean) =>
  program === 'codex'
    ? {
        name: 'exec_command',
        input: {
          cmd: `touch ${target}`,
          sandbox_permissions: 'require_escalated',
          justification: 'May I?',
        },
      }
    : write
      ? { name: 'write_file', input: { file_path: target, content: 'hello\n' } }
      : { name: 'run_shell_command', input: { command: `touch ${target}`, description: 'Make' } }

describe.each(['codex', 'gemini'] as const)('%s permission prompts as approvals', (program) => {
  const work = join(root, program)
  const requests: PermissionRequest[] = []
  let agent: AgentPtyTerminal
  beforeAll(async () => {
    mkdirSync(work)
    agent = openAgentPty(
      program,
      pty(program, { command: program, cwd: work, env: { HOME: root } }),
      {
        proxy: model.proxy,
        home: join(root, `${program}-home`),
        ...(program === 'codex' && { model: 'gpt-5' }),
        approvals: {
          // Writes and commands naming "allowed" run; the rest are denied.
          policy: (request) => {
            requests.push(request)
            return approvalRules([{ pattern: '*allowed*', decision: 'approve' }], 'deny')(request)
          },
        },
      },
    )
    await agent.start()
  }, 60_000)
  afterAll(async () => {
    await agent.stop()
  })

  it('runs what the policy approves, answered in the terminal with no one at the keys', async () => {
    const file = join(work, 'allowed.txt')
    model.push({ tools: [ask(program, file, true)] }, { text: 'Allowed it.' })
    const r = await agent.execute('make the allowed file')
    expect(r.text).toBe('Allowed it.')
    expect(existsSync(file)).toBe(true)
    expect(requests.at(-1)?.nodeId).toBe(program)
    expect(requests.at(-1)?.options.length).toBeGreaterThan(1)
  }, 60_000)

  it('does not run what the policy denies', async () => {
    const file = join(work, 'refused.txt')
    model.push({ tools: [ask(program, file, false)] })
    await agent.execute('make the refused file')
    expect(existsSync(file)).toBe(false)
    const last = requests.at(-1)!
    expect(last.command ?? last.file).toContain('refused')
    expect(agent.screenState()?._tag).toBe('ready')
  }, 60_000)

  it('prepared the home it owns, pointed at the proxy', () => {
    const config =
      program === 'codex'
        ? readFileSync(join(agent.home!, 'config.toml'), 'utf8')
        : readFileSync(join(agent.home!, '.gemini', 'trustedFolders.json'), 'utf8')
    expect(config).toContain(work)
    expect(model.proxy.usage(program).calls).toBeGreaterThan(0)
  })
})
