import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import {
  addStep,
  bash,
  type BashNode,
  defaultInterpreters,
  graph,
  run,
  type RunEvent,
  stream,
  type StreamEvent,
  UsageError,
} from 'nerve-agents'
import { type NodeContext, nodeRegistry } from 'nerve-agents/core'
import {
  type BashChunk,
  BashFailed,
  bashInterpreter,
  bashInterpreterWith,
  type BashResult,
  BashSpawnFailed,
} from 'nerve-agents/interpreters'
import { gone, goneSoon } from '../processes.js'

const ctxOf = (input?: unknown, signal = new AbortController().signal): NodeContext =>
  ({ input, signal }) as NodeContext

const execute = (node: BashNode, input?: unknown, signal?: AbortSignal): Promise<BashResult> =>
  bashInterpreter.execute!(node, ctxOf(input, signal)) as Promise<BashResult>

const failureOf = async (work: Promise<unknown>): Promise<BashFailed> => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(BashFailed)
  return error as BashFailed
}

const lifecycle = { signal: new AbortController().signal, session: nodeRegistry() }

/** A command that starts a background `sleep`, prints its pid, and waits for it. */
const withChild = 'sleep 30 & echo $!; wait'

describe('bashInterpreter.execute', () => {
  it('returns stdout, stderr and the exit code of the command', async () => {
    const r = await execute(bash('b', { command: 'echo out; echo err >&2' }))
    expect(r).toMatchObject({
      stdout: 'out\n',
      stderr: 'err\n',
      exitCode: 0,
      signal: null,
      interrupted: false,
      timedOut: false,
      stdoutTruncated: false,
      stderrTruncated: false,
    })
    expect(r.durationMs).toBeGreaterThanOrEqual(0)
    expect(Object.isFrozen(r)).toBe(true)
  })

  it('fails with BashFailed carrying the result when the exit code is not 0', async () => {
    const e = await failureOf(
      execute(bash('b', { command: 'echo partial; echo boom >&2; exit 3' })),
    )
    expect(e._tag).toBe('BashFailed')
    expect(e.nodeId).toBe('b')
    expect(e.result).toMatchObject({ stdout: 'partial\n', stderr: 'boom\n', exitCode: 3 })
    expect(e.message).toBe('bash node "b": the command exited with code 3: boom')
  })

  it('returns a failed result as a value when the node allows failure', async () => {
    const r = await execute(bash('b', { command: 'exit 4', allowFailure: true }))
    expect(r.exitCode).toBe(4)
  })

  it('runs the step input when the node has no command, and its own command when it has one', async () => {
    expect((await execute(bash('b'), 'echo from input')).stdout).toBe('from input\n')
    expect((await execute(bash('b', { command: 'echo mine' }), 'echo ignored')).stdout).toBe(
      'mine\n',
    )
  })

  it('rejects with a UsageError when there is no command at all', async () => {
    await expect(execute(bash('b'), 42)).rejects.toThrow(UsageError)
    await expect(execute(bash('b'), 42)).rejects.toThrow(/node "b" has no command/)
  })

  it('runs in the given cwd with the given env over the process environment', async () => {
    const r = await execute(
      bash('b', {
        command: 'pwd; echo "$GREETING"; command -v ls >/dev/null && echo has-path; echo "$SHLVL"',
        cwd: '/tmp',
        env: { GREETING: 'hello there' },
      }),
    )
    const [cwd, greeting, path, shlvl] = r.stdout.trimEnd().split('\n')
    expect([cwd, greeting, path]).toEqual(['/tmp', 'hello there', 'has-path'])
    expect(Number(shlvl)).toBeGreaterThanOrEqual(1)
  })

  it('rejects with BashSpawnFailed when bash cannot start in the cwd', async () => {
    const work = execute(bash('b', { command: 'true', cwd: '/no/such/dir' }))
    await expect(work).rejects.toThrow(BashSpawnFailed)
    await expect(work).rejects.toThrow(
      'could not start bash in /no/such/dir: the working directory does not exist (or is not a directory)',
    )
  })

  it('ends a command that runs past timeoutMs and says it timed out', async () => {
    const e = await failureOf(execute(bash('slow', { command: 'sleep 30', timeoutMs: 50 })))
    expect(e.result).toMatchObject({ timedOut: true, interrupted: false, exitCode: null })
    expect(e.result.signal).toBe('SIGTERM')
    expect(e.message).toMatch(/timed out after 50 ms/)
  })

  it('kills the whole process group on timeout, background children included', async () => {
    const e = await failureOf(execute(bash('slow', { command: withChild, timeoutMs: 100 })))
    expect(e.result.timedOut).toBe(true)
    const child = Number(e.result.stdout.trim())
    expect(child).toBeGreaterThan(0)
    expect(await goneSoon(child)).toBe(true)
  })

  it('does not start the command when the signal is already aborted', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(
      execute(bash('b', { command: 'echo no' }), undefined, controller.signal),
    ).rejects.toThrow('stop')
  })

  it('keeps the first maxOutputBytes bytes of each stream and marks the cut', async () => {
    const r = await execute(
      bash('big', {
        command: "head -c 5000 /dev/zero | tr '\\0' a; printf 'éééé' >&2",
        maxOutputBytes: 1000,
      }),
    )
    expect(r.stdout).toBe('a'.repeat(1000))
    expect(r.stdoutTruncated).toBe(true)
    // 8 bytes of stderr cut at 1000: untouched
    expect([r.stderr, r.stderrTruncated]).toEqual(['éééé', false])
    const cut = await execute(bash('cut', { command: "printf 'ééé'", maxOutputBytes: 5 }))
    expect([cut.stdout, cut.stdoutTruncated]).toEqual(['éé', true])
  })
})

