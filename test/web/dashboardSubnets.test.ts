/**
 * A network's sub-networks on the dashboard, in Debian's Chromium against a
 * real daemon: drawn in the topology as boxes around exactly their members
 * (read off the SVG's geometry), labelled with their budget's use; one
 * edited in place (members, budget) on one page, seen on a second (its
 * form, its drawing) and in the daemon's `GET_NETWORK`, undone in one
 * step; a refused value shown with the daemon's typed error. Screenshot to
 * out/dashboard/; no serious accessibility violation.
 */
import type { Page } from 'playwright-core'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { dashboard, networkOnTwoPages, seriousViolations, shots } from './harness.js'

const d = dashboard('dashboard-subnets')

interface Rect {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

const within = (a: Rect, b: Rect): boolean =>
  a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height
const clear = (a: Rect, b: Rect): boolean =>
  a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y

/** Where the page draws a node's box and a sub-network's box. */
const rects = (page: Page, net: string) => {
  const at = async (selector: string): Promise<Rect> => {
    const r = await page.locator(`[data-network="${net}"] ${selector} > rect`).boundingBox()
    if (r === null) throw new Error(`${selector} is not drawn`)
    return r
  }
  return {
    node: (id: string) => at(`[data-netnode="${id}"]`),
    group: (id: string) => at(`[data-group="${id}"]`),
  }
}

/** What is wrong with the group `id` drawn around exactly `members` among `all`: nothing when it is. */
const misdrawn = async (
  page: Page,
  net: string,
  id: string,
  members: readonly string[],
  all: readonly string[],
): Promise<string[]> => {
  const r = rects(page, net)
  const group = await r.group(id)
  const wrong: string[] = []
  for (const n of all) {
    const node = await r.node(n)
    if (members.includes(n) && !within(node, group)) wrong.push(`${n} is not inside ${id}`)
    if (!members.includes(n) && !clear(node, group)) wrong.push(`${n} is not outside ${id}`)
  }
  return wrong
}

describe('sub-networks on the page', () => {
  it('draws each around exactly its members, edits one in place seen on a second page, refuses a bad value, and undoes', async () => {
    const ids = ['plan', 'code', 'check', 'docs']
    const { a, b } = await networkOnTwoPages(
      d,
      'squad',
      [
        ['plan', 'Planner'],
        ['code', 'Coder'],
        ['check', 'Verifier'],
        ['docs', 'Coder'],
      ],
      [
        { from: 'plan', to: 'code', direction: 'one-way' },
        { from: 'code', to: 'check', direction: 'one-way' },
        { from: 'plan', to: 'docs', direction: 'one-way' },
      ],
      {
        subnetworks: [
          { id: 'build', nodes: ['code', 'check'], budget: { maxSteps: 4, maxTokens: 1000 } },
          { id: 'gate', nodes: ['check'] },
        ],
      },
    )
    const client = await NerveClient.connect(d.status().socket)
    const network = async () => (await client.call('GET_NETWORK', { networkId: 'squad' })).network
    try {
      for (const p of [a.page, b.page]) await p.locator('[data-group="gate"]').waitFor()
      // Each group around exactly its members, the nested one inside the other; each node drawn once.
      expect(await misdrawn(b.page, 'squad', 'build', ['code', 'check'], ids)).toEqual([])
      expect(await misdrawn(b.page, 'squad', 'gate', ['check'], ids)).toEqual([])
      const r = rects(b.page, 'squad')
      expect(within(await r.group('gate'), await r.group('build'))).toBe(true)
      expect(await b.page.locator('[data-netnode="check"]').count()).toBe(1)

      // Its label tells its budget's use, read again after the network's events.
      const label = (p: Page) => p.locator('[data-group="build"] text')
      expect(await label(b.page).textContent()).toBe('build · firings 0/4, tokens 0/1000')
      expect(await b.page.locator('[data-group="gate"] text').textContent()).toBe('gate')
      await a.page.getByRole('textbox', { name: 'Message' }).fill('start')
      await a.page.getByLabel('Send to').selectOption('code')
      await a.page.getByRole('button', { name: 'Send', exact: true }).click()
      // The label says what the daemon counts, once the page read it again.
      const firings = async () =>
        (await client.call('GET_NETWORK', { networkId: 'squad' })).subnetworkUsage?.build
          ?.firings ?? 0
      const labelSays = async (rest: string) => {
        const n = await firings()
        return n > 0 && (await label(b.page).textContent()) === `build · firings ${n}/${rest}`
      }
      await expect.poll(() => labelSays('4, tokens 0/1000')).toBe(true)

      // Edited in place on one page: a member added and the budget changed, one edit.
      const before = await network()
      const form = (p: Page) => p.getByRole('form', { name: 'Sub-network build' })
      for (const p of [a.page, b.page]) await p.getByText('Edit build').click()
      await form(a.page).getByLabel('Members').selectOption(['code', 'check', 'docs'])
      await form(a.page).getByLabel('Most firings').fill('6')
      await form(a.page).getByLabel('Most tokens').fill('')
      await form(a.page).getByRole('button', { name: 'Apply' }).click()
      const row = (p: Page) => p.locator('[data-subnetwork="build"]')
      await expect
        .poll(() => row(b.page).innerText())
        .toContain('build: code, check, docs · budget maxSteps 6')
      expect(await form(b.page).getByLabel('Most firings').inputValue()).toBe('6')
      expect(await form(b.page).getByLabel('Most tokens').inputValue()).toBe('')
      const selected = (p: Page) =>
        form(p).getByLabel('Members').locator('option:checked').allTextContents()
      expect(await selected(b.page)).toEqual(['code', 'check', 'docs'])
      const after = await network()
      expect(after.subnetworks).toEqual({
        ...before.subnetworks,
        build: { id: 'build', nodes: ['code', 'check', 'docs'], budget: { maxSteps: 6 } },
      })
      expect({ ...after, subnetworks: before.subnetworks }).toEqual(before)
      // Drawn around its new member where the boxes are; a full layout draws it around exactly them.
      await expect.poll(() => labelSays('6')).toBe(true)
      const r2 = rects(b.page, 'squad')
      for (const n of ['code', 'check', 'docs'])
        expect(within(await r2.node(n), await r2.group('build'))).toBe(true)
      await b.page.getByRole('button', { name: 'Lay out again' }).click()
      await expect
        .poll(() => misdrawn(b.page, 'squad', 'build', ['code', 'check', 'docs'], ids))
        .toEqual([])
      await b.page.screenshot({ path: join(shots, 'networks-subnetworks.png'), fullPage: true })
      expect(await seriousViolations(a.page)).toEqual([])

      // A value the daemon refuses comes back as its typed error, with where; nothing changes.
      await form(a.page).getByLabel('Most firings').fill('-1')
      await form(a.page).getByRole('button', { name: 'Apply' }).click()
      const alert = a.page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.innerText()).toBe(
        'InvalidPatch: the patched network is not valid: /subnetworks/build/budget/maxSteps: expected a number ≥ 0, got -1',
      )
      expect(await network()).toEqual(after)

      // One undo takes the whole edit back, on every page and in the drawing.
      await a.page.getByRole('button', { name: 'Undo edit' }).click()
      await expect
        .poll(() => row(b.page).innerText())
        .toContain('build: code, check · budget maxSteps 4, maxTokens 1000')
      expect(await network()).toEqual(before)
      await expect.poll(() => selected(b.page)).toEqual(['code', 'check'])
      await expect.poll(() => labelSays('4, tokens 0/1000')).toBe(true)
      await b.page.getByRole('button', { name: 'Lay out again' }).click()
      await expect
        .poll(() => misdrawn(b.page, 'squad', 'build', ['code', 'check'], ids))
        .toEqual([])
    } finally {
      await client.close()
    }
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })
})
