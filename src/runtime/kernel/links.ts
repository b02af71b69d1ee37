import { LinkCycle, UnknownLinkHandle } from '../RunError.js'
import { DONE, PENDING } from './phase.js'
import { StepContext } from './StepContext.js'
import type { LinkAsker, StepHost } from './StepHost.js'

/**
 * Whether step `t` can only run after one of the steps in `stack` (it
 * depends on one, directly or not): waiting for `t` there would never end.
 */
const waitsOnStack = (run: StepHost, t: number, stack: readonly number[]): boolean => {
  const { offsets, targets } = run.compiled.dependencies
  const seen = new Set<number>([t])
  const todo = [t]
  while (todo.length > 0) {
    const s = todo.pop()!
    if (stack.includes(s)) return true
    if (run.phase[s] === DONE) continue
    for (let k = offsets[s]!; k < offsets[s + 1]!; k++) {
      const d = targets[k]!
      if (!seen.has(d)) {
        seen.add(d)
        todo.push(d)
      }
    }
  }
  return false
}

/**
 * The wait-for cycle that `waiter` waiting for `t` would close, as step
 * indices `[waiter, t, …, waiter]`, or `undefined`. A step waits for what
 * its pending link resolutions wait for (`run.linkWaits`), and a step that
 * has not started waits for its unfinished dependencies; a running step
 * that is not resolving links waits for nothing.
 */
const waitCycle = (run: StepHost, waiter: number, t: number): number[] | undefined => {
  const { offsets, targets } = run.compiled.dependencies
  const waits = run.linkWaits
  const from = new Map<number, number>([[t, waiter]])
  const todo = [t]
  while (todo.length > 0) {
    const x = todo.pop()!
    const next = (y: number): number[] | undefined => {
      if (y === waiter) {
        const path = [waiter]
        for (let k = x; k !== waiter; k = from.get(k)!) path.push(k)
        path.push(waiter)
        // path is [waiter, x, …, t, waiter]: the middle runs backwards.
        return [waiter, ...path.slice(1, -1).reverse(), waiter]
      }
      if (!from.has(y)) {
        from.set(y, x)
        todo.push(y)
      }
      return undefined
    }
    const own = waits?.[x]
    if (own !== undefined) {
      for (const y of own) {
        const found = next(y)
        if (found !== undefined) return found
      }
    }
    if (run.phase[x] === PENDING) {
      for (let k = offsets[x]!; k < offsets[x + 1]!; k++) {
        const d = targets[k]!
        if (run.phase[d] === DONE) continue
        const found = next(d)
        if (found !== undefined) return found
      }
    }
  }
  return undefined
}

/** The artifact of step `t`, finished: its output through its interpreter's `materialize`. */
const materializeDone = (run: StepHost, t: number, stack: readonly number[]): Promise<unknown> => {
  const st = run.state
  // The graph may have stopped between `t` finishing and this continuation: nothing new starts.
  if (run.stopped !== undefined) return Promise.reject(run.stopped)
  st.materializations++
  const node = run.nodes[t]!
  const output = run.outputs[t]
  const interpreter = st.interpreters.get(node.kind)
  if (interpreter?.materialize === undefined) return Promise.resolve(output)
  const ctx = new StepContext(run, t, run.inputs[t], undefined, run.attemptsOf[t]!, stack)
  try {
    return Promise.resolve(interpreter.materialize(node, output, ctx))
  } catch (e) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- pass on what was thrown
    return Promise.reject(e)
  }
}

/** The artifact of step `t`, once it has finished (at once when it has). */
const materialize = (run: StepHost, t: number, stack: readonly number[]): Promise<unknown> =>
  run.phase[t] === DONE
    ? materializeDone(run, t, stack)
    : run.whenDone(t).then(() => materializeDone(run, t, stack))

