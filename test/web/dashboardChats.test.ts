/**
 * The dashboard's Chats view and a saved session opened live, in Debian's
 * Chromium against a real daemon whose default model is a local
 * OpenAI-compatible server scripted here (it streams, and holds an answer
 * until the test lets it go, so the page is seen mid-answer).
 */
import { writeFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { coderGraph } from '../chat/fixtures/coderGraph.js'
import { dashboard, seriousViolations, shots } from './harness.js'

/** A promise the test resolves: the model's answer waits for it. */
const gate = () => {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { open, wait }
}
const firstAnswer = gate()
const afterTool = gate()

interface Sent {
  readonly role: string
  readonly content?: unknown
}
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((b: { text?: string }) => b.text ?? '').join('')
      : ''

let answers = 0
/** The scripted model: a tool call for "which notes", one that never ends for "wait", else "Answer N to …". */
const answer = async (body: { messages: Sent[] }, res: ServerResponse): Promise<void> => {
  const last = body.messages.at(-1)!
  const asked = textOf([...body.messages].reverse().find((m) => m.role === 'user')?.content)
  res.setHeader('content-type', 'text/event-stream')
  const send = (delta: object, finish?: string) =>
    res.write(
      `data: ${JSON.stringify({ id: 'r', model: 'local', choices: [{ index: 0, delta, ...(finish !== undefined && { finish_reason: finish }) }] })}\n\n`,
    )
  const end = (finish: string) => {
    send({}, finish)
    res.write(
      `data: ${JSON.stringify({ id: 'r', model: 'local', choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}\n\n`,
    )
    res.end('data: [DONE]\n\n')
  }
  if (last.role === 'tool') {
    await afterTool.wait
    send({ content: 'There is notes.md.' })
    end('stop')
  } else if (asked.includes('which notes')) {
    send({
      tool_calls: [
        {
          index: 0,
          id: 'c1',
          type: 'function',
          function: { name: 'glob', arguments: '{"pattern":"*.md"}' },
        },
      ],
    })
    end('tool_calls')
  } else if (asked === 'wait') {
    send({ content: 'Still thinking' }) // and never more: the turn is cancelled
  } else {
    const n = ++answers
    send({ content: `Answer ${n}` })
    if (n === 1) await firstAnswer.wait
    send({ content: ` to ${asked}.` })
    end('stop')
  }
}

const model = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d: string) => (body += d))
  req.on('end', () => void answer(JSON.parse(body) as { messages: Sent[] }, res))
})

const daemon = dashboard('dashboard-chats', async () => {
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve))
  const { port } = model.address() as AddressInfo
  return {
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
    GOOGLE_API_KEY: '',
    OPENAI_MODEL: 'local',
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
  }
})
const dir = daemon.dir
writeFileSync(join(dir, 'notes.md'), '# notes')
let sdk: NerveClient

beforeAll(async () => {
  sdk = await NerveClient.connect(join(daemon.env.NERVE_HOME!, 'nerve.sock'))
})

afterAll(async () => {
  await sdk.close()
  model.closeAllConnections()
  model.close()
})

