/**
 * The one way errors are made: {@link taggedError} gives a class its tag,
 * its category and its public details, so every face (the command line, the
 * MCP server, the wire) can show it and the wire can give it a code without
 * knowing the tag.
 */

/**
 * What kind of failure an error is. Faces branch on the category, never on
 * the tag string; the wire maps each category to one code.
 *
 * - `notFound`: a session, node, run or file that does not exist;
 * - `conflict`: a name already in use;
 * - `unsupported`: the thing cannot do that (fork a bash node, a provider it does not have);
 * - `invalidInput`: an argument or parameter that is wrong (misuse of an API included);
 * - `invalidGraph`: a graph or network value that does not form a valid one;
 * - `invalidState`: right request, wrong moment (a stopped node, a closed session);
 * - `limitExceeded`: a bound of the caller's was reached;
 * - `unavailable`: the service is not there or takes no more work (a daemon not
 *   running or shutting down, a queue no worker serves);
 * - `timeout`, `cancelled`: the work did not finish, by time or by request;
 * - `storage`: a store or file could not be read or written;
 * - `failed`: the work ran and failed (a command's exit, a model's error);
 * - `internal`: a bug.
 *
 * @category errors
 */
export const errorCategories = [
  'notFound',
  'conflict',
  'unsupported',
  'invalidInput',
  'invalidGraph',
  'invalidState',
  'limitExceeded',
  'unavailable',
  'timeout',
  'cancelled',
  'storage',
  'failed',
  'internal',
] as const

/**
 * One of the {@link errorCategories}.
 *
 * @category errors
 */
export type ErrorCategory = (typeof errorCategories)[number]

/**
 * An error made by {@link taggedError}: a literal `_tag` (so a union of them
 * narrows), a category, and the details it makes public (what the wire's
 * `error.data` carries beside the tag and the path). `path`, where an error
 * has one as a string, is a JSON pointer to the value to blame.
 *
 * An error that stands for another one (the client's `ProtocolError` for the
 * daemon's error, the command line's `CliError`) names that one in a string
 * `tag`, which the renderer shows instead of `_tag`.
 *
 * @category errors
 */
export interface Tagged<Tag extends string = string> extends Error {
  readonly _tag: Tag
  readonly category: ErrorCategory
  /** The public details: the fields given to the constructor (but `path` and `tag`), by name. */
  readonly details: Readonly<Record<string, unknown>>
}

/** The constructors a tagged error may extend: `Error`, `TypeError`, or a family base of fields. */
type ErrorBase = abstract new (message?: string, options?: ErrorOptions) => Error

/** The names an error's fields may not take: those of `Error` and of {@link Tagged}. */
type Reserved = 'name' | 'message' | 'stack' | 'cause' | '_tag' | 'category' | 'details'

/** Fields `F`, none of them {@link Reserved}. */
type Fields<F> = { readonly [K in keyof F]: K extends Reserved ? never : F[K] }

/** The `path` a family base declares (e.g. the engine's pointer into `params`): given with the fields. */
type PathOf<I> = 'path' extends keyof I ? { readonly path?: I['path' & keyof I] } : unknown

/**
 * The class {@link taggedError} returns: extend it with the type of the
 * error's public fields; its constructor takes the message, those fields
 * (set on the instance and listed in `details`) and the `cause`.
 *
 * @category errors
 */
export interface TaggedErrorClass<Tag extends string, B extends ErrorBase> {
  new <F extends Fields<F> = object>(
    message: string,
    ...rest: object extends F
      ? [fields?: F & PathOf<InstanceType<B>>, options?: ErrorOptions]
      : [fields: F & PathOf<InstanceType<B>>, options?: ErrorOptions]
  ): InstanceType<B> & Tagged<Tag> & Readonly<F>
  readonly tag: Tag
  readonly category: ErrorCategory
}

const classes: { readonly tag: string; readonly category: ErrorCategory }[] = []
const detailKeys = Symbol('detailKeys')

/**
 * A class of errors with the tag `tag` and the category `category`,
 * extending `base` (default `Error`; `TypeError` for misuse, or a family's
 * abstract base such as the runtime's `RunError`). Extend the result with
 * the type of the public fields and give the constructor the message and
 * those fields (and the `path` a family base declares); `name` is the tag.
 *
 * @category errors
 * @example
 * import { errorJson, taggedError } from 'nerve-agents'
 * import assert from 'assert'
 *
 * class UnknownPet extends taggedError('UnknownPet', 'notFound')<{ readonly pet: string }> {
 *   constructor(pet: string) {
 *     super(`there is no pet "${pet}"`, { pet })
 *   }
 * }
 * const e = new UnknownPet('rex')
 * assert.strictEqual(e._tag, 'UnknownPet')
 * assert.strictEqual(e.category, 'notFound')
 * assert.strictEqual(e.pet, 'rex')
 * assert.deepStrictEqual(errorJson(e), { tag: 'UnknownPet', message: 'there is no pet "rex"', pet: 'rex' })
 */
export const taggedError = <Tag extends string, B extends ErrorBase = ErrorConstructor>(
  tag: Tag,
  category: ErrorCategory,
  base?: B,
): TaggedErrorClass<Tag, B> => {
  const Base = (base ?? Error) as unknown as new (message?: string, options?: ErrorOptions) => Error
  class TaggedError extends Base implements Tagged<Tag> {
    static readonly tag = tag
    static readonly category = category
    readonly _tag: Tag = tag
    readonly category: ErrorCategory = category
    declare readonly [detailKeys]: readonly string[] | undefined
    constructor(message: string, fields: object = {}, options?: ErrorOptions) {
      super(message, options)
      this.name = tag
      Object.assign(this, fields)
      Object.defineProperty(this, detailKeys, {
        value: Object.keys(fields).filter((k) => k !== 'path' && k !== 'tag'),
      })
    }
    get details(): Readonly<Record<string, unknown>> {
      const self = this as unknown as Record<string, unknown>
      return Object.fromEntries((this[detailKeys] ?? []).map((k) => [k, self[k]]))
    }
  }
  classes.push(TaggedError)
  return TaggedError as unknown as TaggedErrorClass<Tag, B>
}

/**
 * Every class {@link taggedError} has made so far, with its tag and category.
 *
 * @category errors
 */
export const errorClasses = (): readonly {
  readonly tag: string
  readonly category: ErrorCategory
}[] => [...classes]

/**
 * Whether `u` is an error made by {@link taggedError}.
 *
 * @category errors
 */
export const isTagged = (u: unknown): u is Tagged =>
  u instanceof Error &&
  typeof (u as { _tag?: unknown })._tag === 'string' &&
  (errorCategories as readonly unknown[]).includes((u as { category?: unknown }).category)
