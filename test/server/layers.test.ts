import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '../..')
const CORE = ['session', 'runtime', 'node', 'graph', 'conversation', 'dag', 'interpreters']

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  )

/** The imports of `file` (repo-relative) that reach into core other than through an area index. */
const deepImports = (file: string, text: string): string[] =>
  [...text.matchAll(/\bfrom\s+['"](\.[^'"]+)['"]/g)].flatMap((m) => {
    const target = normalize(join(dirname(file), m[1]!))
    const [top, area, ...rest] = target.split('/')
    if (top !== 'src' || area === undefined || !CORE.includes(area)) return []
    return rest.join('/') === 'index.js' ? [] : [`${file} imports ${m[1]!}`]
  })

describe('the server layer', () => {
  const sources = files(join(root, 'src/server')).map((f) => relative(root, f))

  it('imports core only through the area index files', () => {
    expect(sources.length).toBeGreaterThan(0)
    expect(sources.flatMap((f) => deepImports(f, readFileSync(join(root, f), 'utf8')))).toEqual([])
  })

  it('catches a deep import', () => {
    expect(
      deepImports('src/server/engine/x.ts', `import { Session } from '../../session/Session.js'`),
    ).toHaveLength(1)
    expect(
      deepImports('src/server/engine/x.ts', `import { Session } from '../../session/index.js'`),
    ).toEqual([])
  })
})
