/**
 * The daemon's sessions on the dashboard, in Debian's Chromium against a
 * real daemon: a session opened by an SDK client appears on the page at
 * once; chosen, the Nodes view lists its nodes only, and a bash node made
 * there on the page (and its terminal) lives in it, as the daemon's
 * `LIST_NODES` of each session says; a session made on the page is the
 * daemon's; one closed elsewhere goes, and the page is back on the
 * default one. Screenshot into out/dashboard/; no serious accessibility
 * violation.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { dashboard, seriousViolations, shots } from './harness.js'

const d = dashboard('dashboard-sessions')

/** A client of the daemon through its socket, as the SDK's users have it. */
const sdk = () => NerveClient.connect(d.status().socket)

/** The ids of the nodes the page lists. */
const listed = async (page: Page): Promise<string[]> => {
  const rows = await page.locator('table.nodes tbody tr').all()
  return Promise.all(rows.map(async (r) => (await r.getAttribute('data-node')) ?? ''))
}

/** The sessions the page offers, by id. */
const offered = async (page: Page): Promise<string[]> => {
  const options = await page.locator('select[name="session"] option').all()
  return Promise.all(options.map((o) => o.evaluate((e: { readonly value: string }) => e.value)))
}

/** The names of the nodes the daemon has in `sessionId` (the default one without it). */
const nodesOf = async (c: NerveClient, sessionId?: string): Promise<string[]> =>
  (await c.call('LIST_NODES', sessionId === undefined ? {} : { sessionId })).nodes.map((n) => n.id)

describe('sessions on the page', () => {
  it('lists a session made elsewhere at once, shows only its nodes, and makes a node and runs a command in it', async () => {
    const c = await sdk()
    try {
      await c.call('CREATE_NODE', { nodeId: 'base', kind: 'bash' })
      const { page, context, errors } = await d.open({ bypassCSP: true })
      await page.locator('[data-node="base"]').waitFor()
      const select = page.getByLabel('Session', { exact: true })
      await expect.poll(() => select.inputValue()).toBe('default')

      // Made by the SDK while the page is open: offered at once.
      await c.call('CREATE_SESSION', { sessionId: 'review' })
      await expect.poll(() => offered(page)).toEqual(['default', 'review'])

      await select.selectOption('review')
      await page.locator('[data-nodes-of="review"]').waitFor()
      await expect.poll(() => listed(page)).toEqual([])
      expect(await page.getByRole('heading', { name: 'Nodes of review' }).count()).toBe(1)

      // A bash node made on the page is the chosen session's, not the default one's.
      await page.getByLabel('Name').fill('sh')
      await page.getByLabel('Kind').selectOption('bash')
      await page.getByRole('button', { name: 'Create node' }).click()
      await page.locator('[data-node="sh"]').waitFor()
      expect(await nodesOf(c, 'review')).toEqual(['sh'])
      expect(await nodesOf(c)).toEqual(['base'])

      // Its terminal runs commands in that session.
      await page.locator('[data-node="sh"]').getByRole('button', { name: 'Terminal' }).click()
      const tile = page.locator('[data-terminal="sh"][data-session="review"]')
      await tile.getByRole('button', { name: 'Take control' }).click()
      await tile.locator('.xterm-helper-textarea').focus()
      await page.keyboard.type('echo in-review')
      await page.keyboard.press('Enter')
      await expect.poll(() => tile.locator('.xterm-rows').innerText()).toMatch(/^in-review$/m)

      // Nodes made elsewhere: the default session's are not listed, the chosen one's are.
      await c.call('CREATE_NODE', { nodeId: 'later', kind: 'bash' })
      await c.call('CREATE_NODE', { sessionId: 'review', nodeId: 'also', kind: 'bash' })
      await expect.poll(() => listed(page)).toEqual(['sh', 'also'])
      await page.screenshot({ path: join(shots, 'sessions.png'), fullPage: true })
      expect(await seriousViolations(page)).toEqual([])

      // Back to the default session: its nodes, not review's.
      await select.selectOption('default')
      await expect.poll(() => listed(page)).toEqual(['base', 'later'])
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })

  it('makes a session on the page, and drops one closed elsewhere, back on the default one', async () => {
    const c = await sdk()
    try {
      const { page, context, errors } = await d.open({ bypassCSP: true })
      const select = page.getByLabel('Session', { exact: true })
      await expect.poll(() => select.inputValue()).toBe('default')
      await page.getByRole('button', { name: 'New session' }).click()
      await page.getByLabel('New session id').fill('made')
      await page.getByRole('button', { name: 'Create session' }).click()
      await expect.poll(() => select.inputValue()).toBe('made')
      await page.locator('[data-nodes-of="made"]').waitFor()
      const { sessions } = await c.call('LIST_SESSIONS', {})
      expect(sessions.map((s) => s.sessionId)).toContain('made')
      await expect.poll(() => listed(page)).toEqual([])
      expect(await seriousViolations(page)).toEqual([])

      // Closed by another client while shown: it goes, and the page shows the default session.
      await c.call('CLOSE_SESSION', { sessionId: 'made' })
      await expect.poll(() => offered(page)).not.toContain('made')
      await expect.poll(() => select.inputValue()).toBe('default')
      await page.locator('[data-nodes-of="default"]').waitFor()
      await expect.poll(() => listed(page)).toContain('base')

      // Closed from the page.
      await c.call('CREATE_SESSION', { sessionId: 'brief' })
      await select.selectOption('brief')
      await page.getByRole('button', { name: 'Close session' }).click()
      await expect.poll(() => select.inputValue()).toBe('default')
      expect((await c.call('LIST_SESSIONS', {})).sessions.map((s) => s.sessionId)).not.toContain(
        'brief',
      )
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await c.close()
    }
  })
})
