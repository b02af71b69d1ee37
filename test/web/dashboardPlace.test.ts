/**
 * The dashboard's place in its address, in Debian's Chromium against a
 * real daemon: a session and a chat chosen are in the address and a
 * reload opens them again; Back and Forward move between two views; an
 * address naming a chat or a session that does not exist says so on the
 * page and shows the default; the terminals tiled come back, each in its
 * session; the address never holds the token, and a one-time URL given a
 * place opens it. No
 * serious accessibility violation.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { dashboard, seriousViolations, shots } from './harness.js'

const d = dashboard('dashboard-place')

/** The view the page shows, by key. */
const shownView = (page: Page): Promise<string | null> =>
  page.locator('nav button[aria-pressed="true"]').getAttribute('data-view')

/** The fragment of the page's address. */
const fragment = (page: Page): string => new URL(page.url()).hash

describe('the place in the address', () => {
  it('keeps a session and a chat chosen over a reload, and Back and Forward move between views', async () => {
    const c = await NerveClient.connect(d.status().socket)
    try {
      await c.call('CREATE_SESSION', { sessionId: 's2' })
      for (const chatId of ['c0', 'c1'])
        await c.call('CHAT_CREATE', { chatId, agent: { provider: 'echo' } })
      const { page, context, errors } = await d.open({ bypassCSP: true })
      // The handover's redirect left `/`; the page then says where it is.
      expect(new URL(page.url()).pathname).toBe('/')
      await expect.poll(() => fragment(page)).toBe('#/nodes')

      const select = page.getByLabel('Session', { exact: true })
      await select.selectOption('s2')
      await page.locator('[data-nodes-of="s2"]').waitFor()
      await expect.poll(() => fragment(page)).toBe('#/nodes?session=s2')
      await page.locator('[data-view="chats"]').click()
      await page.locator('[data-chatitem="c1"]').click()
      await expect.poll(() => fragment(page)).toBe('#/chats?session=s2&chat=c1')
      // The address holds no secret: the handover's code went with the redirect, and the place is all there is.
      expect(page.url()).toBe(`${new URL(page.url()).origin}/#/chats?session=s2&chat=c1`)

      await page.reload()
      await page.locator('[data-connection="open"]').waitFor()
      await page.locator('[data-chatitem="c1"][aria-pressed="true"]').waitFor()
      expect(await shownView(page)).toBe('chats')
      await expect.poll(() => select.inputValue()).toBe('s2')
      await page.locator('[data-chat="c1"]').first().waitFor()
      expect(fragment(page)).toBe('#/chats?session=s2&chat=c1')

      // Another view, then Back and Forward between the two.
      await page.locator('[data-view="runs"]').click()
      await expect.poll(() => fragment(page)).toBe('#/runs?session=s2')
      await page.goBack()
      await expect.poll(() => shownView(page)).toBe('chats')
      await page.locator('[data-chatitem="c1"][aria-pressed="true"]').waitFor()
      expect(fragment(page)).toBe('#/chats?session=s2&chat=c1')
      await page.goForward()
      await expect.poll(() => shownView(page)).toBe('runs')
      await expect.poll(() => select.inputValue()).toBe('s2')
      // Further back: the chats with none chosen, then the Nodes view of s2, then of the default session.
      await page.goBack()
      await page.goBack()
      await expect.poll(() => shownView(page)).toBe('chats')
      await expect.poll(() => page.locator('[data-chatitem][aria-pressed="true"]').count()).toBe(0)
      await page.goBack()
      await expect.poll(() => shownView(page)).toBe('nodes')
      await expect.poll(() => select.inputValue()).toBe('s2')
      await page.goBack()
      await expect.poll(() => select.inputValue()).toBe('default')
      await page.locator('[data-nodes-of="default"]').waitFor()
      expect(await page.locator('[data-place-note]').count()).toBe(0)
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })

  it('says so when the address names a chat or a session that does not exist, and shows the default', async () => {
    // A one-time URL with a place: the redirect after the handover keeps it.
    const { page, context, errors } = await d.open({
      bypassCSP: true,
      url: `${await d.handover()}#/chats?chat=c0`,
    })
    await page.locator('[data-chatitem="c0"][aria-pressed="true"]').waitFor()
    expect(fragment(page)).toBe('#/chats?chat=c0')
    const origin = new URL(page.url()).origin
    // A pasted link: a page of its own, the same browser's cookie.
    const linked = await context.newPage()
    await linked.goto(`${origin}/#/chats?chat=nope`)
    const note = linked.locator('[data-place-note]')
    await expect.poll(() => note.innerText()).toBe('There is no chat "nope": no chat is shown.')
    expect(await shownView(linked)).toBe('chats')
    // The address now says what is shown; a reload says nothing more.
    await expect.poll(() => fragment(linked)).toBe('#/chats')
    await linked.screenshot({ path: join(shots, 'place-unknown.png'), fullPage: true })
    expect(await seriousViolations(linked)).toEqual([])

    // A session closed since, and a view that is none, in the address typed in.
    await linked.goto(`${origin}/#/runs?session=gone`)
    await expect
      .poll(() => note.innerText())
      .toBe('There is no session "gone" (closed?): the default session is shown.')
    await expect.poll(() => fragment(linked)).toBe('#/runs')
    await expect
      .poll(() => linked.getByLabel('Session', { exact: true }).inputValue())
      .toBe('default')
    await linked.goto(`${origin}/#/elsewhere`)
    await expect
      .poll(() => note.innerText())
      .toBe('There is no view "elsewhere": the Nodes view is shown.')
    expect(await shownView(linked)).toBe('nodes')
    // Choosing goes on as usual, and the line goes.
    await linked.locator('[data-view="store"]').click()
    await expect.poll(() => fragment(linked)).toBe('#/store')
    expect(await note.count()).toBe(0)
    expect(errors).toEqual([])
    await context.close()
  })

  it("keeps a run's chosen step and both conversation columns over a reload; an unknown step is said", async () => {
    const c = await NerveClient.connect(d.status().socket)
    try {
      const { runId } = await c.call('EXECUTE_GRAPH', {
        graph: {
          id: 'two',
          nodes: { hi: { kind: 'bash', command: 'echo hi' } },
          steps: [
            { id: 'first', node: 'hi' },
            { id: 'second', node: 'hi', dependsOn: ['first'] },
          ],
        },
      })
      for (const nodeId of ['left', 'right'])
        await c.call('CREATE_NODE', { nodeId, kind: 'llm', options: { provider: 'echo' } })
      const { page, context, errors } = await d.open()
      await page.locator('[data-view="runs"]').click()
      await page.locator(`[data-runitem="${runId}"]`).click()
      await page.locator('[data-step="second"]').click()
      await expect.poll(() => fragment(page)).toBe(`#/runs?run=${runId}&step=second`)
      // The run is read once, though the address's step and the run's panel both need it.
      let reads = 0
      page.on('websocket', (ws) => {
        ws.on('framesent', ({ payload }) => {
          if (String(payload).includes('"GET_RUN"')) reads++
        })
      })
      await page.reload()
      await page.locator('[data-detail="second"]').waitFor()
      expect(fragment(page)).toBe(`#/runs?run=${runId}&step=second`)
      await page.getByRole('button', { name: 'Run again' }).waitFor()
      expect(reads).toBe(1)
      // Another step chosen is a place of its own: Back returns to the one before.
      await page.locator('[data-step="first"]').click()
      await expect.poll(() => fragment(page)).toBe(`#/runs?run=${runId}&step=first`)
      await page.goBack()
      await page.locator('[data-detail="second"]').waitFor()

      const origin = new URL(page.url()).origin
      await page.goto(`${origin}/#/runs?run=${runId}&step=nope`)
      await expect
        .poll(() => page.locator('[data-place-note]').innerText())
        .toBe('There is no step "nope": no step is chosen.')
      await expect.poll(() => fragment(page)).toBe(`#/runs?run=${runId}`)
      expect(await page.locator('[data-detail]').count()).toBe(0)

      await page.locator('[data-view="conversations"]').click()
      await page.getByLabel('Conversation', { exact: true }).selectOption('left')
      await page.getByLabel('Beside it', { exact: true }).selectOption('right')
      await expect.poll(() => fragment(page)).toBe('#/conversations?node=left&node2=right')
      await page.reload()
      await expect
        .poll(() => page.getByLabel('Beside it', { exact: true }).inputValue())
        .toBe('right')
      expect(await page.getByLabel('Conversation', { exact: true }).inputValue()).toBe('left')
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })

  it("keeps the terminals tiled over a reload, each in its node's session; one of a node that is gone is said", async () => {
    const c = await NerveClient.connect(d.status().socket)
    try {
      await c.call('CREATE_SESSION', { sessionId: 's4' })
      await c.call('CREATE_NODE', { nodeId: 'sh', kind: 'bash' })
      await c.call('CREATE_NODE', { sessionId: 's4', nodeId: 'other', kind: 'bash' })
      const { page, context, errors } = await d.open()
      const terminal = (nodeId: string) =>
        page.locator('[data-node="' + nodeId + '"]').getByRole('button', { name: 'Terminal' })
      await terminal('sh').click()
      await expect.poll(() => fragment(page)).toBe('#/nodes?tile=sh')
      await page.getByLabel('Session', { exact: true }).selectOption('s4')
      await terminal('other').click()
      await expect.poll(() => fragment(page)).toBe('#/nodes?session=s4&tile=sh&tile=s4%2Fother')

      await page.reload()
      await page.locator('[data-terminal="sh"][data-session="default"]').waitFor()
      await page.locator('[data-terminal="other"][data-session="s4"]').waitFor()
      expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('s4')
      const tiled = page.locator('[data-terminal]')
      expect(await tiled.count()).toBe(2)
      expect(await tiled.nth(0).getAttribute('data-terminal')).toBe('sh')
      expect(await tiled.nth(1).getAttribute('data-terminal')).toBe('other')
      // Closing one is a place of its own.
      await page.getByRole('button', { name: 'Close the terminal of sh (default)' }).click()
      await expect.poll(() => fragment(page)).toBe('#/nodes?session=s4&tile=s4%2Fother')

      // A node deleted since: said, and the others tiled.
      await c.call('DELETE_NODE', { sessionId: 's4', nodeId: 'other' })
      const origin = new URL(page.url()).origin
      await page.goto(`${origin}/#/nodes?tile=s4%2Fother&tile=sh`)
      await expect
        .poll(() => page.locator('[data-place-note]').innerText())
        .toBe('There is no node "other" in session "s4": its terminal is not shown.')
      await page.locator('[data-terminal="sh"]').waitFor()
      await expect.poll(() => fragment(page)).toBe('#/nodes?tile=sh')
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })

  it('keeps the conversation shown over a reload, in its session, until the session is closed', async () => {
    const c = await NerveClient.connect(d.status().socket)
    try {
      await c.call('CREATE_SESSION', { sessionId: 's3' })
      await c.call('CREATE_NODE', {
        sessionId: 's3',
        nodeId: 'talker',
        kind: 'llm',
        options: { provider: 'echo' },
      })
      const { page, context, errors } = await d.open()
      await page.getByLabel('Session', { exact: true }).selectOption('s3')
      await page.locator('[data-view="conversations"]').click()
      await page.getByLabel('Conversation', { exact: true }).selectOption('talker')
      await expect.poll(() => fragment(page)).toBe('#/conversations?session=s3&node=talker')
      await page.reload()
      await expect
        .poll(() => page.getByLabel('Conversation', { exact: true }).inputValue())
        .toBe('talker')
      expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('s3')
      // Closed elsewhere: the page is back on the default session, the address corrected in place.
      const entries = await page.evaluate(
        () => (globalThis as unknown as { history: { length: number } }).history.length,
      )
      await c.call('CLOSE_SESSION', { sessionId: 's3' })
      await expect.poll(() => fragment(page)).toBe('#/conversations')
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { history: { length: number } }).history.length,
        ),
      ).toBe(entries)
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })
})