describe('bashInterpreter.executeStream', () => {
  const streamOf = (node: BashNode, signal?: AbortSignal) =>
    bashInterpreter.executeStream!(node, ctxOf(undefined, signal))[Symbol.asyncIterator]()

  it('yields the output in order and returns the result', async () => {
    const it = streamOf(
      bash('count', {
        command: 'for i in 1 2 3 4 5; do echo "line $i"; sleep 0.01; done; echo done >&2',
      }),
    )
    const chunks: BashChunk[] = []
    let r = await it.next()
    while (r.done !== true) {
      chunks.push(r.value as BashChunk)
      r = await it.next()
    }
    const out = chunks.filter((c) => c.stream === 'stdout').map((c) => c.data)
    expect(out.join('')).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n')
    expect(chunks.filter((c) => c.stream === 'stderr').map((c) => c.data)).toEqual(['done\n'])
    expect((r.value as BashResult).stdout).toBe(out.join(''))
  })

  it('gives a slow reader all the output of a command that prints more than it buffers', async () => {
    const it = streamOf(bash('many', { command: 'seq 1 400000' }))
    let text = ''
    let r = await it.next()
    while (r.done !== true) {
      text += (r.value as BashChunk).data
      await new Promise((resolve) => setImmediate(resolve))
      r = await it.next()
    }
    const lines = text.trimEnd().split('\n')
    expect(lines.length).toBe(400000)
    expect(lines[399999]).toBe('400000')
  })

  it('interrupts the whole process group when the signal aborts', async () => {
    const controller = new AbortController()
    const it = streamOf(bash('wait', { command: withChild }), controller.signal)
    const first = await it.next()
    const child = Number((first.value as BashChunk).data.trim())
    expect(gone(child)).toBe(false)
    controller.abort()
    const e = await failureOf(
      (async () => {
        while ((await it.next()).done !== true);
      })(),
    )
    expect(e.result.interrupted).toBe(true)
    expect(e.message).toMatch(/was interrupted/)
    expect(await goneSoon(child)).toBe(true)
  })

  it('ends the command when the reader leaves early', async () => {
    const it = streamOf(bash('wait', { command: withChild }))
    const child = Number(((await it.next()).value as BashChunk).data.trim())
    await it.return!(undefined)
    expect(await goneSoon(child)).toBe(true)
  })
})

describe('bash steps in a graph', () => {
  it('run with the default interpreters, their output streamed as step_chunk events', async () => {
    const g = pipe(
      graph('g'),
      addStep({ id: 'hello', node: bash('hello', { command: 'echo one; echo two' }) }),
      addStep({ id: 'typed', node: bash('typed'), input: 'echo "$((6 * 7))"' }),
    )
    const events: RunEvent[] = []
    const { results } = await run(g, {
      interpreters: defaultInterpreters,
      onEvent: (e) => events.push(e),
    })
    expect((results.hello as BashResult).stdout).toBe('one\ntwo\n')
    expect((results.typed as BashResult).stdout).toBe('42\n')
    const chunks = events.flatMap((e) =>
      e.type === 'step_chunk' && e.stepId === 'hello' ? [e.chunk as BashChunk] : [],
    )
    expect(chunks.map((c) => c.data).join('')).toBe('one\ntwo\n')
  })

  it('fail the run with the BashFailed error as the step failure cause', async () => {
    const g = pipe(graph('g'), addStep({ id: 'bad', node: bash('bad', { command: 'exit 9' }) }))
    const seen: StreamEvent[] = []
    const error = await (async () => {
      for await (const e of stream(g, { interpreters: defaultInterpreters })) seen.push(e)
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ _tag: 'StepFailed', path: ['bad'] })
    const cause = (error as { cause: unknown }).cause
    expect(cause).toBeInstanceOf(BashFailed)
    expect((cause as BashFailed).result.exitCode).toBe(9)
    expect(seen.some((e) => e.type === 'step_error' && e.stepId === 'bad')).toBe(true)
  })
})

describe('bashInterpreter.fork', () => {
  it('copies the configuration under the new id, with forked_from and fork_time', async () => {
    const original = bash('build', {
      command: 'make',
      cwd: '/src',
      env: { CC: 'gcc' },
      timeoutMs: 1000,
      metadata: { team: 'a' },
    })
    const interpreter = bashInterpreterWith({ clock: { now: () => Date.UTC(2025, 0, 2, 3, 4, 5) } })
    const copy = await interpreter.fork!(original, 'build-2', lifecycle)
    expect(copy).toEqual({
      ...original,
      id: 'build-2',
      metadata: { team: 'a', forked_from: 'build', fork_time: '2025-01-02T03:04:05.000Z' },
    })
    expect(Object.isFrozen(copy)).toBe(true)
    expect(Object.isFrozen(copy.metadata)).toBe(true)
  })

  it('stamps the current time by default', async () => {
    const copy = await bashInterpreter.fork!(bash('b'), 'c', lifecycle)
    const time = copy.metadata.fork_time as string
    expect(new Date(time).toISOString()).toBe(time)
  })
})
