/**
 * After a firing: its result becomes envelopes (a handoff, an auto node's
 * message, a command's status, an error), artifacts are stored, the
 * acceptance check runs, Done ends the node (else an auto node outside a
 * loop of the network owes itself its next tick), and stall detection watches
 * the loop — the same output or error digest, or no file change, too many
 * times in a row halts it with a {@link StallError}.
 *
 * @internal
 */
import type { EnvelopeKind, Payload } from '../model/Envelope.js'
import { answerOf, digestOf } from './firing.js'
import type { NetworkNode } from '../model/Network.js'
import { StallError } from './NetworkError.js'
import { runCommand } from './providers.js'
import { type NodeRun, type RunState } from './runState.js'

/** Turns a firing's result into envelopes, Done, and stall checks. */
export const settle = async (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
  causes: readonly string[],
  output: unknown,
  failure: unknown,
): Promise<void> => {
  const store = s.options.artifacts
  const artifacts = st.written.splice(0)
  if (failure !== undefined) {
    const cause = (failure as { cause?: unknown }).cause ?? failure
    const message = cause instanceof Error ? cause.message : JSON.stringify(cause)
    if ((failure as { _tag?: string })._tag === 'BudgetExceeded') {
      s.halt([node.id], failure as Error)
    }
    s.send(node.id, 'error', { message }, causes)
    checkStall(s, node, st, `error:${message}`, 'same-error', message)
    continueLoop(s, node, st)
    return
  }
  const answer = answerOf(output)
  if (store !== undefined) {
    const type = node.provider.type === 'command' ? 'log' : 'report'
    const info = await store.put(type, answer.text, { nodeId: node.id })
    artifacts.push({ type: info.type, ref: info.ref })
  }
  let done = answer.done
  if (node.acceptance !== undefined) {
    const check = await runCommand(
      node.acceptance.command,
      s.options.root,
      s.abort.signal,
      node.acceptance.timeoutMs,
    )
    const verdict = `verification: \`${node.acceptance.command}\` exited ${check.exitCode}\n${check.output.slice(-2000)}`
    if (store !== undefined) {
      const info = await store.put('verification', verdict, { nodeId: node.id })
      artifacts.push({ type: info.type, ref: info.ref })
    }
    if (check.exitCode === 0) done = true
    else st.notes.push(verdict)
  }
  const payload: Payload = {
    message: answer.text,
    ...(answer.structured !== undefined && { structured: answer.structured }),
    ...(artifacts.length > 0 && { artifacts }),
  }
  if (done) {
    s.send(node.id, 'done', payload, causes)
    s.finish(node.id, st, node.acceptance !== undefined ? 'acceptance passed' : 'Done signal')
    return
  }
  const kind: EnvelopeKind =
    node.provider.type === 'command' ? 'status' : node.mode === 'auto' ? 'message' : 'handoff'
  s.send(node.id, kind, payload, causes)
  const stalled = checkStall(
    s,
    node,
    st,
    `${answer.failed ? 'error' : 'output'}:${answer.text}`,
    answer.failed ? 'same-error' : 'same-output',
    answer.text,
  )
  if (!stalled && node.mode === 'auto') await checkProgress(s, node, st)
  continueLoop(s, node, st)
}

/**
 * An auto node's loop goes on until Done or its acceptance passes: one in a
 * loop of the network is woken by what comes back along it; one outside any
 * (no edges, or only edges out) schedules its own next tick, which carries
 * the failed check's verdict. Max iterations and stall detection bound it.
 */
const continueLoop = (s: RunState, node: NetworkNode, st: NodeRun): void => {
  if (node.mode !== 'auto' || st.done || st.halted !== undefined) return
  if (!s.loopOf.has(node.id)) st.owed = true
}

/** Reads the workspace after an auto iteration: no file change `stallAfter` times in a row halts the loop. */
const checkProgress = async (s: RunState, node: NetworkNode, st: NodeRun): Promise<void> => {
  if (s.options.progress === undefined) return
  const p = await s.options.progress()
  st.notes.push(`changes: ${p.summary === '' ? 'none' : p.summary}`)
  st.sameProgress = p.digest === st.lastProgress ? st.sameProgress + 1 : 0
  st.lastProgress = p.digest
  if (st.sameProgress < s.net.limits.stallAfter) return
  const loop = s.loopOf.get(node.id) ?? [node.id]
  s.halt(
    loop,
    new StallError(loop, {
      kind: 'no-file-changes',
      nodeId: node.id,
      digest: p.digest,
      count: st.sameProgress,
    }),
  )
}

/** Records a digest; the same one `stallAfter` times in a row in a loop halts it. */
const checkStall = (
  s: RunState,
  node: NetworkNode,
  st: NodeRun,
  text: string,
  kind: 'same-output' | 'same-error',
  sample: string,
): boolean => {
  const loop = s.loopOf.get(node.id) ?? (node.mode === 'auto' ? [node.id] : undefined)
  if (loop === undefined) return false
  const d = digestOf(text)
  st.digests.push(d)
  const n = s.net.limits.stallAfter
  if (st.digests.length > n) st.digests.shift()
  if (st.digests.length < n || st.digests.some((x) => x !== d)) return false
  s.halt(
    loop,
    new StallError(loop, {
      kind,
      nodeId: node.id,
      digest: d,
      count: n,
      sample: sample.slice(0, 200),
    }),
  )
  return true
}
