/**
 * The commands on files and the store: store, init, schema, extract, view.
 */
import { act, example, type AddCommand } from './act.js'

const ST = () => import('../commands/store.js')
const F = () => import('../commands/files.js')

/** The commands on files and the store: store, init, schema, extract, view, by name. */
export const fileCommands: Readonly<Record<string, AddCommand>> = {
  store: (root) => {
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
  init: (root) => {
    example(
      root
        .command('init')
        .description(
          'a starter graph and network file here, with their JSON Schemas; both run at once, no key',
        )
        .option('--force', 'overwrite files already there')
        .action(act(async (o) => (await import('../commands/init.js')).init(o))),
      'nerve init && nerve graph run hello.graph.json && nerve network run hello.network.json',
    )
  },
  schema: (root) => {
    example(
      root
        .command('schema <format>')
        .description(
          'the JSON Schema of a file format (graph or network), from the codecs that decode it',
        )
        .action(act(async (f: string, o) => (await import('../commands/schema.js')).schema(f, o))),
      'nerve schema graph > graph.schema.json   # then "$schema": "./graph.schema.json" in a graph file',
    )
  },
  extract: (root) => {
    example(
      root
        .command('extract [file]')
        .description("split a CLI agent's output into sections (reads stdin for - or no file)")
        .option('-p, --parser <name>', 'claude, gemini, codex or none', 'claude')
        .action(act(async (f: string | undefined, o) => (await F()).extract(f, o))),
      'tmux capture-pane -p | nerve extract --parser claude --json',
    )
  },
  view: (root) => {
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
}
