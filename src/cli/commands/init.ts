/**
 * `nerve init`: a starter graph file and network file in the current
 * directory, valid, each naming its JSON Schema (written beside them in
 * `nerve-schemas/`) so an editor completes their keys; both run at once
 * with the built-in scripted models (`graph run`, `network run`), no key.
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { writeFileAtomic } from '../../interpreters/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'
import { schemaText } from './schema.js'

const SCHEMAS = 'nerve-schemas'

/** The starter graph: a shell step, a model step (the `echo` provider answers without a key), a last shell step. */
export const starterGraph = {
  $schema: `./${SCHEMAS}/graph.schema.json`,
  id: 'hello',
  nodes: {
    sh: { kind: 'bash' },
    assistant: { kind: 'llm', provider: 'echo', system: 'You answer in one line.' },
  },
  steps: [
    { id: 'facts', node: 'sh', input: 'echo "Nerve runs graphs of nodes"' },
    {
      id: 'answer',
      node: 'assistant',
      input: 'Say hello to Nerve',
      dependsOn: ['facts'],
      onError: { type: 'retry', count: 1 },
    },
    { id: 'goodbye', node: 'sh', input: 'echo goodbye', dependsOn: ['answer'] },
  ],
}

/** The starter network: a writer and a reviewer on scripted models, the writer starting by itself. */
export const starterNetwork = {
  $schema: `./${SCHEMAS}/network.schema.json`,
  format: 'nerve/network',
  version: 1,
  id: 'hello-team',
  nodes: [
    {
      id: 'writer',
      role: 'Coder',
      prompt: 'Write a haiku about queues.',
      provider: {
        type: 'mock',
        script: [
          'Queues hold each message, / the newest waits its turn, / nothing is dropped.',
          'DONE',
        ],
      },
    },
    {
      id: 'reviewer',
      role: 'Verifier',
      provider: { type: 'mock', script: ['Approved.'] },
    },
  ],
  edges: [{ from: 'writer', to: 'reviewer' }],
}

/** `nerve init [--force]`: writes the starters; an existing file is refused unless `--force`. */
export const init = async (o: GlobalOptions & { readonly force?: boolean }): Promise<void> => {
  const files: readonly (readonly [string, string])[] = [
    ['hello.graph.json', `${JSON.stringify(starterGraph, null, 2)}\n`],
    ['hello.network.json', `${JSON.stringify(starterNetwork, null, 2)}\n`],
    [join(SCHEMAS, 'graph.schema.json'), schemaText('graph')],
    [join(SCHEMAS, 'network.schema.json'), schemaText('network')],
  ]
  const taken = files.map(([f]) => f).filter((f) => existsSync(f))
  if (taken.length > 0 && o.force !== true) {
    throw new CliError(
      'FileExists',
      `${taken.join(', ')} already there: nothing written (--force overwrites)`,
      resolve(taken[0]!),
      'conflict',
    )
  }
  for (const [f, text] of files) await writeFileAtomic(f, text)
  print(o, { written: files.map(([f]) => f) }, (r) =>
    [
      `Wrote ${r.written.join(', ')}`,
      'Next:',
      '  nerve graph run hello.graph.json',
      '  nerve network run hello.network.json',
      'Both run on scripted models, no key needed. The keys are in docs/files.md; nerve schema graph prints the schema.',
    ].join('\n'),
  )
}
