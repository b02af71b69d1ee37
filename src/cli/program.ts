/**
 * The `nerve` command tree. Each action imports its module when it runs, so
 * `nerve --version` and `--help` load nothing but commander; and a run
 * builds only the top-level command it names.
 */
import { Command, Option } from 'commander'
import type { GlobalOptions } from './context.js'

/**
 * Wraps an action (its arguments, then the options): the options are the
 * command's merged with the global ones; a failure is one line on stderr.
 */
const act =
  (f: (...args: never[]) => Promise<void>) =>
  async (...args: unknown[]): Promise<void> => {
    const cmd = args.at(-1) as Command
    const o = cmd.optsWithGlobals<GlobalOptions>()
    try {
      await (f as (...a: unknown[]) => Promise<void>)(...args.slice(0, -2), o)
    } catch (e) {
      // context.js loads the client and the server's protocol: only when a command runs
      ;(await import('./context.js')).fail(o, e)
    }
  }

const example = (cmd: Command, ...lines: string[]): Command =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`)

const nodeCommands = (parent: Command): void => {
  const node = parent
    .command('node')
    .description('nodes on the daemon (needs `nerve server start`)')
  const N = () => import('./commands/node.js')
  example(
    node
      .command('create <name>')
      .description('create a node and start it')
      .requiredOption('-k, --kind <kind>', 'node kind (`nerve node kinds` lists them)')
      .option('--options <json>', "the kind's options as a JSON object")
      .option('-s, --set <key=value...>', 'one option (value parsed as JSON when it parses)')
      .addHelpText(
        'after',
        `
Choosing a kind: \`nerve node kinds\` lists the daemon's kinds (the built-in
ones and any of its own), what each is for and its options.
A claude node runs in a WezTerm pane when WezTerm is installed, else in a
pseudo-terminal Nerve owns; choose with --set backend=pty|tmux|wezterm (tmux: a
session you can attach to); nerve node info NAME says where it runs. Its
permission prompts wait for nerve approve / nerve deny, unless
--set approvals='{"rules":[…]}' decides them.`,
      )
      .action(act(async (name: string, o) => (await N()).create(name, o))),
    'nerve node create shell --kind bash',
    'nerve node create chat --kind llm --set provider=echo',
    'nerve node create cl --kind claude',
    'nerve node create cl --kind claude --set backend=tmux',
  )
  example(
    node
      .command('info <name>')
      .description('one node: kind, state, where its terminal runs, metadata')
      .action(act(async (name: string, o) => (await N()).info(name, o))),
    'nerve node info cl',
    'nerve node info cl --json',
  )
  example(
    node
      .command('kinds')
      .description("the daemon's node kinds: what each is for, and its options")
      .action(act(async (o) => (await N()).kinds(o))),
    'nerve node kinds',
  )
  example(
    node
      .command('list')
      .description('list the nodes')
      .action(act(async (o) => (await N()).list(o))),
    'nerve node list --json',
  )
  example(
    node
      .command('execute <name> <input>')
      .description('send input and wait for the parsed answer')
      .option('-p, --parser <name>', 'parser: none, claude, gemini, codex')
      .option('-t, --timeout <ms>', 'give up after this many milliseconds')
      .option('--stream', 'print output chunks as they arrive')
      .action(act(async (name: string, input: string, o) => (await N()).execute(name, input, o))),
    "nerve node execute shell 'ls -la'",
  )
  example(
    node
      .command('run <name> <command>')
      .description('send input without waiting')
      .action(act(async (name: string, c: string, o) => (await N()).runCommand(name, c, o))),
    "nerve node run shell 'make test'",
  )
  example(
    node
      .command('read <name>')
      .description("read the node's output buffer")
      .option('--tail <n>', 'only the last n lines')
      .action(act(async (name: string, o) => (await N()).read(name, o))),
    'nerve node read shell --tail 20',
  )
  example(
    node
      .command('write <name> <data>')
      .description('write raw data to the node')
      .action(act(async (name: string, d: string, o) => (await N()).write(name, d, o))),
    "nerve node write shell $'q\\n'",
  )
  example(
    node
      .command('interrupt <name>')
      .description('send Ctrl-C')
      .action(act(async (name: string, o) => (await N()).interrupt(name, o))),
    'nerve node interrupt shell',
  )
  example(
    node
      .command('history <name>')
      .description("the node's history records")
      .option(
        '--op <op...>',
        'only these ops (send, send_stream, write, read, run, interrupt, close)',
      )
      .option('--limit <n>', 'at most n records')
      .option('--since <iso>', 'records at or after this time')
      .option('--until <iso>', 'records before this time')
      .action(act(async (name: string, o) => (await N()).history(name, o))),
    'nerve node history shell --op send --limit 10',
  )
  example(
    node
      .command('stop <name>')
      .description('stop the node')
      .action(act(async (name: string, o) => (await N()).stop(name, o))),
    'nerve node stop shell',
  )
  example(
    node
      .command('delete <name>')
      .description('stop the node and forget it')
      .action(act(async (name: string, o) => (await N()).remove(name, o))),
    'nerve node delete shell',
  )
  example(
    node
      .command('fork <source> <target>')
      .description('fork a node: conversations share history, terminals respawn')
      .option('--at <n>', 'fork at this message count')
      .option('--execute <input>', 'then send this input to the fork')
      .action(act(async (s: string, t: string, o) => (await N()).fork(s, t, o))),
    'nerve node fork chat chat-b --execute "try the other approach"',
  )
}

