/**
 * The commands that run work: repl, chat, graph, wezterm, worker, replay, network.
 */
import { act, example, type AddCommand } from './act.js'

const R = () => import('../commands/repl.js')
const G = () => import('../commands/graph.js')
const W = () => import('../commands/wezterm.js')
const NW = () => import('../commands/network.js')

/** The commands that run work: repl, chat, graph, wezterm, worker, replay, network, by name. */
export const runCommands: Readonly<Record<string, AddCommand>> = {
  repl: (root) => {
    example(
      root
        .command('repl')
        .description('a REPL with an engine of its own: @node text, :create, :fork, :graph run, …')
        .option('--history-file <file>', 'where typed lines are kept (env NERVE_REPL_HISTORY)')
        .action(act(async (o) => (await R()).repl(o))),
      'nerve repl',
    )
  },
  chat: (root) => {
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
        .option('--list', 'list the chats the store keeps (id, messages, branches) and exit')
        .action(
          act(async (id: string | undefined, o) =>
            (await import('../commands/chat.js')).chatCommand(id, o),
          ),
        ),
      'nerve chat --provider echo',
      'nerve chat my-chat   # come back to a chat',
      'nerve chat --list    # the kept chats',
      "echo 'hello' | nerve chat --provider echo",
    )
  },
  graph: (root) => {
    const graph = root.command('graph').description('graph files: validate, show, run')
    example(
      graph
        .command('validate <file>')
        .description(
          'check a graph file; every error with its JSON path (node kinds: those graph run runs here)',
        )
        .option('--server', "check node kinds against the daemon's")
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
        .option('--server', 'run on the daemon (its steps still run in this directory)')
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
  wezterm: (root) => {
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
  worker: (root) => {
    example(
      root
        .command('worker')
        .description('run the steps graph runs send to a BullMQ queue on Redis (nerve/distributed)')
        .option('--redis <url>', 'the Redis server (env NERVE_REDIS_URL)')
        .requiredOption('--queue <name>', 'the queue to take steps from')
        .option(
          '--functions <module>',
          'a JS module whose exported functions run function nodes, by name',
        )
        .option('--concurrency <n>', 'steps run at once', '1')
        .action(act(async (o) => (await import('../commands/worker.js')).worker(o))),
      'nerve worker --redis redis://127.0.0.1:6379 --queue steps --functions ./steps.mjs',
    )
  },
  replay: (root) => {
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
          act(async (f: string, o) => (await import('../commands/replay.js')).replayCommand(f, o)),
        ),
      'nerve graph run examples/fan-out.json --record run.rec.json && nerve replay run.rec.json',
      'nerve replay run.rec.json --graph changed.json',
      'nerve replay 5f0c…   # a recording id in the store',
    )
  },
  network: (root) => {
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
          act(async (id: string, node: string, m: string, o) => (await NW()).send(id, node, m, o)),
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
}
