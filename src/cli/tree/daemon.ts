/**
 * The daemon's commands: server, dashboard, node, approvals, approve, deny, mcp.
 */
import { Command, Option } from 'commander'
import { act, example, type AddCommand } from './act.js'

const S = () => import('../commands/server.js')
const R = () => import('../commands/repl.js')
const A = () => import('../commands/approvals.js')
const N = () => import('../commands/node.js')

const nodeCommands = (parent: Command): void => {
  const node = parent
    .command('node')
    .description('nodes on the daemon (needs `nerve server start`)')
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
        "only these ops (send, send_stream, write, read, run, interrupt, close): a bash node's commands are run",
      )
      .option('--limit <n>', 'at most n records')
      .option('--since <iso>', 'records at or after this time')
      .option('--until <iso>', 'records before this time')
      .action(act(async (name: string, o) => (await N()).history(name, o))),
    'nerve node history shell --op run --limit 10',
  )
  example(
    node
      .command('conversation <name>')
      .description(
        "an LLM node's conversation: its messages as a tree (--json: the conversation file)",
      )
      .action(act(async (name: string, o) => (await N()).conversation(name, o))),
    'nerve node conversation chat',
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

/** The daemon's commands: server, dashboard, node, approvals, approve, deny, mcp, by name. */
export const daemonCommands: Readonly<Record<string, AddCommand>> = {
  server: (root) => {
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
  dashboard: (root) => {
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
  node: nodeCommands,
  approvals: (root) => {
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
  approve: (root) => {
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
  deny: (root) => {
    example(
      root
        .command('deny <request>')
        .description('deny a waiting request')
        .option('--note <text>', 'why, recorded with the decision')
        .action(act(async (r: string, o) => (await A()).decide('deny')(r, o))),
      "nerve deny approval-4 --note 'not in this repo'",
    )
  },
  mcp: (root) => {
    example(
      root
        .command('mcp')
        .description(
          'serve MCP (tools and node histories) on stdio, or Streamable HTTP with --http; uses the daemon when one runs',
        )
        .option('--http <host:port>', 'serve Streamable HTTP at POST /mcp instead of stdio')
        .action(act(async (o) => (await import('../commands/mcp.js')).mcp(o))),
      'nerve mcp',
      'nerve mcp --http 127.0.0.1:7701',
    )
  },
}
