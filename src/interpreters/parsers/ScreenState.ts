/**
 * What a screen shows, as a parser of a full-screen program reads it:
 *
 * - `ready`: the program waits for input;
 * - `busy`: it works (a spinner, "esc to interrupt");
 * - `permission`: it asks whether a tool may run (`tool`, and the `command`
 *   or `file` it names when it shows one); the options are the lines it
 *   offers, in order;
 * - `dialog`: any other question that blocks it (trust, onboarding, a key
 *   to approve), with its `title`;
 * - `unknown`: nothing the parser knows. Never taken for ready: an execute
 *   that sees only `unknown` times out with the screen in its error.
 *
 * @category parsers
 */
export type ScreenState =
  | { readonly _tag: 'ready' }
  | { readonly _tag: 'busy' }
  | {
      readonly _tag: 'permission'
      readonly tool: string
      readonly command?: string
      readonly file?: string
      readonly options: readonly string[]
    }
  | { readonly _tag: 'dialog'; readonly title: string; readonly options: readonly string[] }
  | { readonly _tag: 'unknown' }

/**
 * The tags of {@link ScreenState}.
 *
 * @category parsers
 */
export type ScreenStateTag = ScreenState['_tag']

const READY: ScreenState = Object.freeze({ _tag: 'ready' })
const BUSY: ScreenState = Object.freeze({ _tag: 'busy' })
const UNKNOWN: ScreenState = Object.freeze({ _tag: 'unknown' })

/**
 * The frozen screen states, one builder per tag.
 *
 * @category parsers
 * @example
 * import { screenState } from 'nerve-agents/interpreters'
 * import assert from 'assert'
 *
 * const asked = screenState.permission('Bash', { command: 'rm a.txt' }, ['Yes', 'No'])
 * assert.strictEqual(asked._tag, 'permission')
 * assert.strictEqual(screenState.ready()._tag, 'ready')
 */
export const screenState = Object.freeze({
  ready: (): ScreenState => READY,
  busy: (): ScreenState => BUSY,
  unknown: (): ScreenState => UNKNOWN,
  dialog: (title: string, options: readonly string[] = []): ScreenState =>
    Object.freeze({ _tag: 'dialog', title, options: Object.freeze([...options]) }),
  permission: (
    tool: string,
    target: { readonly command?: string | undefined; readonly file?: string | undefined },
    options: readonly string[] = [],
  ): ScreenState =>
    Object.freeze({
      _tag: 'permission',
      tool,
      ...(target.command === undefined ? {} : { command: target.command }),
      ...(target.file === undefined ? {} : { file: target.file }),
      options: Object.freeze([...options]),
    }),
})