const S = () => import('./commands/server.js')
const R = () => import('./commands/repl.js')
const G = () => import('./commands/graph.js')
const W = () => import('./commands/wezterm.js')
const A = () => import('./commands/approvals.js')
const NW = () => import('./commands/network.js')
const ST = () => import('./commands/store.js')
const F = () => import('./commands/files.js')

/** The top-level commands, in the order help lists them: each adds itself (and its subcommands) to the root. */
const COMMANDS: readonly (readonly [string, (root: Command) => void])[] = [
  [
    'server',
    (root) => {
      const server = root.command('server').description('the Nerve daemon')
      example(
        server
          .command('start')
          .description('start the daemon (foreground unless --detach)')
          .option('-d, --detach', 'run in the background')
          .option('--tcp <host:port>', 'also serve NDJSON over TCP')
          .option('--http <host:port>', 'also serve HTTP POST /rpc and WebSocket /ws')
          .option(
            '--dashboard',
            'serve the web dashboard (on --http, or 127.0.0.1 on a free port) and print its one-time URL',
          )
          .option(
            '--store <path>',
            'save sessions here (env NERVE_STORE; default nerve.db in NERVE_HOME, ~/.nerve)',
          )
          .addOption(
            new Option('--store-kind <kind>', 'sqlite (default) or files (a JSON file)').choices([
              'sqlite',
              'files',
            ]),
          )
          .option('--no-store', 'save sessions nowhere')
          .action(act(async (o) => (await S()).start(o))),
        'nerve server start --detach',
        'nerve server start --http 127.0.0.1:7700',
        'nerve server start --dashboard',
      )
      example(
        server
          .command('stop')
          .description('shut the daemon down gracefully')
          .action(act(async (o) => (await S()).stop(o))),
        'nerve server stop',
      )
      example(
        server
          .command('status')
          .description('pid, addresses, uptime, sessions')
          .action(act(async (o) => (await S()).status(o))),
        'nerve server status --json',
      )
      example(
        server
          .command('repl')
          .description("a REPL on the daemon's session: @node text, :fork, :graph run, …")
          .option('--history-file <file>', 'where typed lines are kept (env NERVE_REPL_HISTORY)')
          .action(act(async (o) => (await R()).serverRepl(o))),
        'nerve server repl',
      )
      nodeCommands(server)
    },
  ],
  [
    'dashboard',
    (root) => {
      example(
        root
          .command('dashboard')
          .description("print a one-time URL that opens the daemon's web dashboard")
          .option('--open', 'also open it in the browser (xdg-open or open)')
          .action(act(async (o) => (await S()).dashboard(o))),
        'nerve dashboard',
        'nerve dashboard --open',
      )
    },
  ],
  ['node', nodeCommands],
  [
    'repl',
    (root) => {
      example(
        root
          .command('repl')
          .description(
            'a REPL with an engine of its own: @node text, :create, :fork, :graph run, …',
          )
          .option('--history-file <file>', 'where typed lines are kept (env NERVE_REPL_HISTORY)')
          .action(act(async (o) => (await R()).repl(o))),
        'nerve repl',
      )
    },
  ],
  [
    'chat',
    (root) => {
      example(
        root
          .command('chat [id]')
          .description(
            'chat with a model: answers stream, tool calls show as they run; /retry, /edit, /branches, /switch',
          )
          .option(
            '--provider <name>',
            'the model provider: echo (no key needed), or one the environment names',
          )
          .option('--system <text>', 'the system prompt')
          .option('--model <name>', "the provider's model")
          .option(
            '--graph <file>',
            'a graph file whose llm step answers (tools linked to it included)',
          )
          .option(
            '--daemon',
            "chat on the daemon (its session and store) instead of an engine of this program's own",
          )
          .option(
            '--store <file>',
            'the SQLite file chats are kept in (default: nerve.db in NERVE_HOME)',
          )
          .option('--no-store', 'keep the chat in memory only')
          .action(
            act(async (id: string | undefined, o) =>
              (await import('./commands/chat.js')).chatCommand(id, o),
            ),
          ),
        'nerve chat --provider echo',
        'nerve chat my-chat   # come back to a chat',
        "echo 'hello' | nerve chat --provider echo",
      )
    },
  ],
  [
    'graph',
    (root) => {
      const graph = root.command('graph').description('graph files: validate, show, run')
      example(
        graph
          .command('validate <file>')
          .description('check a graph file; every error with its JSON path')
          .action(act(async (f: string, o) => (await G()).validate(f, o))),
        'nerve graph validate examples/release-check.json',
      )
      example(
        graph
          .command('show <file>')
          .description("print the graph's steps")
          .option('--mermaid', 'as a Mermaid flowchart')
          .action(act(async (f: string, o) => (await G()).show(f, o))),
        'nerve graph show examples/release-check.json --mermaid',
      )
      example(
        graph
          .command('run <file>')
          .description('run a graph (in this process, or on the daemon with --server)')
          .option('--server', 'run on the daemon')
          .option('--max-parallel <n>', 'at most n steps at once')
          .option('--input <value>', 'the graph input (JSON when it parses)')
          .option('--trace <file>', "write the run's trace here as a self-contained HTML page")
          .option(
            '--record [file]',
            'record everything the steps answered, to replay with `nerve replay`: in this file, or (no file) in the store',
          )
          .action(act(async (f: string, o) => (await G()).run(f, o))),
        'nerve graph run examples/release-check.json',
        'nerve graph run examples/fan-out.json --record   # then: nerve replay RUN_ID',
        'nerve graph run examples/fan-out.json --trace fan-out.html',
        'nerve graph run examples/fan-out.json --max-parallel 2 --json',
      )
      example(
        graph
          .command('runs')
          .description("the daemon's graph runs: running ones and the last finished")
          .action(act(async (o) => (await G()).runs(o))),
        'nerve graph runs --json',
      )
      example(
        graph
          .command('watch <runId>')
          .description('follow a run on the daemon live: the same tree and lines as graph run')
          .action(act(async (id: string, o) => (await G()).watch(id, o))),
        'nerve graph watch 5f0c…   # an id from nerve graph runs',
      )
      example(
        graph
          .command('cancel <runId>')
          .description('cancel a run on the daemon')
          .action(act(async (id: string, o) => (await G()).cancel(id, o))),
        'nerve graph cancel run-1',
      )
    },
  ],
  [
    'wezterm',
    (root) => {
      const wezterm = root
        .command('wezterm')
        .description('WezTerm panes through `wezterm cli` (no daemon needed)')
      example(
        wezterm
          .command('list')
          .description('list the panes of the running WezTerm')
          .action(act(async (o) => (await W()).list(o))),
        'nerve wezterm list --json',
      )
      example(
        wezterm
          .command('spawn [command...]')
          .description('open a pane running a command (default: your shell); prints its id')
          .option('--cwd <dir>', 'working directory')
          .action(act(async (c: string[], o) => (await W()).spawnPane(c, o))),
        'nerve wezterm spawn -- claude',
      )
      example(
        wezterm
          .command('send <pane> <text>')
          .description('type text into a pane, then Enter')
          .option('--no-enter', 'do not press Enter after the text')
          .action(act(async (p: string, t: string, o) => (await W()).send(p, t, o))),
        "nerve wezterm send 3 'git status'",
      )
      example(
        wezterm
          .command('read <pane>')
          .description("a pane's screen text")
          .option('--tail <n>', 'only the last n lines')
          .action(act(async (p: string, o) => (await W()).read(p, o))),
        'nerve wezterm read 3 --tail 20',
      )
      example(
        wezterm
          .command('kill <pane>')
          .description('close a pane')
          .action(act(async (p: string, o) => (await W()).kill(p, o))),
        'nerve wezterm kill 3',
      )
    },
  ],
  [
    'worker',
    (root) => {
      example(
        root
          .command('worker')
          .description(
            'run the steps graph runs send to a BullMQ queue on Redis (nerve/distributed)',
          )
          .option('--redis <url>', 'the Redis server (env NERVE_REDIS_URL)')
          .requiredOption('--queue <name>', 'the queue to take steps from')
          .option(
            '--functions <module>',
            'a JS module whose exported functions run function nodes, by name',
          )
          .option('--concurrency <n>', 'steps run at once', '1')
          .action(act(async (o) => (await import('./commands/worker.js')).worker(o))),
        'nerve worker --redis redis://127.0.0.1:6379 --queue steps --functions ./steps.mjs',
      )
    },
  ],
  [
    'replay',
    (root) => {
      example(
        root
          .command('replay <recording>')
          .description(
            'run a recorded graph run again from its recording: no model, process or clock is called',
          )
          .option(
            '--graph <file>',
            'replay this graph file instead of the recorded one (a change is a divergence)',
          )
          .option(
            '--from <step>',
            'answer from the recording up to this step (a/b for nested), then run live',
          )
          .option(
            '--store <path>',
            'the SQLite store RECORDING is an id in (default NERVE_STORE, then nerve.db in NERVE_HOME, ~/.nerve)',
          )
          .action(
            act(async (f: string, o) => (await import('./commands/replay.js')).replayCommand(f, o)),
          ),
        'nerve graph run examples/fan-out.json --record run.rec.json && nerve replay run.rec.json',
        'nerve replay run.rec.json --graph changed.json',
        'nerve replay 5f0c…   # a recording id in the store',
      )
    },
  ],
  [
    'approvals',
    (root) => {
      example(
        root
          .command('approvals')
          .description(
            'approval requests waiting on the daemon: permission prompts of CLI agents, tool calls, networks',
          )
          .option('--node <name>', 'only those of this node')
          .option('--network <id>', 'only those of this network')
          .action(act(async (o) => (await A()).list(o))),
        'nerve approvals',
        'nerve approvals --json',
      )
    },
  ],
  [
    'approve',
    (root) => {
      example(
        root
          .command('approve <request>')
          .description('approve a waiting request (nerve approvals lists them)')
          .option('--note <text>', 'why, recorded with the decision')
          .option(
            '--arguments <json>',
            "the tool call's arguments, edited (where the asker allows it)",
          )
          .action(act(async (r: string, o) => (await A()).decide('approve')(r, o))),
        "nerve approve approval-3 --note 'looks right'",
      )
    },
  ],
  [
    'deny',
    (root) => {
      example(
        root
          .command('deny <request>')
          .description('deny a waiting request')
          .option('--note <text>', 'why, recorded with the decision')
          .action(act(async (r: string, o) => (await A()).decide('deny')(r, o))),
        "nerve deny approval-4 --note 'not in this repo'",
      )
    },
  ],
  [
    'network',
    (root) => {
      const network = root
        .command('network')
        .description("live agent networks: run a network file, or work with the daemon's networks")
      example(
        network
          .command('run <file>')
          .description('run a network until it is idle; prints deliveries, firings, edits, halts')
          .option('--send <node=message...>', 'send a message to a node once it starts')
          .option('--root <dir>', "the nodes' working directory (default: here)")
          .option('--html <file>', 'write the envelope DAG here as a self-contained HTML page')
          .option('--server', 'run it on the daemon (default: in this process)')
          .option('--detach', 'with --server: leave it running there and return at once')
          .action(act(async (f: string, o) => (await NW()).run(f, o))),
        "nerve network run examples/review.network.json --send 'writer=Write a haiku about queues'",
        'nerve network run team.network.json --server --detach',
      )
      example(
        network
          .command('list')
          .description("the daemon's networks: running ones and the last finished ones")
          .action(act(async (o) => (await NW()).list(o))),
        'nerve network list --json',
      )
      example(
        network
          .command('status <id>')
          .description('one network on the daemon: state, nodes, approvals waiting, halts')
          .action(act(async (id: string, o) => (await NW()).status(id, o))),
        'nerve network status team',
      )
      example(
        network
          .command('watch <id>')
          .description('follow a network on the daemon live (one run with --detach), until it ends')
          .action(act(async (id: string, o) => (await NW()).watch(id, o))),
        'nerve network watch team',
      )
      example(
        network
          .command('send <id> <node> <message>')
          .description('send a user message to a node of a network on the daemon')
          .action(
            act(async (id: string, node: string, m: string, o) =>
              (await NW()).send(id, node, m, o),
            ),
          ),
        "nerve network send team planner 'Plan the login page'",
      )
      example(
        network
          .command('trigger <id> <node> [message]')
          .description('fire a node now (a manual node fires only so)')
          .action(
            act(async (id: string, node: string, m: string | undefined, o) =>
              (await NW()).trigger(id, node, m, o),
            ),
          ),
        'nerve network trigger team verifier',
      )
      for (const how of ['approve', 'deny'] as const) {
        example(
          network
            .command(`${how} <id> <request>`)
            .description(`${how} an approval request that is waiting (network status lists them)`)
            .option('--note <text>', 'why, recorded with the decision')
            .action(act(async (id: string, r: string, o) => (await NW()).decide(how)(id, r, o))),
          `nerve network ${how} team approval-1 --note 'reviewed'`,
        )
      }
      example(
        network
          .command('stop <id>')
          .description('end a network on the daemon once nothing is in flight')
          .action(act(async (id: string, o) => (await NW()).end('stop')(id, o))),
        'nerve network stop team',
      )
      example(
        network
          .command('cancel <id>')
          .description('end a network on the daemon now; firings in flight are aborted')
          .action(act(async (id: string, o) => (await NW()).end('cancel')(id, o))),
        'nerve network cancel team',
      )
      example(
        network
          .command('show <file>')
          .description("a network's nodes and edges")
          .option('--mermaid', 'as a Mermaid flowchart')
          .action(act(async (f: string, o) => (await NW()).show(f, o))),
        'nerve network show examples/review.network.json --mermaid',
      )
    },
  ],
  [
    'store',
    (root) => {
      const store = root
        .command('store')
        .description('the SQLite store: sessions, runs, recordings, envelopes (no daemon needed)')
        .option(
          '--store <path>',
          'the store (env NERVE_STORE; default nerve.db in NERVE_HOME, ~/.nerve)',
        )
      example(
        store
          .command('ls')
          .description('sessions with their nodes, runs, recordings (with sizes), networks')
          .action(act(async (o) => (await ST()).ls(o))),
        'nerve store ls',
      )
      example(
        store
          .command('show <id>')
          .description('one session, run or recording by id')
          .action(act(async (id: string, o) => (await ST()).show(id, o))),
        'nerve store show default',
      )
      example(
        store
          .command('export <dir>')
          .description('everything in the store as plain files (JSON, JSONL) in a directory')
          .option('--nano', 'conversations as nano-agent JSON')
          .action(act(async (d: string, o) => (await ST()).exportTo(d, o))),
        'nerve store export backup/',
      )
      example(
        store
          .command('import <dir>')
          .description('what store export wrote, into the store')
          .action(act(async (d: string, o) => (await ST()).importFrom(d, o))),
        'nerve store import backup/ --store other.db',
      )
      example(
        store
          .command('gc')
          .description(
            'drop conversation vertices no node reaches (and old recordings), compact the file',
          )
          .option('--keep-recordings <n>', 'keep only the n newest recordings')
          .action(act(async (o) => (await ST()).gc(o))),
        'nerve store gc --keep-recordings 20',
      )
    },
  ],
  [
    'init',
    (root) => {
      example(
        root
          .command('init')
          .description(
            'a starter graph and network file here, with their JSON Schemas; both run at once, no key',
          )
          .option('--force', 'overwrite files already there')
          .action(act(async (o) => (await import('./commands/init.js')).init(o))),
        'nerve init && nerve graph run hello.graph.json && nerve network run hello.network.json',
      )
    },
  ],
  [
    'schema',
    (root) => {
      example(
        root
          .command('schema <format>')
          .description(
            'the JSON Schema of a file format (graph or network), from the codecs that decode it',
          )
          .action(act(async (f: string, o) => (await import('./commands/schema.js')).schema(f, o))),
        'nerve schema graph > graph.schema.json   # then "$schema": "./graph.schema.json" in a graph file',
      )
    },
  ],
  [
    'extract',
    (root) => {
      example(
        root
          .command('extract [file]')
          .description("split a CLI agent's output into sections (reads stdin for - or no file)")
          .option('-p, --parser <name>', 'claude, gemini, codex or none', 'claude')
          .action(act(async (f: string | undefined, o) => (await F()).extract(f, o))),
        'tmux capture-pane -p | nerve extract --parser claude --json',
      )
    },
  ],
  [
    'view',
    (root) => {
      example(
        root
          .command('view <file>')
          .description(
            "a conversation file (Nerve or nano-agent JSON) or a run's trace (graph run --json) as self-contained HTML",
          )
          .option('-o, --output <file>', 'write the HTML here instead of stdout')
          .action(act(async (f: string, o) => (await F()).view(f, o))),
        'nerve view out/demo/conversation.nerve.json -o conversation.html',
        'nerve graph run examples/fan-out.json --json | tail -n 1 > run.json && nerve view run.json -o run.html',
      )
    },
  ],
  [
    'mcp',
    (root) => {
      example(
        root
          .command('mcp')
          .description(
            'serve MCP (tools and node histories) on stdio, or Streamable HTTP with --http; uses the daemon when one runs',
          )
          .option('--http <host:port>', 'serve Streamable HTTP at POST /mcp instead of stdio')
          .action(act(async (o) => (await import('./commands/mcp.js')).mcp(o))),
        'nerve mcp',
        'nerve mcp --http 127.0.0.1:7701',
      )
    },
  ],
]

