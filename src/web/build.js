/**
 * Bundles the dashboard (src/web) into dist/dashboard: a minified ES
 * module with the node list, chunks for the other views and the terminal
 * emulator, the layout worker, the stylesheet (xterm's included) and the
 * page, which preloads the chunks the first module imports. The daemon
 * serves these files; nothing is fetched from elsewhere at run time.
 *
 * The page uses the SDK's NerveClient over a browser WebSocket; the SDK's
 * Node.js transports (Unix socket, TCP, the `ws` package) and its token-file
 * reading are never called there, so those imports are bundled as empty
 * modules.
 *
 * Run by `npm run build`; `node src/web/build.js [outDir]`.
 */
import { build } from 'esbuild'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { basename, join } from 'node:path'
import { fpTsEs6 } from '../fpTsEs6.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The Node.js-only imports of the SDK, bundled as empty modules. */
const nodeOnly = {
  name: 'node-only',
  setup(b) {
    b.onResolve({ filter: /^(node:.*|ws)$/ }, (args) => ({
      path: args.path,
      namespace: 'node-only',
    }))
    b.onLoad({ filter: /.*/, namespace: 'node-only' }, () => ({
      contents: 'module.exports = {}',
      loader: 'js',
    }))
  },
}

/** Builds the dashboard into `outDir` (default dist/dashboard); resolves with the outDir. */
export const buildDashboard = async (outDir = join(root, 'dist/dashboard')) => {
  mkdirSync(outDir, { recursive: true })
  const { metafile } = await build({
    entryPoints: {
      app: join(root, 'src/web/main.ts'),
      // The layout worker: dagre, off the page's main thread.
      layout: join(root, 'src/web/layoutWorker.ts'),
    },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    // The terminal emulator is a chunk of its own, loaded with the first terminal.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    plugins: [nodeOnly, fpTsEs6],
    logLevel: 'warning',
    metafile: true,
  })
  // What the entry loads first (its imports and what they import statically)
  // is fetched with it, not after it ran.
  const outputs = metafile.outputs
  const entry = Object.keys(outputs).find((f) => outputs[f].entryPoint?.endsWith('main.ts'))
  const first = new Set()
  const visit = (f, kinds) => {
    for (const i of outputs[f].imports)
      if (kinds.includes(i.kind) && !first.has(i.path)) {
        first.add(i.path)
        visit(i.path, ['import-statement'])
      }
  }
  visit(entry, ['import-statement', 'dynamic-import'])
  const preload = [...first]
    .map((f) => `<link rel="modulepreload" href="/${basename(f)}" />`)
    .join('\n    ')
  writeFileSync(
    join(outDir, 'index.html'),
    readFileSync(join(root, 'src/web/index.html'), 'utf8').replace(
      '<script type="module"',
      `${preload}${preload && '\n    '}<script type="module"`,
    ),
  )
  // Chunk names carry hashes: an earlier build's are removed once this one is in place.
  const made = new Set([...Object.keys(metafile.outputs).map((f) => basename(f)), 'index.html'])
  for (const f of readdirSync(outDir)) if (!made.has(f)) rmSync(join(outDir, f))
  return outDir
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard(process.argv[2])
