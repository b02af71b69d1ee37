import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sqliteStore } from '../../src/store/index.js'
import { coderGraph } from '../chat/fixtures/coderGraph.js'
import { bin, nerve, root, testDir } from './run.js'

const dir = testDir('chat')
/** No provider from the user's environment: the CLI is told each one. */
const clean = {
  NERVE_HOME: join(dir, 'home'),
  OPENAI_API_KEY: '',
  OPENAI_BASE_URL: '',
  ANTHROPIC_API_KEY: '',
  GEMINI_API_KEY: '',
  GOOGLE_API_KEY: '',
}

describe('nerve chat', () => {
  it('answers piped lines with the echo model, and branches with /retry, /edit, /switch', async () => {
    const r = await nerve(
      ['chat', 'piped', '--provider', 'echo'],
      clean,
      'hello\n/edit hi\n/branches\n/switch 1\nmore\n/branches\n/nope\n',
    )
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines.slice(0, 2)).toEqual(['echo: hello', 'echo: hi'])
    expect(lines[2]).toMatch(/^ {3}1 {2}hello .*→ echo: hello {2}\(2 messages\)$/)
    expect(lines[3]).toMatch(/^\* {2}2 {2}hi .*→ echo: hi {2}\(2 messages, forked after 0\)$/)
    expect(lines[4]).toBe('on branch 1: echo: hello')
    expect(lines[5]).toBe('echo: more')
    expect(lines.slice(6, 8).map((l) => l.slice(0, 8))).toEqual(['   1  hi', '*  2  mo'])
    expect(lines[8]).toBe('unknown command /nope: /help lists them')
    expect(r.stderr).toMatch(/^chat piped \(new: no chat had this id\): \/help for commands/)
  })

  it('comes back to a chat kept in the store of its home', async () => {
    const first = await nerve(['chat', 'kept', '--provider', 'echo'], clean, 'one\n')
    expect(first.code, first.stderr).toBe(0)
    const again = await nerve(['chat', 'kept'], clean, '/branches\ntwo\n')
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/^chat kept \(2 messages\)/)
    expect(again.stdout.split('\n').slice(0, 2)).toEqual([
      '*  1  one                             → echo: one  (2 messages)',
      'echo: two',
    ])
    const store = sqliteStore(join(clean.NERVE_HOME, 'nerve.db'))
    expect(store.chats().map((c) => c.id)).toEqual(expect.arrayContaining(['kept', 'piped']))
    await store.close()
  })

  it('lists the kept chats with --list, and store ls and store export carry them', async () => {
    const listed = await nerve(['chat', '--list'], clean)
    expect(listed.code, listed.stderr).toBe(0)
    const lines = listed.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^piped +4 messages {2}2 branches {2}\d{4}-/)
    expect(lines[1]).toMatch(/^kept +4 messages {2}1 branch {2}\d{4}-/)
    const json = JSON.parse((await nerve(['chat', '--list', '--json'], clean)).stdout) as {
      chats: { id: string; messages: number; heads: string[] }[]
    }
    expect(json.chats.map((c) => [c.id, c.messages, c.heads.length])).toEqual([
      ['piped', 4, 2],
      ['kept', 4, 1],
    ])
    const ls = await nerve(['store', 'ls'], clean)
    expect(ls.stdout).toMatch(/^chats \(2\)$/m)
    expect(ls.stdout).toMatch(/^ {2}kept +4 messages/m)
    const exported = await nerve(['store', 'export', join(dir, 'backup'), '--json'], clean)
    expect(JSON.parse(exported.stdout)).toMatchObject({ chats: 2 })
    const other = { ...clean, NERVE_HOME: join(dir, 'restored') }
    const imported = await nerve(['store', 'import', join(dir, 'backup')], other)
    expect(imported.stdout).toMatch(/, 2 chats from /)
    const again = await nerve(['chat', 'kept'], other, '/branches\n')
    expect(again.stderr).toMatch(/^chat kept \(4 messages\)/)
  })

  it('gives two chats started in the same second two ids; one not kept does not say it comes back', async () => {
    const started = await Promise.all(
      ['one\n', 'two\n'].map((input) => nerve(['chat', '--provider', 'echo'], clean, input)),
    )
    const ids = started.map((r) => /^chat (chat-\d{8}-\d{6}-[0-9a-f]{4}):/.exec(r.stderr)?.[1])
    expect(ids.every((i) => i !== undefined) && ids[0] !== ids[1], ids.join(' ')).toBe(true)
    expect(started.map((r) => r.stdout.split('\n')[0])).toEqual(['echo: one', 'echo: two'])
    const loose = await nerve(['chat', '--provider', 'echo', '--no-store'], clean, 'hi\n/retry\n')
    expect(loose.stderr).toMatch(/: \/help for commands; not kept \(--no-store\)$/m)
    // echo answers a retry as before: the same answer is no new branch, and it says so.
    expect(loose.stdout.split('\n').slice(0, 3)).toEqual([
      'echo: hi',
      'echo: hi',
      '(the same answer as before: no new branch)',
    ])
  })

  it('shows tool calls as they run, with a provider the environment names and a linked toolset', async () => {
    writeFileSync(join(dir, 'notes.md'), '# notes')
    let calls = 0
    // An OpenAI-compatible server that streams: a tool call first, then the answer.
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        const delta =
          calls++ === 0
            ? {
                tool_calls: [
                  {
                    index: 0,
                    id: 'c1',
                    type: 'function',
                    function: { name: 'glob', arguments: '{"pattern":"*.md"}' },
                  },
                ],
              }
            : { content: 'There is notes.md.' }
        const chunks = [
          { choices: [{ index: 0, delta }] },
          {
            choices: [{ index: 0, delta: {}, finish_reason: calls === 1 ? 'tool_calls' : 'stop' }],
          },
          { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } },
        ]
        res.setHeader('content-type', 'text/event-stream')
        for (const c of chunks)
          res.write(`data: ${JSON.stringify({ id: 'r', model: 'local', ...c })}\n\n`)
        res.end('data: [DONE]\n\n')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const graph = join(dir, 'coder.json')
    writeFileSync(graph, JSON.stringify(coderGraph(dir, { system: 'You look at files.' })))
    try {
      const r = await nerve(
        ['chat', 'tools', '--graph', graph, '--no-store'],
        { ...clean, OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MODEL: 'local' },
        'which notes?\n',
      )
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout.split('\n')).toEqual([
        '⚙ glob {"pattern":"*.md"}',
        '  ↳ notes.md',
        'There is notes.md.',
        '',
      ])
    } finally {
      server.close()
    }
  })

  it('keeps what was said when it is killed mid-answer, and says so when it comes back', async () => {
    const words = ['The', ' answer', ' is', ' forty', ' two', ' and', ' more', ' words']
    let calls = 0
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        calls++
        res.setHeader('content-type', 'text/event-stream')
        let i = 0
        // Streams a word every 20 ms and never ends the answer.
        const timer = setInterval(() => {
          if (i >= words.length) return
          const chunk = {
            id: 'r1',
            model: 'local',
            choices: [{ index: 0, delta: { content: words[i++] } }],
          }
          res.write(`data: ${JSON.stringify(chunk)}\n\n`)
        }, 20)
        res.on('close', () => {
          clearInterval(timer)
        })
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const env = {
      ...process.env,
      ...clean,
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      OPENAI_MODEL: 'local',
    }
    try {
      const printed = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, 'chat', 'cut'], { cwd: root, env })
        let out = ''
        child.stdout.setEncoding('utf8')
        child.stdout.on('data', (d: string) => {
          out += d
          if (out.includes('forty')) child.kill('SIGKILL')
        })
        child.on('error', reject)
        child.on('close', (_code, signal) => {
          if (signal === 'SIGKILL') resolve(out)
          else reject(new Error(`nerve chat ended by itself: ${out}`))
        })
        child.stdin.write('tell me\n')
      })
      expect(printed).toMatch(/^The answer is forty/)
      expect(calls).toBe(1)
      const again = await nerve(['chat', 'cut', '--provider', 'echo'], clean, '/branches\n')
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toMatch(/the last answer was cut off/)
      // what was printed was saved as it streamed (the word printed last may have been on its way)
      const branch = /^\* {2}1 {2}tell me +→ (.*) {2}\(2 messages\)$/.exec(again.stdout.trim())
      expect(branch?.[1], again.stdout).toBeDefined()
      const saved = branch![1]!
      expect(saved.startsWith('The answer is'), again.stdout).toBe(true)
      expect(printed.startsWith(saved) || saved.startsWith(printed.trim()), again.stdout).toBe(true)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
