/**
 * What a REPL line means, and how it completes — pure, so every rule is
 * tested without a terminal. `@node text` executes on a node; `:word …`
 * is a REPL command.
 */

/** One line, understood. */
export type ReplCommand =
  | { readonly type: 'none' }
  | { readonly type: 'execute'; readonly nodeId: string; readonly input: string }
  | { readonly type: 'nodes' }
  | { readonly type: 'help' }
  | { readonly type: 'quit' }
  | {
      readonly type: 'create'
      readonly nodeId: string
      readonly kind: string
      readonly options: Record<string, unknown>
    }
  | { readonly type: 'fork'; readonly source: string; readonly target: string | undefined }
  | { readonly type: 'history'; readonly nodeId: string }
  | { readonly type: 'interrupt'; readonly nodeId: string }
  | { readonly type: 'graph-load'; readonly file: string }
  | { readonly type: 'graph-run' }
  | { readonly type: 'graph-show' }
  | { readonly type: 'approvals' }
  | {
      readonly type: 'decide'
      readonly how: 'approve' | 'deny'
      readonly requestId: string
      readonly note: string | undefined
    }
  /** A line that means nothing: what to print instead. */
  | { readonly type: 'usage'; readonly message: string }

/** Every `:command`, with how it is used; `:help` prints these. */
export const COMMANDS: readonly (readonly [string, string])[] = [
  ['@node text', 'send text to a node and stream its answer'],
  [':nodes', 'list the nodes'],
  [':create NAME KIND [json]', 'create a node of a kind (Tab lists the kinds) with options'],
  [':fork @node [name]', 'fork a node (name defaults to node_fork_NNNN)'],
  [':history @node', "a node's history"],
  [':interrupt @node', 'send Ctrl-C to a node'],
  [':graph load FILE', 'load a graph file'],
  [':graph run', 'run the loaded graph'],
  [':graph show', "the loaded graph's steps"],
  [':approvals', 'the approval requests waiting'],
  [':approve ID [note]', 'approve a waiting request'],
  [':deny ID [note]', 'deny a waiting request'],
  [':help', 'this list'],
  [':quit', 'leave (Ctrl-D too)'],
]

const usage = (message: string): ReplCommand => ({ type: 'usage', message })

/** `@name` → `name`; anything else is not a node reference. */
const nodeRef = (word: string | undefined): string | undefined =>
  word !== undefined && word.startsWith('@') && word.length > 1 ? word.slice(1) : undefined

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '')

const createCommand = (rest: string): ReplCommand => {
  const m = /^(\S+)\s+(\S+)\s*(.*)$/.exec(rest)
  if (m === null) return usage('Usage: :create NAME KIND [json options]')
  // the daemon knows its kinds: one it does not make is its answer
  const [, nodeId, kind, json] = m as unknown as [string, string, string, string]
  if (json === '') return { type: 'create', nodeId, kind, options: {} }
  try {
    const options = JSON.parse(json) as unknown
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      return usage('Options must be a JSON object')
    }
    return { type: 'create', nodeId, kind, options: options as Record<string, unknown> }
  } catch {
    return usage(`Options are not JSON: ${json}`)
  }
}

const onNode =
  (type: 'history' | 'interrupt') =>
  (rest: string): ReplCommand => {
    const nodeId = nodeRef(words(rest)[0])
    return nodeId === undefined ? usage(`Usage: :${type} @node`) : { type, nodeId }
  }

const forkCommand = (rest: string): ReplCommand => {
  const [source, target, extra] = words(rest)
  if (source === undefined || extra !== undefined) return usage('Usage: :fork @node [new_name]')
  if (source.startsWith('%')) return usage('Graph forking is not supported yet')
  const sourceId = nodeRef(source)
  if (sourceId === undefined) return usage('Specify @node to fork')
  return { type: 'fork', source: sourceId, target: target?.replace(/^[@%]/, '') }
}

const graphCommand = (rest: string): ReplCommand => {
  const [action, file] = words(rest)
  if (action === 'load' && file !== undefined) return { type: 'graph-load', file }
  if (action === 'run' || action === 'show') return { type: `graph-${action}` }
  return usage('Usage: :graph load FILE | :graph run | :graph show')
}

const decideCommand =
  (how: 'approve' | 'deny') =>
  (rest: string): ReplCommand => {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim())
    if (m === null) return usage(`Usage: :${how} ID [note]`)
    return { type: 'decide', how, requestId: m[1]!, note: m[2] === '' ? undefined : m[2] }
  }

const simple = (type: 'nodes' | 'help' | 'quit' | 'approvals') => (): ReplCommand => ({ type })

const commands: Record<string, (rest: string) => ReplCommand> = {
  nodes: simple('nodes'),
  help: simple('help'),
  quit: simple('quit'),
  exit: simple('quit'),
  create: createCommand,
  fork: forkCommand,
  history: onNode('history'),
  interrupt: onNode('interrupt'),
  graph: graphCommand,
  approvals: simple('approvals'),
  approve: decideCommand('approve'),
  deny: decideCommand('deny'),
}

/** What a line means: `@sh echo hi` executes `echo hi` on `sh`; `:fork @sh` forks it. */
export const parseLine = (line: string): ReplCommand => {
  const s = line.trim()
  if (s === '') return { type: 'none' }
  if (s.startsWith('@')) {
    const m = /^@(\S*)\s*([\s\S]*)$/.exec(s)!
    if (m[1] === '' || m[2] === '') return usage(`Usage: @${m[1] || 'node'} text`)
    return { type: 'execute', nodeId: m[1]!, input: m[2]! }
  }
  if (!s.startsWith(':')) return usage(`Start with @node to send text, or :help`)
  const m = /^:(\S*)\s*([\s\S]*)$/.exec(s)!
  const f = Object.hasOwn(commands, m[1]!) ? commands[m[1]!] : undefined
  return f === undefined ? usage(`Unknown command :${m[1]} (try :help)`) : f(m[2]!)
}

/**
 * The name `:fork @node` gives a copy when none is given: `node_fork_NNNN`,
 * from the time in seconds, with the next free number on a clash.
 */
export const forkName = (source: string, nowMs: number, taken: ReadonlySet<string>): string => {
  for (let n = Math.floor(nowMs / 1000) % 10000; ; n = (n + 1) % 10000) {
    const name = `${source}_fork_${String(n).padStart(4, '0')}`
    if (!taken.has(name)) return name
  }
}

/**
 * Tab completion: what may follow the word under the cursor (readline's
 * `[completions, word]`). Completes `:commands`, `@node` names, the
 * `:graph` actions and the kinds of `:create NAME` (those the daemon makes,
 * as `LIST_KINDS` names them).
 */
export const complete = (
  line: string,
  nodes: readonly string[],
  kinds: readonly string[] = [],
): [completions: string[], word: string] => {
  const word = /\S*$/.exec(line)![0]
  const before = words(line.slice(0, line.length - word.length))
  const matching = (options: readonly string[]): [string[], string] => [
    options.filter((o) => o.startsWith(word)),
    word,
  ]
  if (word.startsWith('@')) return matching(nodes.map((n) => `@${n}`))
  if (before.length === 0 && word.startsWith(':'))
    return matching(Object.keys(commands).map((c) => `:${c}`))
  if (before.length === 1 && before[0] === ':graph') return matching(['load', 'run', 'show'])
  if (before.length === 2 && before[0] === ':create') return matching(kinds)
  return [[], word]
}
