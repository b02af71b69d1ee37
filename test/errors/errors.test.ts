import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as root from '../../src/index.js'
import * as core from '../../src/core.js'
import * as runtime from '../../src/runtime/index.js'
import * as interpreters from '../../src/interpreters/index.js'
import * as session from '../../src/session/index.js'
import * as network from '../../src/network/index.js'
import {
  errorCategories,
  errorCategory,
  errorClasses,
  errorJson,
  errorText,
  taggedError,
  UsageError,
  type ErrorCategory,
} from '../../src/errors.js'
import * as client from '../../src/client/index.js'
import * as distributed from '../../src/distributed/index.js'
import * as mcp from '../../src/mcp/index.js'
import * as protocol from '../../src/protocol/index.js'
import * as server from '../../src/server/index.js'
import * as store from '../../src/store/index.js'
import * as testing from '../../src/testing/index.js'
import { CliError } from '../../src/cli/context.js'
import { categoryCodes, ErrorCode, ProtocolError } from '../../src/protocol/index.js'
import { toWireError } from '../../src/server/index.js'

const MODULES = {
  root,
  core,
  runtime,
  interpreters,
  session,
  network,
  client,
  distributed,
  mcp,
  protocol,
  server,
  store,
  testing,
}

/** The abstract bases of a family of errors: each of their classes is made by `taggedError`. */
const FAMILY_BASES = new Set(['RunError', 'SessionError', 'ProviderError', 'EngineError'])

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })

/** An instance of a class without calling its constructor (whose arguments differ per class). */
const bare = (C: { readonly prototype: object; readonly tag: string; readonly category: string }) =>
  Object.assign(Object.create(C.prototype) as Error, {
    _tag: C.tag,
    category: C.category,
    message: 'm',
  })

describe('the error factory', () => {
  it('gives every exported error class a tag and a category (family bases aside)', () => {
    const unmade: string[] = []
    for (const [module, exports] of Object.entries(MODULES)) {
      for (const [name, value] of Object.entries(exports) as [string, unknown][]) {
        if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue
        const { tag, category } = value as unknown as { tag?: unknown; category?: unknown }
        if (FAMILY_BASES.has(name)) continue
        if (typeof tag !== 'string' || !errorCategories.includes(category as ErrorCategory)) {
          unmade.push(`${module}.${name}`)
        }
      }
    }
    expect(unmade).toEqual([])
  })

  it('leaves no hand-written error class (abstract family bases aside) and no bare `throw new Error(` in src', () => {
    const found: string[] = []
    for (const file of sourceFiles('src')) {
      if (file.startsWith(join('src', 'errors'))) continue
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(
        /(?<!abstract )class \w+ extends (Error|TypeError|RangeError)\b|throw new Error\(/g,
      )) {
        found.push(`${relative('.', file)}: ${m[0]}`)
      }
    }
    expect(found).toEqual([])
  })

  it('answers every error class on the wire with the code of its category', () => {
    const classes = errorClasses()
    expect(classes.length).toBeGreaterThan(80)
    for (const C of classes) {
      const e = bare(C as never)
      expect({ tag: C.tag, code: toWireError(e).code }).toEqual({
        tag: C.tag,
        code: categoryCodes[C.category],
      })
    }
  })

  it('keeps the wire codes the protocol documents for the errors of the layers below', () => {
    const codeOf = (tag: string): number | undefined => {
      const C = errorClasses().find((c) => c.tag === tag)
      return C === undefined ? undefined : categoryCodes[C.category]
    }
    expect({
      UnknownNode: codeOf('UnknownNode'),
      UnknownNodeRef: codeOf('UnknownNodeRef'),
      NameTaken: codeOf('NameTaken'),
      NotForkable: codeOf('NotForkable'),
      MissingInterpreter: codeOf('MissingInterpreter'),
      NodeStopped: codeOf('NodeStopped'),
      SessionClosed: codeOf('SessionClosed'),
      Cancelled: codeOf('Cancelled'),
      StepTimeout: codeOf('StepTimeout'),
      TerminalTimeout: codeOf('TerminalTimeout'),
      TerminalDialog: codeOf('TerminalDialog'),
      InvalidGraph: codeOf('InvalidGraph'),
      LinkCycle: codeOf('LinkCycle'),
      UnknownLinkHandle: codeOf('UnknownLinkHandle'),
      UsageError: codeOf('UsageError'),
      UnknownParser: codeOf('UnknownParser'),
      StoreCorrupt: codeOf('StoreCorrupt'),
      MissingBinary: codeOf('MissingBinary'),
      BashFailed: codeOf('BashFailed'),
      TerminalInterrupted: codeOf('TerminalInterrupted'),
    }).toEqual({
      UnknownNode: ErrorCode.NotFound,
      UnknownNodeRef: ErrorCode.NotFound,
      NameTaken: ErrorCode.Conflict,
      NotForkable: ErrorCode.Unsupported,
      MissingInterpreter: ErrorCode.Unsupported,
      NodeStopped: ErrorCode.InvalidState,
      SessionClosed: ErrorCode.InvalidState,
      Cancelled: ErrorCode.Cancelled,
      StepTimeout: ErrorCode.Timeout,
      TerminalTimeout: ErrorCode.Timeout,
      TerminalDialog: ErrorCode.InvalidState,
      InvalidGraph: ErrorCode.InvalidGraph,
      LinkCycle: ErrorCode.InvalidGraph,
      UnknownLinkHandle: ErrorCode.InvalidGraph,
      UsageError: ErrorCode.InvalidParams,
      UnknownParser: ErrorCode.InvalidParams,
      StoreCorrupt: ErrorCode.StorageFailed,
      MissingBinary: ErrorCode.Unsupported,
      BashFailed: ErrorCode.ExecutionFailed,
      TerminalInterrupted: ErrorCode.ExecutionFailed,
    })
  })

  it('maps each category to its own code, and the client reads the category back from it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...errorCategories), fc.string(), (category, message) => {
        class Made extends taggedError('Made', category) {}
        const wire = toWireError(new Made(message))
        expect(wire.code).toBe(categoryCodes[category])
        expect(new ProtocolError(wire).category).toBe(category)
      }),
    )
    expect(new Set(Object.values(categoryCodes)).size).toBe(errorCategories.length)
  })

  it('makes instances whose tag, name, category and fields are what the class declares', () => {
    class UnknownPet extends taggedError('UnknownPet', 'notFound')<{ readonly pet: string }> {
      constructor(pet: string) {
        super(`there is no pet "${pet}"`, { pet }, { cause: 'why' })
      }
    }
    const e = new UnknownPet('rex')
    expect(e).toBeInstanceOf(Error)
    expect(e).toBeInstanceOf(UnknownPet)
    expect([e._tag, e.name, e.category, e.pet, e.cause]).toEqual([
      'UnknownPet',
      'UnknownPet',
      'notFound',
      'rex',
      'why',
    ])
    expect(e.details).toEqual({ pet: 'rex' })
    expect(new UsageError('user', 'no text')).toBeInstanceOf(TypeError)
  })
})