/**
 * The top-level command `args` (the arguments after `nerve`) names, when it
 * is one of {@link COMMANDS}: the first argument that is neither a root
 * option nor the value of one.
 */
const commandOf = (root: Command, args: readonly string[]): string | undefined => {
  const takesValue = new Set(
    root.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]),
  )
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith('-')) return COMMANDS.some(([name]) => name === a) ? a : undefined
    if (takesValue.has(a)) i++
  }
  return undefined
}

/**
 * Builds the program; `version` is printed by `--version`. Given the
 * arguments it will parse (those after `nerve`), it builds only the
 * top-level command they name — a command's start is what a user waits for
 * — and every command when they name none (`nerve`, `--help`, a typo that
 * help suggests a command for).
 */
export const program = (version: string, args: readonly string[] = []): Command => {
  const root = new Command('nerve')
    .description('Nerve: LLM agent systems out of immutable values — daemon, nodes, graphs')
    .version(version)
    .option(
      '--socket <path>',
      'daemon socket (env NERVE_SOCKET; default nerve.sock in NERVE_HOME, ~/.nerve)',
    )
    .option('--url <url>', 'daemon URL, http://host:port or tcp://host:port (env NERVE_URL)')
    .option('--token <token>', 'token for TCP/HTTP (env NERVE_TOKEN)')
    .option('--session <id>', 'session on the daemon (default: its default session)')
    .option('--json', 'machine-readable output: one JSON value, or NDJSON for streams')
    .option('--verbose', 'print stack traces of errors')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      // with --json a usage error is the same one JSON value as every other failure, on stdout
      outputError: (text, write) => {
        if (!process.argv.includes('--json')) {
          write(text)
          return
        }
        const message = text.split('\n')[0]!.replace(/^error: /, '')
        process.stdout.write(`${JSON.stringify({ error: { tag: 'UsageError', message } })}\n`)
      },
    })

  const only = commandOf(root, args)
  for (const [name, add] of COMMANDS) if (only === undefined || name === only) add(root)
  return root
}
