import { spawn } from 'node:child_process'
import { access, constants } from 'node:fs/promises'
import { delimiter, isAbsolute, join, resolve } from 'node:path'
import { zeroUsage, type Block } from '../../conversation/index.js'
import {
  claudeBinary,
  codexBinary,
  geminiBinary,
  processGroup,
  type ModelResponse,
  type Provider,
} from '../../interpreters/index.js'
import { fn, llm, pty, type Node } from '../../node/index.js'
import type { CliAgent, MockReply, NetworkNode } from '../model/Network.js'
import { MissingBinary } from './NetworkError.js'

/**
 * The program's name and parser of each command-line agent, and where its
 * installed executable is.
 *
 * @category providers
 */
export const cliAgents: Readonly<
  Record<
    CliAgent,
    { readonly command: string; readonly parser: string; readonly binary: () => string }
  >
> = Object.freeze({
  'claude-cli': { command: 'claude', parser: 'claude', binary: claudeBinary },
  'codex-cli': { command: 'codex', parser: 'codex', binary: codexBinary },
  'gemini-cli': { command: 'gemini', parser: 'gemini', binary: geminiBinary },
})

/** How long a CLI agent node's turn may take: agents work for minutes. */
const CLI_TURN_MS = 10 * 60 * 1000

/**
 * A deterministic model answering `script` in turn; the last reply repeats.
 * An empty script answers `''`.
 *
 * @category providers
 * @example
 * import { mockProvider } from 'nerve-agents/network'
 * import assert from 'assert'
 *
 * const p = mockProvider('m', ['one', { text: 'two' }])
 * const ask = () => p.call({ system: '', messages: [], tools: [] }, { signal: new AbortController().signal })
 * const texts = [await ask(), await ask(), await ask()].map((r) => r.content[0])
 * assert.deepStrictEqual(texts.map((b) => b?.type === 'text' && b.text), ['one', 'two', 'two'])
 */
export const mockProvider = (name: string, script: readonly MockReply[]): Provider => {
  let calls = 0
  return {
    name,
    call(_request, options): Promise<ModelResponse> {
      options.signal.throwIfAborted()
      const index = calls++
      const reply: MockReply = script[Math.min(index, script.length - 1)] ?? ''
      const turn = typeof reply === 'string' ? { text: reply } : reply
      const content: Block[] = []
      if (turn.text !== undefined) content.push({ type: 'text', text: turn.text })
      ;(turn.tools ?? []).forEach((t, i) =>
        content.push({ type: 'tool_use', id: `mock_${index}_${i}`, name: t.name, input: t.input }),
      )
      for (const b of content)
        if (b.type === 'text') options.onDelta?.({ type: 'text', text: b.text })
      return Promise.resolve({
        content,
        stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        usage: zeroUsage,
        model: name,
      })
    },
  }
}

/**
 * What a `command` node answers: the exit code and the output (stdout and
 * stderr together, the last 64 KiB).
 *
 * @category providers
 */
export interface CommandResult {
  readonly exitCode: number
  readonly output: string
}

const MAX_OUTPUT = 64 * 1024
const KILL_GRACE_MS = 2000

/**
 * Runs `command` with `bash -c` in `cwd`, in a process group of its own;
 * resolves with its exit code and output (never rejects for a non-zero
 * exit). Aborting `signal` ends the whole group (`SIGINT`, then `SIGKILL`
 * after a grace period — a verifier's `npm test` and whatever it started,
 * not only bash) and rejects with the signal's reason once it is gone;
 * `timeoutMs` passing ends the group the same way (`SIGTERM` first) and
 * resolves with exit code 124, as `timeout(1)` does.
 *
 * @category providers
 */
