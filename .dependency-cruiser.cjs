/* global module */
/**
 * The import rules of DESIGN.md, checked by `npm run deps` (part of `npm test`).
 *
 * Layers, top to bottom; imports point down only:
 *
 *   web/                           the dashboard (browser code): protocol/, client/ and errors only
 *   cli/ server/ client/ mcp/      faces
 *   protocol/                      pure: the codecs of every command, result and event
 *   store/ distributed/
 *   network/  chat/                network/model/ (pure) below network/run/
 *   session/
 *   interpreters/
 *   runtime/
 *   graph/ node/                   pure (graph may use node, not the other way)
 *   conversation/                  pure
 *   dag/ codec/ errors.ts errors/  pure (codec/: the one codec kit; it imports nothing of src/;
 *                                  errors/: the error factory and renderer, imports nothing else)
 *   testing/                       beside: the pure layers, runtime/ and interpreters/
 *
 * The pure layers (and protocol/) import no Node.js builtin and no package
 * but fp-ts, io-ts and immer. protocol/ imports the pure core; from
 * network/ it borrows types only (the network value it carries). No module is part of an import circle (type-only imports
 * count). The layers above the core import the core through its area index
 * files only. What this cannot see — a clock, a random source, timers in
 * the pure layers — test/layers.test.ts checks.
 */

/** The folders (and root files) of src/ each layer may import from, besides its own. */
const codec = []
const dag = ['codec/', 'errors\\.ts', 'errors/']
const conversation = ['dag/', ...dag]
const node = ['conversation/', ...conversation]
const graph = ['node/', ...node]
const runtime = ['graph/', ...graph]
const interpreters = ['runtime/', ...runtime]
const session = ['interpreters/', ...interpreters]
const network = ['session/', ...session]
const chat = ['session/', ...session]
const store = ['network/', 'chat/', ...network]
const protocol = ['network/', ...graph]
const face = ['cli/', 'server/', 'client/', 'mcp/', 'protocol/', 'store/', 'distributed/', ...store]
const below = {
  errors: [],
  codec,
  dag,
  conversation,
  node,
  graph,
  runtime,
  interpreters,
  session,
  network,
  chat,
  store,
  distributed: store,
  protocol,
  cli: face,
  server: face,
  client: face,
  mcp: face,
  // beside the stack: arbitraries and scripted parts for every layer up to networks
  testing: ['network/', 'interpreters/', ...interpreters],
}

const PURE = '^src/(codec|dag|conversation|node|graph|protocol|errors)/|^src/errors\\.ts$'
const CORE = ['session', 'interpreters', 'runtime', 'graph', 'node', 'conversation', 'dag', 'codec']

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module may take part in an import circle.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(below).map(([layer, allowed]) => ({
      name: `layer-${layer}`,
      severity: 'error',
      comment: `src/${layer}/ imports only from itself and the layers below it: ${allowed.join(' ')}`,
      from: { path: `^src/${layer}/` },
      to: { path: '^src/', pathNot: [`^src/${layer}/`, ...allowed.map((a) => `^src/${a}`)] },
    })),
    {
      name: 'web-speaks-client',
      severity: 'error',
      comment:
        'The dashboard runs in a browser: it imports the SDK, the protocol and the (pure) error factory only (the SDK reaches the rest).',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: ['^src/(web|client|protocol|errors)/', '^src/errors\\.ts$'] },
    },
    {
      name: 'nothing-imports-web',
      severity: 'error',
      comment: 'The dashboard is bundled apart and served as files: no module imports it.',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'client-speaks-protocol',
      severity: 'error',
      comment:
        'The SDK loads the protocol and its transports only: no engine, no interpreter, no native addon.',
      from: { path: '^src/client/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/(client|protocol|network|codec|dag|conversation|node|graph)/',
          '^src/errors\\.ts$',
        ],
      },
    },
    {
      name: 'mcp-not-engine',
      severity: 'error',
      comment:
        'The MCP server speaks to the engine through the client; of the server it uses only the listener guard (token, Host/Origin, socket directory).',
      from: { path: '^src/mcp/' },
      to: {
        path: '^src/server/',
        pathNot: '^src/server/transport/(token|origin|socketFile|ServerError)\\.ts$',
      },
    },
    {
      name: 'cli-server-lazily',
      severity: 'error',
      comment:
        'The CLI talks to the daemon through the client; it loads the server (an engine) only in its server command or lazily where it embeds one.',
      from: { path: '^src/cli/', pathNot: '^src/cli/commands/server\\.ts$' },
      to: { path: '^src/server/', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'heavy-parts-lazily',
      severity: 'error',
      comment:
        'The MCP SDK, BullMQ/ioredis and SQLite load only where used: never from the client or the protocol.',
      from: { path: '^src/(client|protocol)/' },
      to: {
        path: '(^|/)node_modules/(@modelcontextprotocol/sdk|bullmq|ioredis|better-sqlite3|node-pty)/',
      },
    },
    {
      name: 'types-only-from-network',
      severity: 'error',
      comment:
        'protocol/ and client/ take only types from network/: loading them loads no runtime.',
      from: { path: '^src/(protocol|client)/' },
      to: { path: '^src/network/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'network-model-not-run',
      severity: 'error',
      comment:
        'network/model/ (the value, envelopes, files, edits) knows nothing of network/run/ (the run that drives it).',
      from: { path: '^src/network/model/' },
      to: { path: '^src/network/run/' },
    },
    {
      name: 'network-model-pure',
      severity: 'error',
      comment:
        'network/model/ is pure: besides itself it imports the pure core (and the runtime for types only), no builtin, no package but fp-ts, io-ts and immer.',
      from: { path: '^src/network/model/' },
      to: {
        path: '^src/|^(node:)?[a-z_]+$|(^|/)node_modules/',
        pathNot: [
          '^src/network/model/',
          '^src/(codec|dag|conversation|node|graph)/index\\.ts$',
          '^src/errors\\.ts$',
          '^src/runtime/index\\.ts$',
          '(^|/)node_modules/(fp-ts|io-ts|immer)/',
        ],
      },
    },
    {
      name: 'network-model-runtime-types',
      severity: 'error',
      comment: 'network/model/ takes only types from the runtime.',
      from: { path: '^src/network/model/' },
      to: { path: '^src/runtime/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'network-through-index',
      severity: 'error',
      comment:
        'Outside src/network/, the network is imported through its index file only: its two rooms are its own business.',
      from: { path: '^src/', pathNot: '^src/network/' },
      to: { path: '^src/network/', pathNot: '^src/network/index\\.ts$' },
    },
    {
      name: 'pure-no-builtins',
      severity: 'error',
      comment: 'The pure layers import no Node.js builtin module.',
      from: { path: PURE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'pure-packages',
      severity: 'error',
      comment: 'The pure layers import no package but fp-ts, io-ts and immer.',
      from: { path: PURE },
      to: {
        dependencyTypesNot: ['local', 'core'],
        pathNot: '(^|/)(fp-ts|io-ts|immer)/',
      },
    },
    {
      name: 'faces-through-index',
      severity: 'error',
      comment: 'The layers above the core import it through its area index files (and errors.ts).',
      from: { path: '^src/(cli|server|client|mcp|network|chat|store|distributed)/' },
      to: {
        path: `^src/(${CORE.join('|')})/`,
        pathNot: `^src/(${CORE.join('|')})/index\\.ts$`,
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (a .js suffix names its .ts file).',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The build scripts (and the esbuild plugin they share) bundle the code; they are not part of it.
    exclude: { path: '^src/(fpTsEs6|cli/build|web/build)\\.js$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
}
