/**
 * `nerve approvals`, `nerve approve ID`, `nerve deny ID`: the approval
 * requests waiting on the daemon — CLI agents' permission prompts, tool
 * calls and gates of runs, networks' high-risk actions — and the decisions
 * on them; and the lines a foreground command prints while one waits.
 */
import { createInterface } from 'node:readline/promises'
import type { NerveClient } from '../../client/index.js'
import type { ApprovalRequestJson } from '../../protocol/index.js'
import { CliError, print, withClient, type GlobalOptions } from '../context.js'

/** Who asks: the network's run or the node, in the session it runs in. */
const who = (r: ApprovalRequestJson): string =>
  r.runId !== undefined ? `${r.runId}/${r.nodeId}` : r.nodeId

/** One waiting request as a person reads it: `approval-3  cl wants Bash: echo hi > a.txt`. */
export const requestLine = (r: ApprovalRequestJson): string =>
  `${r.id}  ${who(r)} wants ${r.action}${r.target === '' ? '' : `: ${r.target}`}${r.risk === undefined ? '' : ` (${r.risk} risk)`}`

/** The hint printed under a request that waits. */
const hint = (r: ApprovalRequestJson): string =>
  `  answer: nerve approve ${r.id} | nerve deny ${r.id}`

/** `nerve approvals`: the requests waiting, oldest first. */
export const list = (
  o: GlobalOptions & { readonly node?: string; readonly network?: string },
): Promise<void> =>
  withClient(o, async (c) => {
    const pending = await c.approvals({
      ...(o.session !== undefined && { sessionId: o.session }),
      ...(o.node !== undefined && { nodeId: o.node }),
      ...(o.network !== undefined && { networkId: o.network }),
    })
    print(o, { pending }, (p) =>
      p.pending.length === 0 ? 'no approvals waiting' : p.pending.map(requestLine).join('\n'),
    )
  })

export interface DecideOptions extends GlobalOptions {
  readonly note?: string
  readonly arguments?: string
}

/** The edited arguments of `--arguments JSON`: an object. */
const argumentsOf = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      'BadOption',
      '--arguments must be a JSON object',
      '--arguments',
      'invalidInput',
    )
  }
  return value as Record<string, unknown>
}

/** `nerve approve ID [--note TEXT] [--arguments JSON]`, `nerve deny ID [--note TEXT]`. */
export const decide =
  (how: 'approve' | 'deny') =>
  (id: string, o: DecideOptions): Promise<void> =>
    withClient(o, async (c) => {
      const args = argumentsOf(o.arguments)
      const answer = {
        ...(process.env.USER !== undefined && { by: process.env.USER }),
        ...(o.note !== undefined && { note: o.note }),
      }
      if (how === 'approve')
        await c.approve(id, { ...answer, ...(args !== undefined && { arguments: args }) })
      else await c.deny(id, answer)
      print(
        o,
        { decided: true, requestId: id },
        () => `${how === 'approve' ? 'Approved' : 'Denied'} ${id}`,
      )
    })

/**
 * How a command answers the requests of a run in its own process, which no
 * other command can reach: on a terminal, it asks on it (`y` or `n`; with
 * `pause`, what draws on the terminal holds still meanwhile); else it
 * denies at once, its note (in the step's error) saying to run on the
 * daemon. A request a policy decided
 * is not asked. `close` drops a question still open (the run ended).
 */
export const answeringHere = (c: NerveClient, pause: () => () => void = () => () => undefined) => {
  const stop = new AbortController()
  let queue = Promise.resolve()
  const by = process.env.USER ?? 'nerve'
  const ask = async (r: ApprovalRequestJson): Promise<void> => {
    if (!(await c.approvals()).some((p) => p.id === r.id)) return
    if (!process.stdin.isTTY) {
      const note = 'no terminal to answer on: run with --server and answer with nerve approve'
      await c.deny(r.id, { by: 'nerve', note })
      return
    }
    const resume = pause()
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false })
    try {
      let text = `approve? ${requestLine(r)}\n  answer here: y (approve) or n (deny) `
      let a = ''
      while (!['y', 'yes', 'n', 'no'].includes(a)) {
        a = (await rl.question(text, { signal: stop.signal })).trim().toLowerCase()
        text = '  y or n? '
      }
      if (a.startsWith('y')) await c.approve(r.id, { by })
      else await c.deny(r.id, { by })
    } finally {
      rl.close()
      resume()
    }
  }
  return {
    answer: (r: ApprovalRequestJson): void => {
      queue = queue
        .then(() => ask(r))
        .catch((e: unknown) => {
          if (!stop.signal.aborted) process.stderr.write(`  ${r.id} not answered: ${String(e)}\n`)
        })
    },
    close: (): void => {
      stop.abort()
    },
  }
}

/**
 * While `work` runs, prints each approval request that `mine` picks (a
 * node's, a run's) to stderr, with how to answer it, as it comes; on a
 * connection that carries no events, prints nothing. A request `mine` does
 * not pick yet is kept: `work` calls `recheck` once what `mine` reads
 * changed (a run id now known). With `answer` (a run in this process, see
 * {@link answeringHere}), each request goes to it instead.
 */
export const printingRequests = async <A>(
  c: NerveClient,
  mine: (request: ApprovalRequestJson) => boolean,
  work: (recheck: () => void) => Promise<A>,
  answer?: (request: ApprovalRequestJson) => void,
): Promise<A> => {
  if (!c.carriesEvents) return work(() => undefined)
  const sub = await c.subscribe({ types: ['APPROVAL_REQUESTED'] })
  let kept: ApprovalRequestJson[] = []
  const recheck = (): void => {
    for (const r of kept.filter(mine)) {
      if (answer !== undefined) answer(r)
      else process.stderr.write(`approve? ${requestLine(r)}\n${hint(r)}\n`)
    }
    kept = kept.filter((r) => !mine(r))
  }
  const shown = (async () => {
    for await (const e of sub) {
      if (e.type !== 'APPROVAL_REQUESTED') continue
      kept.push(e.request)
      recheck()
    }
  })().catch(() => undefined)
  try {
    return await work(recheck)
  } finally {
    await sub.unsubscribe()
    await shown
  }
}
