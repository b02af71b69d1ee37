/**
 * The HTML views as a person sees them, in headless Chromium (offline): the
 * trace's time axis, labelled bars and drawn shape; readable envelope times
 * and one root; one style shared by every view. Each page is also
 * screenshotted (kept under the test's temp directory) and checked to show
 * something, not a blank page.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-views-'))
const env = { NERVE_HOME: join(dir, 'home') }
let browser: Browser
const pages: Record<string, string> = {}

beforeAll(async () => {
  ensureBuilt()
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  pages.trace = join(dir, 'trace.html')
  pages.envelopes = join(dir, 'envelopes.html')
  pages.conversation = join(dir, 'conversation.html')
  const runs = await Promise.all([
    nerve(['graph', 'run', 'examples/fan-out.json', '--trace', pages.trace], env),
    nerve(
      [
        'network',
        'run',
        'examples/review.network.json',
        '--send',
        'writer=Write a haiku',
        '--root',
        dir,
        '--html',
        pages.envelopes,
      ],
      env,
    ),
    nerve(
      ['view', 'test/conversation/codec/fixtures/sub_agent_graph.json', '-o', pages.conversation],
      env,
    ),
  ])
  for (const r of runs) expect(r.code, r.stderr).toBe(0)
}, 180_000)

afterAll(async () => {
  await browser.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Opens a page offline; fails on any console error or request. */
const open = async (
  file: string,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> => {
  const context = await browser.newContext({
    offline: true,
    viewport: { width: 1400, height: 900 },
  })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('requestfailed', (r) => errors.push(`request ${r.url()}`))
  await page.goto(`file://${file}`)
  return { page, errors, close: () => context.close() }
}

/** A screenshot of the page, checked to hold more than one colour. */
const screenshot = async (page: Page, name: string): Promise<void> => {
  const file = join(dir, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  expect(statSync(file).size).toBeGreaterThan(10_000)
}

describe('the trace page', () => {
  it('has a time axis with round ticks, labels every bar that did not complete, and draws the shape', async () => {
    const { page, errors, close } = await open(pages.trace!)
    const ticks = await page.locator('.axis .tick').allTextContents()
    expect(ticks.length).toBeGreaterThanOrEqual(3)
    expect(ticks[0]).toBe('0')
    for (const t of ticks.slice(1)) expect(t).toMatch(/^\d+(\.\d)? (ms|s)$/)
    // tick positions grow left to right
    const lefts: number[] = []
    for (const t of await page.locator('.axis .tick').all()) lefts.push((await t.boundingBox())!.x)
    expect([...lefts].sort((a, b) => a - b)).toEqual(lefts)
    expect(await page.textContent('[data-step="optional"] .bar-label')).toMatch(
      /^skipped: bash node "sh": the command exited with code 3$/,
    )
    expect(await page.locator('[data-step="join"] .bar-label').count()).toBe(0)

    const shape = page.locator('#diagram')
    const box = (await shape.boundingBox())!
    expect(box.width).toBeGreaterThan(300)
    expect(box.height).toBeGreaterThan(150)
    const drawn: [string | null, string | null][] = []
    for (const g of await page.locator('#diagram [data-step]').all()) {
      drawn.push([await g.getAttribute('data-step'), await g.getAttribute('class')])
    }
    expect(drawn).toEqual(
      expect.arrayContaining([
        ['prepare', 'step completed'],
        ['optional', 'step skipped'],
        ['nested', 'cluster completed'],
        ['nested/left', 'step completed'],
        ['join', 'step completed'],
      ]),
    )
    // prepare → a, b, nested; a, b, nested, optional → join; the nested steps depend on nothing
    expect(await page.locator('#diagram .edge').count()).toBe(7)
    // join is drawn below what it depends on
    const y = async (step: string) =>
      (await page.locator(`#diagram [data-step="${step}"] rect`).first().boundingBox())!.y
    expect(await y('join')).toBeGreaterThan(await y('a'))
    expect(await y('a')).toBeGreaterThan(await y('prepare'))
    await screenshot(page, 'trace')
    expect(errors).toEqual([])
    await close()
  }, 60_000)
})

describe('envelopes.html', () => {
  it('shows times since the start a person reads, and a DAG with one root', async () => {
    const { page, errors, close } = await open(pages.envelopes!)
    const times = await page.locator('td.time').allTextContents()
    expect(times.length).toBeGreaterThan(2)
    for (const t of times) expect(t).toMatch(/^\+\d+ ms$|^\+\d+\.\d+ s$/)
    const causes = (await page.locator('tbody tr td:nth-child(5)').allTextContents()).map((c) =>
      c.trim(),
    )
    expect(causes.filter((c) => c === '')).toHaveLength(1)
    expect(causes[0]).toBe('')
    expect(await page.textContent('header .muted')).toMatch(/times since the run started/)
    await screenshot(page, 'envelopes')
    expect(errors).toEqual([])
    await close()
  }, 60_000)
})

describe('the views', () => {
  it('share one style: the same base sheet, type and header in every page', async () => {
    const seen: { sheet: string | null; font: string; header: string; h1: string }[] = []
    for (const name of ['trace', 'envelopes', 'conversation']) {
      const { page, errors, close } = await open(pages[name]!)
      seen.push({
        sheet: (await page.textContent('style#nerve-style'))?.trim() ?? null,
        font: await page.evaluate<string>('getComputedStyle(document.body).fontFamily'),
        header: await page.evaluate<string>(
          "getComputedStyle(document.querySelector('header')).borderBottom",
        ),
        h1: await page.evaluate<string>("getComputedStyle(document.querySelector('h1')).fontSize"),
      })
      if (name === 'conversation') await screenshot(page, name)
      expect(errors).toEqual([])
      await close()
    }
    expect(seen[0]!.sheet).toMatch(/--failed/)
    expect(seen[1]).toEqual(seen[0])
    expect(seen[2]).toEqual(seen[0])
  }, 60_000)
})