export const runCommand = (
  command: string,
  cwd: string,
  signal: AbortSignal = new AbortController().signal,
  timeoutMs = 60_000,
): Promise<CommandResult> =>
  new Promise((resolvePromise, reject) => {
    signal.throwIfAborted()
    const child = spawn('bash', ['--norc', '--noprofile', '-c', command], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SHLVL: '1' },
      detached: true,
    })
    const group = processGroup(child.pid, KILL_GRACE_MS)
    let output = ''
    let stopping: 'aborted' | 'timedOut' | undefined
    const stop = (why: 'aborted' | 'timedOut', sig: NodeJS.Signals): void => {
      if (group.stop(sig)) stopping = why
    }
    const onAbort = (): void => {
      stop('aborted', 'SIGINT')
    }
    const timer = setTimeout(() => {
      stop('timedOut', 'SIGTERM')
    }, timeoutMs)
    signal.addEventListener('abort', onAbort, { once: true })
    const take = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
      if (output.length > MAX_OUTPUT * 2) output = output.slice(-MAX_OUTPUT)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    const done = (): void => {
      group.closed()
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
    child.once('error', (e) => {
      done()
      reject(e)
    })
    child.once('exit', group.exited)
    child.once('close', (code, sig) => {
      done()
      if (stopping === 'aborted') {
        reject(signal.reason as Error)
        return
      }
      resolvePromise({
        exitCode: stopping === 'timedOut' ? 124 : (code ?? (sig === null ? 1 : 128)),
        output: output.length > MAX_OUTPUT ? output.slice(-MAX_OUTPUT) : output,
      })
    })
  })

/**
 * Whether `command` names an executable: a path, or a name found in a
 * directory of `PATH`. Resolves with its full path, or `undefined`.
 *
 * @category providers
 */
export const findExecutable = async (
  command: string,
  path = process.env.PATH ?? '',
): Promise<string | undefined> => {
  const candidates = command.includes('/')
    ? [resolve(command)]
    : path
        .split(delimiter)
        .filter((d) => d !== '' && isAbsolute(d))
        .map((d) => join(d, command))
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK)
      return c
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * Checks that a node's command-line agent is installed (its `command`, else
 * the installed program); rejects with {@link MissingBinary} if not. Other
 * providers pass.
 *
 * @category providers
 */
export const checkProvider = async (node: NetworkNode): Promise<void> => {
  const p = node.provider
  if (p.type !== 'cli') return
  const command = p.command ?? cliAgents[p.agent].binary()
  if ((await findExecutable(command)) === undefined)
    throw new MissingBinary(node.id, command, p.agent)
}

/** The provider name a mock node's LLM node uses. */
export const mockName = (nodeId: string): string => `mock.${nodeId}`

/**
 * The session node that does a network node's work: an LLM node (mock and
 * API providers), a pty node of the CLI agent (the program's name or the
 * given command, its parser; a run starts it in the home it prepares, on
 * its model proxy), or a function node running the command in the
 * workspace.
 *
 * @category providers
 */
export const sessionNodeOf = (node: NetworkNode, root: string): Node => {
  const p = node.provider
  const metadata = { network_role: node.role }
  switch (p.type) {
    case 'mock':
    case 'llm':
      return llm(node.id, {
        provider: p.type === 'mock' ? mockName(node.id) : p.provider,
        system: node.system,
        tools: [...node.tools],
        metadata,
        ...(p.type === 'llm' && p.model !== undefined && { model: p.model }),
      })
    case 'cli': {
      const agent = cliAgents[p.agent]
      return pty(node.id, {
        command: p.command ?? agent.command,
        args: [...(p.args ?? [])],
        cwd: root,
        parser: agent.parser,
        timeoutMs: CLI_TURN_MS,
        metadata,
      })
    }
    case 'command': {
      const command = p.command
      return fn(node.id, (ctx) => runCommand(command, root, ctx.signal), { metadata })
    }
  }
}

/**
 * A progress probe for a git workspace (the `progress` option of
 * `startNetwork`): the digest is the tree the working copy would commit
 * (tracked and untracked files, by content, through a temporary index — the
 * repository's own index is not touched), the summary `git status --short`.
 *
 * @category providers
 */
export const gitProgress =
  (root: string) => async (): Promise<{ readonly digest: string; readonly summary: string }> => {
    const tree = await runCommand(
      'tmp=$(mktemp) && rm -f "$tmp" && GIT_INDEX_FILE="$tmp" git add -A >/dev/null 2>&1 && GIT_INDEX_FILE="$tmp" git write-tree; s=$?; rm -f "$tmp"; exit $s',
      root,
    )
    const status = await runCommand('git status --short', root)
    return { digest: tree.output.trim(), summary: status.output.trim() }
  }
