import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser'
import { describe, expect, it } from 'vitest'

/**
 * The layer rule of DESIGN.md. Imports (layers, builtins, packages, import
 * circles) are checked by dependency-cruiser with .dependency-cruiser.cjs, in
 * `npm run deps`; here, that its rules catch what they should, and what it
 * cannot see: the pure layers use no clock, random source or timers.
 */
const PURE = [
  'src/errors.ts',
  'src/errors',
  'src/codec',
  'src/dag',
  'src/conversation',
  'src/node',
  'src/graph',
  'src/protocol',
]
const EFFECTS: readonly [RegExp, string][] = [
  [/\bDate\b/, 'a clock (Date)'],
  [/\bperformance\s*\./, 'a clock (performance)'],
  [/\bprocess\s*\./, 'the process (process.*)'],
  [/\bMath\s*\.\s*random\b/, 'a random source (Math.random)'],
  [/\bcrypto\b/, 'crypto (a random source or hashing by the host)'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/, 'timers'],
  [/\brequire\s*\(/, 'require()'],
  [/\bimport\s*\(/, 'dynamic import()'],
]

const root = join(import.meta.dirname, '..')

const isPure = (file: string): boolean =>
  PURE.some((prefix) => file === prefix || file.startsWith(`${prefix}/`))

/** Every clock, random source or timer `file` (a repo-relative path of a pure layer) uses. */
export const effects = (file: string, text: string): string[] => {
  if (!isPure(file)) return []
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '') // comments may mention anything
  return EFFECTS.filter(([pattern]) => pattern.test(code)).map(([, what]) => `${file} uses ${what}`)
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  )

describe('the pure layers', () => {
  it('use no clock, random source or timer', () => {
    const all = files(join(root, 'src')).map((f) => relative(root, f))
    expect(all.filter(isPure).length).toBeGreaterThan(0)
    expect(all.flatMap((f) => effects(f, readFileSync(join(root, f), 'utf8')))).toEqual([])
  })

  it('are told apart from the others, and their clocks and random sources are caught', () => {
    expect(effects('src/graph/x.ts', `const t = Date.now()`)).toEqual([
      'src/graph/x.ts uses a clock (Date)',
    ])
    expect(effects('src/node/x.ts', `const r = Math.random()`)).toHaveLength(1)
    expect(effects('src/dag/x.ts', `// Date.now() is not called here`)).toEqual([])
    expect(effects('src/runtime/x.ts', `const t = Date.now()`)).toEqual([])
  })
})

const rules = (
  createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
    forbidden: NonNullable<IFlattenedRuleSet['forbidden']>
  }
).forbidden

