/**
 * Bundles the `nerve` executable: src/cli/main.ts into dist/cli/main.js (what
 * `bin` names), each command's code in chunks under dist/cli/chunks/, loaded
 * when that command runs.
 *
 * Why a bundle: a command is a short-lived process, and on Node.js 20 most of
 * its start was the module loader, not our code — about 70 modules resolved
 * and read one by one, and fp-ts, io-ts and commander, CommonJS packages,
 * each passed through the ES module loader's CommonJS translation (V8's
 * compile cache, `module.enableCompileCache`, comes with Node.js 22.1). One
 * file for the command tree and a few chunks per command cut `nerve node list`
 * from about 3× to about 1.5× a bare script speaking the same request.
 *
 * What is bundled: our sources and the pure-JS packages every command loads
 * (commander, fp-ts, io-ts — their ES module builds, so only what is used
 * comes along). Every other dependency stays an import of the installed
 * package, loaded only by the command that needs it: the native addons
 * (node-pty, better-sqlite3), the packages that read their own files at run
 * time (BullMQ's scripts) and the rest, as installed. The library entry points
 * (`nerve-agents`, `/client`, `/server`, …) are tsc's unbundled output; the
 * executable never imports them, so a process holds one copy of each module.
 *
 * Paths taken from `import.meta.url` keep their meaning: main.js sits where
 * tsc's main.js did (dist/cli/), and a chunk two folders below dist/ as the
 * server's modules do (the dashboard files are `../../dashboard/` from both).
 *
 * Run by `npm run build` after tsc; `node src/cli/build.js [distDir]`.
 */
import { build } from 'esbuild'
import { chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { basename, join } from 'node:path'
import { fpTsEs6 } from '../fpTsEs6.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The packages bundled into the executable; every other dependency stays external. */
export const BUNDLED = ['commander', 'fp-ts', 'io-ts']

/** Builds the executable into `distDir` (default dist/); resolves with the path of main.js. */
export const buildCli = async (distDir = join(root, 'dist')) => {
  const outDir = join(distDir, 'cli')
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const { metafile } = await build({
    entryPoints: { main: join(root, 'src/cli/main.ts') },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    target: 'node20',
    // the ES module builds of fp-ts and io-ts
    mainFields: ['module', 'main'],
    external: Object.keys(dependencies).filter((d) => !BUNDLED.includes(d)),
    // commander requires Node.js builtins: an ES module has no `require` of its own
    banner: {
      js: "import { createRequire as nerveCreateRequire } from 'node:module';\nconst require = nerveCreateRequire(import.meta.url);",
    },
    sourcemap: true,
    legalComments: 'none',
    plugins: [fpTsEs6],
    logLevel: 'warning',
    metafile: true,
  })
  // Chunk names carry hashes: an earlier build's are removed once this one is in place.
  const made = new Set(Object.keys(metafile.outputs).map((f) => basename(f)))
  const chunks = join(outDir, 'chunks')
  for (const f of readdirSync(chunks)) if (!made.has(f)) rmSync(join(chunks, f))
  const main = join(outDir, 'main.js')
  chmodSync(main, 0o755)
  return main
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli(process.argv[2])
