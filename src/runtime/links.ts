import { DONE, type GraphRun } from './GraphRun.js'
import { LinkCycle, UnknownLinkHandle } from './RunError.js'
import { StepContext } from './StepContext.js'

/**
 * Whether step `t` can only run after one of the steps in `stack` (it
 * depends on one, directly or not): waiting for `t` there would never end.
 */
const waitsOnStack = (run: GraphRun, t: number, stack: readonly number[]): boolean => {
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

const materialize = async (
  run: GraphRun,
  t: number,
  stack: readonly number[],
): Promise<unknown> => {
  await run.whenDone(t)
  const st = run.state
  st.materializations++
  const node = run.nodes[t]!
  const output = run.outputs[t]
  const interpreter = st.interpreters.get(node.kind)
  if (interpreter?.materialize === undefined) return output
  const ctx = new StepContext(run, t, run.inputs[t], run.signal, run.attemptsOf[t]!, stack)
  return interpreter.materialize(node, output, ctx)
}

const artifact = (run: GraphRun, t: number, stack: readonly number[]): Promise<unknown> => {
  const cycle = (): LinkCycle =>
    new LinkCycle(run.pathOf(stack[stack.length - 1]!), [
      ...stack.map((k) => run.ids[k]!),
      run.ids[t]!,
    ])
  if (stack.includes(t)) return Promise.reject(cycle())
  const cached = run.artifacts?.[t]
  if (cached !== undefined) {
    run.state.cacheHits++
    return cached
  }
  if (run.phase[t] !== DONE && waitsOnStack(run, t, stack)) return Promise.reject(cycle())
  const promise = materialize(run, t, [...stack, t])
  ;(run.artifacts ??= [])[t] = promise
  return promise
}

/**
 * What `ctx.resolveLinks(handle)` does: the artifacts of the steps the
 * step links to under `handle`, in order. An artifact is the linked step's
 * output passed through its interpreter's `materialize` (or the output
 * itself), made once per run and cached; a linked step that has not finished
 * is waited for. A link back to a step that is resolving its links (through
 * `materialize` calling `resolveLinks`), or to a step that can only run after
 * the asking one, is a `LinkCycle` with the path of step ids.
 *
 * @internal
 */
export const resolveLinks = (ctx: StepContext, handle: string): Promise<readonly unknown[]> => {
  const run = ctx.run
  const links = run.steps[ctx.index]!.links
  const targets = Object.hasOwn(links, handle) ? links[handle] : undefined
  if (targets === undefined) return Promise.reject(new UnknownLinkHandle(ctx.path, handle))
  const stack = ctx.linkStack ?? [ctx.index]
  const st = run.state
  if (stack.length > st.linkDepth) st.linkDepth = stack.length
  return Promise.all(targets.map((id) => artifact(run, run.compiled.indexOf(id), stack))).then(
    (artifacts) => Object.freeze(artifacts),
  )
}
