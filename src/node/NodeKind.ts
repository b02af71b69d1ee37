import type * as t from 'io-ts'
import { bash, BashOptionsCodec } from './BashNode.js'
import { claudeWezterm, ClaudeWeztermOptionsCodec } from './ClaudeNode.js'
import { llm, LlmOptionsCodec } from './LlmNode.js'
import type { Node } from './Node.js'
import { pty, PtyOptionsCodec } from './PtyNode.js'
import { tmux, TmuxOptionsCodec } from './TmuxNode.js'
import { wezterm, WeztermOptionsCodec } from './WeztermNode.js'

/**
 * A node kind that data can describe: its options codec (the one its
 * builder checks with) and its builder. A graph file's node of this kind is
 * decoded with `options` (every error with its path) and built with `build`.
 *
 * @category model
 */
export interface NodeKind<O = unknown> {
  readonly kind: string
  readonly persistent: boolean
  readonly options: t.Decoder<unknown, O>
  build(id: string, options: O): Node
}

const kind = <O>(
  name: string,
  persistent: boolean,
  options: t.Decoder<unknown, O>,
  build: (id: string, options: O) => Node,
): NodeKind => Object.freeze({ kind: name, persistent, options, build })

/**
 * The built-in node kinds a graph file may hold, by kind: bash, pty, tmux,
 * wezterm, claude-wezterm and llm. (Function nodes hold code, which a file
 * cannot; graphs have their own form.)
 *
 * @category model
 * @example
 * import { nodeKinds } from 'nerve-agents'
 * import * as E from 'fp-ts/lib/Either.js'
 * import assert from 'assert'
 *
 * const pty = nodeKinds.get('pty')!
 * assert.ok(E.isRight(pty.options.decode({ command: 'bash', cols: 80 })))
 * assert.ok(E.isLeft(pty.options.decode({ command: 'bash', cols: 0 })))
 * assert.strictEqual(pty.build('sh', { command: 'bash' }).kind, 'pty')
 */
export const nodeKinds: ReadonlyMap<string, NodeKind> = new Map(
  [
    kind('bash', false, BashOptionsCodec, bash),
    kind('pty', true, PtyOptionsCodec, pty),
    kind('tmux', true, TmuxOptionsCodec, tmux),
    kind('wezterm', true, WeztermOptionsCodec, wezterm),
    kind('claude-wezterm', true, ClaudeWeztermOptionsCodec, claudeWezterm),
    kind('llm', true, LlmOptionsCodec, llm),
  ].map((k) => [k.kind, k]),
)
