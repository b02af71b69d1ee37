import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type Conversation, llm, llmInterpreter, messages, openChat } from '../../src/index.js'
import { interpreters } from '../../src/core.js'
import { sqliteStore } from '../../src/store/index.js'
import { scriptedProvider } from '../../src/testing/index.js'

const base = mkdtempSync(join(tmpdir(), 'nerve-chat-'))
afterAll(() => {
  rmSync(base, { recursive: true, force: true })
})
const repoRoot = join(import.meta.dirname, '..', '..')

const texts = (head: Conversation) =>
  messages(head).map(
    (m) =>
      `${m.role}: ${typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('')}`,
  )

describe('a chat in the SQLite store', () => {
  it('opens again with its heads, and a retry writes no copy of the history', async () => {
    const path = join(base, 'kept.db')
    let n = 0
    const model = scriptedProvider([() => `answer ${n++}`], { loop: true })
    const registry = interpreters(llmInterpreter({ providers: model }))
    const store = sqliteStore(path)
    const chat = openChat({ id: 'c', agent: llm('a'), interpreters: registry, store })
    for (let i = 0; i < 20; i++) await chat.send(`message ${i}`)
    const before = store.vertexCount()
    await chat.retry()
    // the new answer and its stop reason: nothing of the history again
    expect(store.vertexCount() - before).toBe(2)
    await store.close()

    const again = sqliteStore(path)
    const reopened = openChat({ id: 'c', agent: llm('a'), interpreters: registry, store: again })
    expect(reopened.heads.map((h) => h.id)).toEqual(chat.heads.map((h) => h.id))
    expect(reopened.head?.id).toBe(chat.head?.id)
    expect(reopened.branches().branches).toHaveLength(2)
    expect(again.chats().map((c) => c.id)).toEqual(['c'])
    // gc keeps what the chat reaches
    expect(again.gc().vertices).toBe(0)
    await again.close()
  })

  it('keeps what was said when the process is killed mid-answer', async () => {
    const path = join(base, 'killed.db')
    const said = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'streamForever.ts'), path],
        { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let out = ''
      let err = ''
      let last = ''
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', (chunk: string) => {
        out += chunk
        const m = [...out.matchAll(/^said (.*)$/gm)].at(-1)
        if (m !== undefined && m[1]!.includes('forty') && last === '') {
          last = m[1]!
          child.kill('SIGKILL')
        }
      })
      child.stderr.on('data', (c: Buffer) => (err += c.toString()))
      child.on('error', reject)
      child.on('close', (_code, signal) => {
        if (signal === 'SIGKILL') resolve(last)
        else reject(new Error(`the child ended by itself: ${err}`))
      })
    })
    expect(said).toMatch(/^The answer is forty/)
    const store = sqliteStore(path)
    const chat = openChat({
      id: 'c',
      agent: llm('helper', { system: 'You help.' }),
      interpreters: interpreters(llmInterpreter({ providers: scriptedProvider(['Go on.']) })),
      store,
    })
    expect(chat.recovered).toBe(chat.head)
    const kept = texts(chat.head!)
    expect(kept.slice(0, 3)).toEqual(['user: hello', 'assistant: First.', 'user: what is it?'])
    // everything printed was saved (a word more may have been saved after the last print)
    expect(kept[3]!.startsWith(`assistant: ${said}`)).toBe(true)
    expect(chat.head!.data).toMatchObject({ type: 'stop_reason', reason: 'interrupted' })
    expect(store.partial('c')).toBeUndefined()
    // and the chat goes on from there
    const next = await chat.send('and?')
    expect(texts(next.head).slice(-2)).toEqual(['user: and?', 'assistant: Go on.'])
    await store.close()
  })
})
