/**
 * A big chat on the dashboard, in Debian's Chromium against a real daemon:
 * a tree of some three thousand vertices (kept in the daemon's store
 * before it starts) opens with its current branch and every head drawn and
 * the rest folded, without holding the page up; a turn's end sends the
 * page only what the turn added.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pipe } from 'fp-ts/lib/function.js'
import { describe, expect, it } from 'vitest'
import { assistant, empty, system, user, type Conversation } from '../../src/conversation/index.js'
import { sqliteStore } from '../../src/store/index.js'
import { dashboard, seriousViolations, shots } from './harness.js'

/** How many turns the chat's main branch holds: two vertices each. */
const TURNS = 1500
/** Where a branch of ten turns was edited off the main one. */
const FORKS = new Set([100, 700, 1400])

/** The chat: its main branch, a branch of ten turns at each fork, and a retried last answer. */
const bigChat = () => {
  let c: Conversation = pipe(empty, system('You answer.'))
  const heads: Conversation[] = []
  let asked = c
  for (let i = 0; i < TURNS; i++) {
    if (FORKS.has(i)) {
      let b = pipe(c, user(`edited ${i}`), assistant(`answer to edited ${i}`))
      for (let j = 1; j < 10; j++)
        b = pipe(b, user(`branch ${i}.${j}`), assistant(`answer ${i}.${j}`))
      heads.push(b)
    }
    asked = pipe(c, user(`message ${i}`))
    c = pipe(asked, assistant(`answer ${i}`))
  }
  heads.push(pipe(asked, assistant('another answer')), c)
  return { heads, current: c }
}

const daemon = dashboard('dashboard-chat-tree', async () => {
  const home = daemon.env.NERVE_HOME!
  mkdirSync(home, { recursive: true })
  const store = sqliteStore(join(home, 'nerve.db'))
  store.saveChat({
    id: 'big',
    createdAt: new Date().toISOString(),
    metadata: { agent: { provider: 'echo' } },
    ...bigChat(),
  })
  await store.close()
  return {}
})

/** In the page, before it loads: the long tasks of its main thread, and when each started. */
const watchLongTasks = `(() => {
  window.longTasks = []
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration })
  }).observe({ type: 'longtask', buffered: true })
})()`

describe('a big chat on the dashboard', () => {
  it('opens folded, with its current branch and heads drawn, responsive, and a turn sends it only what the turn added', async () => {
    /** The texts of the CHAT_GET answers the page received. */
    const answers: string[] = []
    const { page, context, errors } = await daemon.open({
      bypassCSP: true,
      prepare: async (p) => {
        await p.addInitScript(watchLongTasks)
        p.on('websocket', (ws) => {
          ws.on('framereceived', ({ payload }) => {
            const text = String(payload)
            if (text.includes('"result":{"chatId":"big"') && text.includes('"conversation":'))
              answers.push(text)
          })
        })
      },
    })
    await page.getByRole('button', { name: 'Chats' }).click()
    const opening = await page.evaluate(() => performance.now())
    await page.locator('[data-chatitem="big"]').click()
    const chat = page.locator('[data-chat="big"]')
    const current = chat.locator('[data-head="current"]')
    await current.waitFor()
    await expect.poll(() => chat.locator('[data-head]').count()).toBe(5)
    await expect(current.textContent()).resolves.toContain(`answer ${TURNS - 1}`)
    // Each branch back to where it forks: the edited messages and the vertices they fork from.
    for (const i of FORKS) {
      await chat.locator('[data-vertex]').getByText(`user: edited ${i}`, { exact: true }).waitFor()
      await chat
        .locator('[data-vertex]')
        .getByText(`assistant: answer ${i - 1}`, { exact: true })
        .waitFor()
    }
    await chat.locator('[data-vertex]').getByText('assistant: another answer').waitFor()
    const drawn = await chat.locator('[data-vertex]').count()
    expect(drawn).toBeLessThanOrEqual(400)
    const folds = await Promise.all(
      (await chat.locator('[data-fold]').all()).map(async (f) =>
        Number(await f.getAttribute('data-fold')),
      ),
    )
    expect(folds.reduce((a, b) => a + b, 0) + drawn).toBe(3 * 20 + 2 * TURNS + 2)
    // The current branch's last messages, the earlier ones on request.
    await expect.poll(() => chat.locator('[data-message]').count()).toBe(200)
    await chat.getByRole('button', { name: /Show earlier messages/ }).waitFor()
    // No task of the page's main thread held it up while the chat opened.
    const tasks = await page.evaluate(
      (since) =>
        (globalThis as unknown as { longTasks: { start: number; duration: number }[] }).longTasks
          .filter((t) => t.start >= since)
          .map((t) => t.duration),
      opening,
    )
    expect(Math.max(0, ...tasks)).toBeLessThan(200)
    expect(await seriousViolations(page)).toEqual([])
    // The top of the tree: its root, where the branches fork, the folds.
    await page.evaluate(
      `document.querySelector('[data-chat="big"] .dag').scrollIntoView({ block: 'start' })`,
    )
    await page.screenshot({ path: join(shots, 'chats-big.png') })

    // The biggest fold unfolded: other vertices drawn, still within the limit, the heads kept.
    const before = new Set(await chat.locator('[data-vertex]').allTextContents())
    const biggest = Math.max(...folds)
    await chat.locator(`[data-fold="${biggest}"]`).click()
    await expect
      .poll(async () =>
        (await chat.locator('[data-vertex]').allTextContents()).filter((t) => !before.has(t)),
      )
      .not.toEqual([])
    expect(await chat.locator('[data-vertex]').count()).toBeLessThanOrEqual(400)
    expect(await chat.locator('[data-head]').count()).toBe(5)

    // A turn's end: the page reads only the vertices and messages the turn added.
    expect(answers).toHaveLength(1)
    expect(answers[0]!.length).toBeGreaterThan(300_000)
    await page.getByLabel('Say to big').fill('one more')
    await chat.getByRole('button', { name: 'Send' }).click()
    await chat.locator('[data-message="assistant"]').getByText('echo: one more').waitFor()
    // The new head (the turn's stop reason) and its answer drawn.
    await chat.locator('[data-vertex]').getByText('assistant: echo: one more').waitFor()
    await expect(current.textContent()).resolves.toContain('stop:')
    expect(answers).toHaveLength(2)
    expect(answers[1]!.length).toBeLessThan(5_000)
    await expect(chat.locator('[data-message]').last().textContent()).resolves.toContain(
      'echo: one more',
    )
    expect(await chat.locator('[data-message]').count()).toBe(200)
    expect(await chat.locator('[data-head]').count()).toBe(5)
    expect(errors).toEqual([])
    await context.close()
  })
})
