import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSession, fn, llm, llmInterpreter, messages } from 'nerve-agents'
import { interpreters } from 'nerve-agents/core'
import {
  ConversationFileError,
  conversationOf,
  loadConversation,
  saveConversation,
  UnknownNode,
} from 'nerve-agents/session'
import { scriptedProvider } from 'nerve-agents/testing'

const setup = async () => {
  const model = scriptedProvider([(r) => `reply ${r.messages.length}`], { loop: true })
  const s = createSession({ interpreters: interpreters(llmInterpreter({ providers: model })) })
  s.register(llm('dev', { system: 'Be brief.' }))
  s.register(llm('other'))
  await s.execute('dev', 'one')
  await s.execute('dev', 'two')
  return { s, model, dir: mkdtempSync(join(tmpdir(), 'nerve-llm-')) }
}

describe('saving and loading an LLM node’s conversation', () => {
  it.each(['nerve', 'nano'] as const)(
    'round-trips through the %s format and goes on from it',
    async (format) => {
      const { s, model, dir } = await setup()
      const path = join(dir, `dev.${format}.json`)
      await saveConversation(s, 'dev', path, format)
      const head = await loadConversation(s, 'other', path)
      expect(messages(head)).toEqual(messages(conversationOf(s, 'dev')!))
      expect(await s.execute('other', 'three')).toBe('reply 5')
      expect(model.requests.at(-1)?.system).toBe('Be brief.')
      await s.close()
    },
  )

  it('refuses a bad file with a typed error naming it, and leaves the node as it was', async () => {
    const { s, dir } = await setup()
    const before = conversationOf(s, 'dev')
    const path = join(dir, 'bad.json')
    writeFileSync(path, '{"format":"nerve/conversation","version":1,"vertices":[{"id":1}]}')
    const error = await loadConversation(s, 'dev', path).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConversationFileError)
    expect((error as ConversationFileError).message).toContain(path)
    writeFileSync(path, 'not json')
    await expect(loadConversation(s, 'dev', path)).rejects.toBeInstanceOf(ConversationFileError)
    expect(conversationOf(s, 'dev')).toBe(before)
    await s.close()
  })

  it('writes atomically over an older file', async () => {
    const { s, dir } = await setup()
    const path = join(dir, 'dev.json')
    writeFileSync(path, 'old')
    await saveConversation(s, 'dev', path)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ format: 'nerve/conversation' })
    await s.close()
  })

  it('names an unknown node or one that is not an LLM', async () => {
    const { s, dir } = await setup()
    s.register(fn('f', () => 1))
    await expect(saveConversation(s, 'nope', join(dir, 'x.json'))).rejects.toBeInstanceOf(
      UnknownNode,
    )
    expect(() => conversationOf(s, 'f')).toThrow(/is a function node, not llm/)
    await s.close()
  })
})