const artifact = (run: StepHost, t: number, stack: readonly number[]): Promise<unknown> => {
  const waiter = stack[stack.length - 1]!
  const cycle = (ids: readonly string[]): LinkCycle => new LinkCycle(run.pathOf(waiter), ids)
  if (stack.includes(t)) return Promise.reject(cycle([...stack, t].map((k) => run.ids[k]!)))
  if (run.phase[t] !== DONE && waitsOnStack(run, t, stack)) {
    return Promise.reject(cycle([...stack, t].map((k) => run.ids[k]!)))
  }
  const closed = waitCycle(run, waiter, t)
  if (closed !== undefined) return Promise.reject(cycle(closed.map((k) => run.ids[k]!)))
  const cached = run.artifacts?.[t]
  if (cached !== undefined) {
    run.state.cacheHits++
    return cached
  }
  const promise = materialize(run, t, [...stack, t])
  ;(run.artifacts ??= [])[t] = promise
  return promise
}

const forget = (run: StepHost, waiter: number, waited: readonly number[]): void => {
  const own = run.linkWaits![waiter]!
  for (const t of waited) own.splice(own.indexOf(t), 1)
}

/**
 * What `ctx.resolveLinks(handle)` does: the artifacts of the steps the
 * step links to under `handle`, in order. An artifact is the linked step's
 * output passed through its interpreter's `materialize` (or the output
 * itself), made once per run and cached; a linked step that has not finished
 * is waited for. When one fails, the answer is its error, once every
 * artifact asked for has settled.
 *
 * Links never hang a run. A link back to a step that is resolving its links
 * (through `materialize` calling `resolveLinks`), to a step that can only
 * run after the asking one, or one that closes a cycle of waits among
 * resolving steps (a links b while b links a; x links y, y depends on z, z
 * links x) is a `LinkCycle` with the path of step ids, at once. While it
 * waits for a step that has not finished, the asking step gives its slot
 * back (so the step it waits for can start at `maxParallel: 1`), and takes
 * one again before its answer arrives.
 *
 * @internal
 */
export const resolveLinks = (
  run: StepHost,
  ctx: LinkAsker,
  handle: string,
): Promise<readonly unknown[]> => {
  const links = run.steps[ctx.index]!.links
  const targets = Object.hasOwn(links, handle) ? links[handle] : undefined
  if (targets === undefined) return Promise.reject(new UnknownLinkHandle(ctx.path, handle))
  const stack = ctx.linkStack ?? [ctx.index]
  const st = run.state
  if (stack.length > st.linkDepth) st.linkDepth = stack.length
  const waiter = stack[stack.length - 1]!
  const artifacts: Promise<unknown>[] = []
  const waited: number[] = []
  let blocks = false
  for (const id of targets) {
    const t = run.compiled.indexOf(id)
    const a = artifact(run, t, stack)
    artifacts.push(a)
    ;((run.linkWaits ??= [])[waiter] ??= []).push(t)
    waited.push(t)
    if (run.phase[t] !== DONE) blocks = true
  }
  // Waits for every artifact, even after one failed: the asking step is
  // still waiting while the others materialize (and report their usage).
  const all =
    artifacts.length === 1
      ? artifacts[0]!.then((value) => [value])
      : Promise.allSettled(artifacts).then((settled) =>
          settled.map((r) => {
            if (r.status === 'rejected') throw r.reason
            return r.value
          }),
        )
  // The asking step is the first of the stack: it runs while the rest materialize.
  const asker = stack[0]!
  if (blocks) run.releaseSlot(asker)
  /** Takes the slot back, then goes on — unless the graph stopped meanwhile: then the step ends here. */
  const resume = <T>(go: () => T): T | Promise<T> => {
    const slot = blocks ? run.takeSlot(asker) : undefined
    const after = (): T => {
      if (run.stopped !== undefined) throw run.stopped
      return go()
    }
    return slot === undefined ? after() : slot.then(after)
  }
  return all.then(
    (values) => {
      forget(run, waiter, waited)
      const frozen = Object.freeze(values)
      return resume(() => frozen)
    },
    (error: unknown) => {
      forget(run, waiter, waited)
      return resume(() => {
        throw error
      })
    },
  )
}