/** The rule each import of a made-up tree of `src/` files breaks, as `rule: from → to`. */
const broken = async (tree: Readonly<Record<string, string>>): Promise<string[]> => {
  // Inside the repository, so that packages resolve from its node_modules.
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true })
  const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'nerve-layers-'))
  try {
    for (const [file, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      writeFileSync(join(dir, file), text)
    }
    const result = await cruise(['src'], {
      validate: true,
      ruleSet: { forbidden: rules },
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      baseDir: dir,
    })
    const output = result.output as ICruiseResult
    // A package resolves to a path relative to the tree; name it from its own folder.
    const shown = (to: string): string => to.replace(/^(\.\.\/)+|^node_modules\//, '')
    return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${shown(v.to)}`).sort()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the import rules (.dependency-cruiser.cjs)', () => {
  it('let every layer import itself and the layers below it', async () => {
    expect(
      await broken({
        'src/errors.ts': 'export const e = 1\n',
        'src/dag/v.ts': "import { e } from '../errors.js'\nexport const v = e\n",
        'src/graph/g.ts': "import { n } from '../node/n.js'\nexport const g = n\n",
        'src/node/n.ts': "import { v } from '../dag/v.js'\nexport const n = v\n",
        'src/runtime/r.ts': "import { g } from '../graph/g.js'\nexport const r = g\n",
        'src/session/index.ts': "import { r } from '../runtime/r.js'\nexport const s = r\n",
        'src/server/x.ts': "import { s } from '../session/index.js'\nexport const x = s\n",
        'src/testing/t.ts': "import { r } from '../runtime/r.js'\nexport const t = r\n",
      }),
    ).toEqual([])
  })

  it('catch an import upward, a builtin or package in a pure layer, a circle and a deep path', async () => {
    expect(
      await broken({
        'src/dag/v.ts': "import { readFileSync } from 'node:fs'\nexport const v = readFileSync\n",
        'src/dag/w.ts': "import { pipe } from 'fp-ts/lib/function.js'\nexport const w = pipe\n",
        'src/conversation/c.ts': "import { spawn } from 'node-pty'\nexport const c = spawn\n",
        'src/node/n.ts': "import { g } from '../graph/g.js'\nexport const n = g\n",
        'src/graph/g.ts': "import { n } from '../node/n.js'\nexport const g = n\n",
        'src/runtime/r.ts': "import { s } from '../session/s.js'\nexport const r = s\n",
        'src/session/s.ts': 'export const s = 1\n',
        'src/testing/t.ts': "import { s } from '../session/s.js'\nexport const t = s\n",
        'src/network/w.ts': "import { s } from '../session/s.js'\nexport const w = s\n",
      }),
    ).toEqual([
      'faces-through-index: src/network/w.ts → src/session/s.ts',
      'layer-node: src/node/n.ts → src/graph/g.ts',
      'layer-runtime: src/runtime/r.ts → src/session/s.ts',
      'layer-testing: src/testing/t.ts → src/session/s.ts',
      'no-circular: src/graph/g.ts → src/node/n.ts',
      'pure-no-builtins: src/dag/v.ts → fs',
      'pure-packages: src/conversation/c.ts → node-pty/lib/index.js',
    ])
  })
  it('keep the protocol pure: the pure core and fp-ts/io-ts at run time, only types from network/', async () => {
    expect(
      await broken({
        'src/node/index.ts': 'export const n = 1\n',
        'src/network/index.ts':
          'export interface Network { readonly id: string }\nexport const w = 1\n',
        'src/session/index.ts': 'export const s = 1\n',
        'src/server/index.ts': "import { p } from '../protocol/ok.js'\nexport const x = p\n",
        'src/client/index.ts': "import { p } from '../protocol/ok.js'\nexport const c = p\n",
        'src/protocol/ok.ts':
          "import * as t from 'io-ts'\nimport { n } from '../node/index.js'\nimport type { Network } from '../network/index.js'\nexport const p: Network | number = n\nexport const c = t.string\n",
        'src/protocol/net.ts': "import { w } from '../network/index.js'\nexport const q = w\n",
        'src/protocol/fs.ts':
          "import { readFileSync } from 'node:fs'\nexport const f = readFileSync\n",
        'src/protocol/srv.ts': "import { x } from '../server/index.js'\nexport const y = x\n",
        'src/protocol/ses.ts': "import { s } from '../session/index.js'\nexport const z = s\n",
      }),
    ).toEqual([
      'layer-protocol: src/protocol/ses.ts → src/session/index.ts',
      'layer-protocol: src/protocol/srv.ts → src/server/index.ts',
      'pure-no-builtins: src/protocol/fs.ts → fs',
      'types-only-from-network: src/protocol/net.ts → src/network/index.ts',
    ])
  })

  it('keep the faces off the engine: client and MCP never load it, the CLI only in its server command or lazily', async () => {
    expect(
      await broken({
        'src/protocol/index.ts': 'export const p = 1\n',
        'src/server/index.ts':
          "import { p } from '../protocol/index.js'\nexport const engine = p\n",
        'src/server/transport/token.ts': 'export const token = 1\n',
        'src/client/index.ts': "import { p } from '../protocol/index.js'\nexport const c = p\n",
        'src/client/bad.ts':
          "import { engine } from '../server/index.js'\nexport const b = engine\n",
        'src/mcp/ok.ts':
          "import { c } from '../client/index.js'\nimport { token } from '../server/transport/token.js'\nexport const m = c + token\n",
        'src/mcp/bad.ts': "import { engine } from '../server/index.js'\nexport const b = engine\n",
        'src/cli/commands/server.ts':
          "import { engine } from '../../server/index.js'\nexport const s = engine\n",
        'src/cli/commands/repl.ts':
          "export const r = async () => (await import('../../server/index.js')).engine\n",
        'src/cli/commands/node.ts':
          "import { engine } from '../../server/index.js'\nexport const n = engine\n",
      }),
    ).toEqual([
      'cli-server-lazily: src/cli/commands/node.ts → src/server/index.ts',
      'client-speaks-protocol: src/client/bad.ts → src/server/index.ts',
      'mcp-not-engine: src/mcp/bad.ts → src/server/index.ts',
    ])
  })
  it('keep the dashboard apart: it imports the SDK and the protocol only, and nothing imports it', async () => {
    expect(
      await broken({
        'src/protocol/index.ts': 'export const p = 1\n',
        'src/session/index.ts': 'export const s = 1\n',
        'src/client/index.ts': "import { p } from '../protocol/index.js'\nexport const c = p\n",
        'src/web/ok.ts':
          "import { c } from '../client/index.js'\nimport { p } from '../protocol/index.js'\nexport const w = c + p\n",
        'src/web/bad.ts': "import { s } from '../session/index.js'\nexport const b = s\n",
        'src/server/page.ts': "import { w } from '../web/ok.js'\nexport const x = w\n",
      }),
    ).toEqual([
      'layer-server: src/server/page.ts → src/web/ok.ts',
      'nothing-imports-web: src/server/page.ts → src/web/ok.ts',
      'web-speaks-client: src/web/bad.ts → src/session/index.ts',
    ])
  })
})
