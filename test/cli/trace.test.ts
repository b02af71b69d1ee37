/**
 * The trace page of `graph run --trace` and `nerve view`, loaded in headless
 * Chromium: no console errors, every step shown, a click opens its details.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, nerve } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'nerve-trace-'))
let browser: Browser

beforeAll(async () => {
  ensureBuilt()
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}, 180_000)

afterAll(async () => {
  await browser.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Opens a page offline, collecting console errors and failed requests. */
const load = async (file: string) => {
  const context = await browser.newContext({ offline: true })
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

const STEPS = ['prepare', 'a', 'b', 'nested', 'nested/left', 'nested/right', 'optional', 'join']

describe('the trace page', () => {
  it('graph run --trace writes a page with every step on the timeline; a click shows its input and output', async () => {
    const out = join(dir, 'fan-out.html')
    const r = await nerve(['graph', 'run', 'examples/fan-out.json', '--trace', out])
    expect(r.code).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/) // nothing loaded from elsewhere
    const { page, errors, close } = await load(out)
    const rows = page.locator('.row')
    const shown: (string | null)[] = []
    for (let i = 0; i < (await rows.count()); i++)
      shown.push(await rows.nth(i).getAttribute('data-step'))
    expect(shown).toEqual(STEPS)
    const nestedStyle = await page.getAttribute('[data-step="nested/left"] .name', 'style')
    expect(nestedStyle).toMatch(/padding-left: 20px/)
    expect(await page.$$eval('.bar.skipped', (b) => b.length)).toBe(1)

    await page.click('[data-step="a"]')
    const details = await page.textContent('#details')
    expect(details).toContain('sleep 0.4; echo a') // the input
    expect(details).toMatch(/"stdout": "a\\n"|a\n/) // the output
    await page.click('[data-step="optional"]')
    expect(await page.textContent('#details .error')).toMatch(/exited with code 3/)
    expect(await page.textContent('#mermaid')).toMatch(/subgraph nested/)
    expect(errors).toEqual([])
    await close()
  }, 60_000)

  it('nerve view renders the run info that graph run --json prints last, laying steps after their parents', async () => {
    const r = await nerve(['graph', 'run', 'examples/fan-out.json', '--json'])
    const runJson = join(dir, 'run.json')
    writeFileSync(runJson, r.stdout.trim().split('\n').at(-1) ?? '')
    const out = join(dir, 'view.html')
    const v = await nerve(['view', runJson, '-o', out])
    expect(v.code).toBe(0)
    const { page, errors, close } = await load(out)
    expect(await page.$$eval('.row', (rows) => rows.length)).toBe(STEPS.length)
    const left = async (step: string): Promise<number> =>
      Number(
        /left: ([\d.]+)%/.exec(
          (await page.getAttribute(`[data-step="${step}"] .bar`, 'style')) ?? '',
        )?.[1],
      )
    expect(await left('prepare')).toBe(0)
    expect(await left('a')).toBeGreaterThan(0) // after prepare, its parent
    expect(await left('join')).toBeGreaterThanOrEqual(await left('a'))
    await page.click('[data-step="join"]')
    expect(await page.textContent('#details h2')).toBe('join')
    expect(errors).toEqual([])
    await close()
  }, 60_000)

  it("shows an LLM step's conversation in the conversation viewer, inside the step's details", async () => {
    const file = join(dir, 'chat.json')
    writeFileSync(
      file,
      JSON.stringify({
        id: 'chat',
        nodes: { bot: { kind: 'llm', provider: 'echo' } },
        steps: [
          { id: 'ask', node: 'bot', input: 'first question' },
          { id: 'again', node: 'bot', input: 'second question', dependsOn: ['ask'] },
        ],
      }),
    )
    const out = join(dir, 'chat.html')
    const r = await nerve(['graph', 'run', file, '--trace', out])
    expect(r.code).toBe(0)
    const { page, errors, close } = await load(out)
    await page.click('[data-step="ask"]')
    expect(await page.textContent('#details')).toContain('Conversation of bot after the run')
    const viewer = page.frameLocator('#details iframe')
    const text = await viewer.locator('body').textContent()
    expect(text).toContain('first question')
    expect(text).toContain('echo: second question')
    expect(errors).toEqual([])
    await close()
  }, 60_000)
})
