import * as E from 'fp-ts/lib/Either.js'
import { isNameTemplate, namePattern, validateName } from '../node/name.js'
import { policyProblems, type PolicyProblem } from './ErrorPolicy.js'
import type { GraphError } from './GraphError.js'
import { NO_DEPS, NO_LINKS, type PlainStep, type Step } from './Step.js'

/** Why a string is not a name (empty when it is one). @internal */
export const reasonOf = (name: string): string => {
  const checked = validateName(name)
  return E.isLeft(checked) ? checked.left.reason : ''
}

/**
 * The errors of one step that need no other step: its id, node and nodeRef,
 * inputs, options, policy, link handles and repeated dependencies (looked
 * for only when `repeats`: the caller, which has resolved the dependencies
 * to indices, knows it cheaply). Computed once, when the step is added;
 * `undefined` when there are none.
 *
 * @internal
 */
export const stepProblems = (
  step: Step | PlainStep,
  index: number,
  repeats: boolean,
): readonly GraphError[] | undefined => {
  const raw = step as {
    id: string
    node?: unknown
    nodeRef?: unknown
    input?: unknown
    inputFn?: unknown
    timeoutMs?: unknown
    parser?: unknown
  }
  // The common case, a valid step, allocates nothing.
  const idOk = namePattern.test(raw.id)
  const targetOk = (raw.node === undefined) !== (raw.nodeRef === undefined)
  const refOk = typeof raw.nodeRef !== 'string' || isNameTemplate(raw.nodeRef)
  const inputOk = raw.input === undefined || raw.inputFn === undefined
  const timeoutOk =
    raw.timeoutMs === undefined ||
    (typeof raw.timeoutMs === 'number' && raw.timeoutMs > 0 && raw.timeoutMs < Infinity)
  const parserOk = typeof raw.parser !== 'string' || namePattern.test(raw.parser)
  const policy =
    step.onError === undefined || step.onError._tag === 'fail'
      ? NO_PROBLEMS
      : policyProblems(step.onError)
  const repeated = repeats ? repeatedOf(step.dependsOn ?? NO_DEPS) : NONE
  const links = step.links ?? NO_LINKS
  let handlesOk = true
  for (const handle in links) if (!namePattern.test(handle)) handlesOk = false
  if (
    idOk &&
    targetOk &&
    refOk &&
    inputOk &&
    timeoutOk &&
    parserOk &&
    handlesOk &&
    policy.length === 0 &&
    repeated.length === 0
  ) {
    return undefined
  }
  const path = [raw.id]
  const errors: GraphError[] = []
  if (!idOk)
    errors.push({ _tag: 'InvalidStepId', path, stepId: raw.id, index, reason: reasonOf(raw.id) })
  if (!targetOk)
    errors.push({ _tag: raw.node === undefined ? 'MissingNode' : 'NodeAndNodeRef', path })
  if (!refOk) {
    const nodeRef = raw.nodeRef as string
    errors.push({ _tag: 'InvalidNodeRef', path, nodeRef, reason: reasonOf(nodeRef) })
  }
  if (!inputOk) errors.push({ _tag: 'BothInputs', path })
  if (!timeoutOk) {
    errors.push({
      _tag: 'InvalidStepOption',
      path,
      field: 'timeoutMs',
      reason: `must be a finite number > 0, got ${String(raw.timeoutMs)}`,
    })
  }
  if (!parserOk) {
    const parser = raw.parser as string
    errors.push({ _tag: 'InvalidStepOption', path, field: 'parser', reason: reasonOf(parser) })
  }
  for (const p of policy) {
    errors.push({ _tag: 'InvalidStepOption', path, field: `onError.${p.field}`, reason: p.reason })
  }
  for (const handle in links) {
    if (!namePattern.test(handle)) {
      errors.push({
        _tag: 'InvalidStepOption',
        path,
        field: `links.${handle}`,
        reason: `is not a valid handle: it ${reasonOf(handle)}`,
      })
    }
  }
  for (const dependency of repeated) {
    errors.push({ _tag: 'DuplicateDependency', path, dependency })
  }
  return Object.freeze(errors)
}

const NO_PROBLEMS: readonly PolicyProblem[] = Object.freeze([])
const NONE: readonly string[] = Object.freeze([])

/** The ids listed more than once, each once, in the order of their second listing. */
const repeatedOf = (ids: readonly string[]): readonly string[] => {
  if (ids.length < 2) return NONE
  if (ids.length <= 8) {
    // Short lists, the usual case: compare pairs rather than allocate sets.
    let out: string[] | undefined
    for (let k = 1; k < ids.length; k++) {
      const id = ids[k]!
      for (let m = 0; m < k; m++) {
        if (ids[m] !== id) continue
        if (out === undefined) out = [id]
        else if (!out.includes(id)) out.push(id)
        break
      }
    }
    return out ?? NONE
  }
  const seen = new Set<string>()
  const out = new Set<string>()
  for (const id of ids) {
    if (seen.has(id)) out.add(id)
    else seen.add(id)
  }
  return out.size === 0 ? NONE : [...out]
}