describe('the chats view', () => {
  it('lists a chat made elsewhere at once, streams an answer, retries, edits, switches, cancels, and shows tool calls as they run', async () => {
    const { page, context, errors } = await daemon.open({ bypassCSP: true })
    await page.getByRole('button', { name: 'Chats' }).click()
    await page.getByText('No chats yet.').waitFor()
    // Made by another client: the page learns of it from CHAT_CREATED.
    await sdk.chat('tools', { graph: coderGraph(dir, { system: 'You look at files.' }) })
    await page.locator('[data-chatitem="tools"]').waitFor()

    await page.getByLabel('Chat id').fill('talk')
    await page.getByRole('button', { name: 'Create chat' }).click()
    const chat = page.locator('[data-chat="talk"]')
    const say = async (text: string) => {
      await page.getByLabel('Say to talk').fill(text)
      await chat.getByRole('button', { name: 'Send' }).click()
    }
    const assistant = chat.locator('[data-message="assistant"]')
    // The answer is drawn as it streams, before it ends.
    await say('hello')
    await chat.locator('[data-live="running"] [data-streaming]').getByText('Answer 1').waitFor()
    expect(await assistant.count()).toBe(0)
    await page.locator('[data-chatitem="talk"][data-running="true"]').waitFor()
    firstAnswer.open()
    await assistant.getByText('Answer 1 to hello.').waitFor()
    await chat.locator('[data-live]').waitFor({ state: 'detached' })

    // Retry: a second answer to the same message, a sibling branch.
    await chat.getByRole('button', { name: 'Retry', exact: true }).click()
    await assistant.getByText('Answer 2 to hello.').waitFor()
    await expect.poll(() => chat.locator('[data-branch]').count()).toBe(2)
    await expect.poll(() => chat.locator('[data-head]').count()).toBe(2)
    expect(await chat.locator('[data-vertex][data-role="user"]').count()).toBe(1)
    expect(await chat.locator('[data-head="current"]').textContent()).not.toContain('Answer 1')

    // Switch back to the first branch.
    await chat.getByRole('button', { name: 'Switch to branch 1' }).click()
    await assistant.getByText('Answer 1 to hello.').waitFor()
    await chat.locator('[data-branch][data-current="true"]').getByText('Answer 1').waitFor()

    // Edit the user message, chosen in the tree: a third branch.
    await chat.locator('[data-vertex][data-role="user"]').click()
    await chat.getByLabel('Edit the message').fill('hi')
    await chat.getByRole('button', { name: 'Edit as a new branch' }).click()
    await assistant.getByText('Answer 3 to hi.').waitFor()
    await expect.poll(() => chat.locator('[data-branch]').count()).toBe(3)
    await page.screenshot({ path: join(shots, 'chats.png'), fullPage: true })

    // Cancel a turn mid-answer: what was said is kept.
    await say('wait')
    await chat.locator('[data-live="running"]').getByText('Still thinking').waitFor()
    await chat.getByRole('button', { name: 'Cancel' }).click()
    await assistant.getByText('Still thinking').waitFor()
    await page.locator('[data-chatitem="talk"][data-running="false"]').waitFor()

    // Tool calls as they run, in the chat made elsewhere.
    await page.locator('[data-chatitem="tools"]').click()
    const tools = page.locator('[data-chat="tools"]')
    await page.getByLabel('Say to tools').fill('which notes?')
    await tools.getByRole('button', { name: 'Send' }).click()
    const call = tools.locator('[data-live="running"] [data-tool="glob"][data-toolstate="done"]')
    await call.getByText('notes.md', { exact: false }).first().waitFor()
    expect(await call.innerText()).toContain('{"pattern":"*.md"}')
    await page.screenshot({ path: join(shots, 'chats-tools.png'), fullPage: true })
    afterTool.open()
    await tools.locator('[data-message="assistant"]').getByText('There is notes.md.').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('a saved session opened live', () => {
  it("registers the saved session's nodes again, which the nodes view then shows with their conversation", async () => {
    // Another session's nodes, kept in the store as they changed, opened in the default one.
    const old = { sessionId: 'old' }
    await sdk.call('CREATE_SESSION', old)
    await sdk.call('CREATE_NODE', {
      ...old,
      nodeId: 'keeper',
      kind: 'llm',
      options: { provider: 'echo' },
    })
    await sdk.call('EXECUTE_INPUT', { ...old, nodeId: 'keeper', input: 'remember me' })

    const { page, context, errors } = await daemon.open({ bypassCSP: true })
    expect(await page.locator('[data-node="keeper"]').count()).toBe(0)
    await page.getByRole('button', { name: 'Store' }).click()
    await page.locator('[data-savedsession="old"]').click()
    await page.getByRole('button', { name: 'Open live' }).click()
    await page.locator('[data-loaded="keeper"]').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(shots, 'store-live.png'), fullPage: true })
    await page.getByRole('button', { name: 'Show the nodes' }).click()
    await page.locator('[data-node="keeper"]').waitFor()
    // Its conversation came back with it.
    await page.getByRole('button', { name: 'Conversations' }).click()
    await page.getByLabel('Conversation', { exact: true }).selectOption('keeper')
    await page
      .locator('[data-conversation="keeper"]')
      .getByText('assistant: echo: remember me')
      .waitFor()
    // Opened again, nothing is registered twice.
    await page.getByRole('button', { name: 'Store' }).click()
    await page.locator('[data-savedsession="old"]').click()
    await page.getByRole('button', { name: 'Open live' }).click()
    await page.getByText('keeper (the name is taken)', { exact: false }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })
})