describe('the renderer', () => {
  it('shows an error as `Tag at path: message`, without `at` when there is no path', () => {
    expect(errorText(new server.UnknownSession('s1'))).toBe(
      'UnknownSession at /sessionId: there is no session "s1"',
    )
    expect(errorText(new UsageError('user', 'no text'))).toBe('UsageError: user(): no text')
    expect(errorText(new RangeError('too deep'))).toBe('RangeError: too deep')
    expect(errorText('boom')).toBe('Error: boom')
  })

  it('shows an error as JSON: tag, message, path and the declared details only', () => {
    const e = new server.UnknownKind('nope', ['bash', 'pty'])
    expect(errorJson(e)).toEqual({
      tag: 'UnknownKind',
      message: 'there is no node kind "nope" (known: bash, pty)',
      path: '/kind',
      kind: 'nope',
      known: ['bash', 'pty'],
    })
    expect(errorJson({ some: 'value' })).toEqual({ tag: 'Error', message: '{"some":"value"}' })
  })

  it('cuts a long string detail to its end, and shows an error detail as its tag and message', () => {
    class Long extends taggedError('Long', 'failed')<{
      readonly partial: string
      readonly why: Error
    }> {}
    const json = errorJson(
      new Long('m', { partial: `${'a'.repeat(5000)}end`, why: new UsageError('f', 'x') }),
    )
    expect((json.partial as string).length).toBe(4000)
    expect((json.partial as string).endsWith('end')).toBe(true)
    expect(json.why).toEqual({ tag: 'UsageError', message: 'f(): x' })
  })

  it('shows an error that stands for another (a daemon error, a command line failure) by that one', () => {
    const remote = new ProtocolError({
      code: ErrorCode.NotFound,
      message: 'no node "x"',
      data: { tag: 'UnknownNode', path: '/nodeId', nodeName: 'x' },
    })
    expect(errorText(remote)).toBe('UnknownNode at /nodeId: no node "x"')
    expect(errorJson(remote)).toEqual({
      tag: 'UnknownNode',
      message: 'no node "x"',
      path: '/nodeId',
      nodeName: 'x',
    })
    expect(errorCategory(remote)).toBe('notFound')
    const cli = new CliError('BadOption', '--depth must be a number', '--depth', 'invalidInput')
    expect(errorText(cli)).toBe('BadOption at --depth: --depth must be a number')
    expect(errorCategory(cli)).toBe('invalidInput')
  })

  it('puts the same JSON on the wire (message aside), the params key an error names as its path', () => {
    const e = new session.UnknownNode('main', 'sh')
    const { message, ...data } = errorJson(e)
    expect(toWireError(e, { nodeId: 'sh' })).toEqual({
      code: ErrorCode.NotFound,
      message,
      data: { ...data, path: '/nodeId' },
    })
  })

  it('takes a plain Error or a JavaScript error for a bug, another error class for a failure', () => {
    class Oops extends Error {
      override name = 'Oops'
    }
    expect([new Error('x'), new TypeError('x'), new Oops('x'), 'x'].map(errorCategory)).toEqual([
      'internal',
      'internal',
      'failed',
      'internal',
    ])
  })
})
