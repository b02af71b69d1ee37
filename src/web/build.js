/**
 * Bundles the dashboard (src/web) into dist/dashboard: one minified ES
 * module, its stylesheet (xterm's included) and the page. The daemon
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
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { basename, join } from 'node:path'

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
    entryPoints: { app: join(root, 'src/web/main.tsx') },
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
    plugins: [nodeOnly],
    logLevel: 'warning',
    metafile: true,
  })
  copyFileSync(join(root, 'src/web/index.html'), join(outDir, 'index.html'))
  // Chunk names carry hashes: an earlier build's are removed once this one is in place.
  const made = new Set([...Object.keys(metafile.outputs).map((f) => basename(f)), 'index.html'])
  for (const f of readdirSync(outDir)) if (!made.has(f)) rmSync(join(outDir, f))
  return outDir
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard(process.argv[2])
