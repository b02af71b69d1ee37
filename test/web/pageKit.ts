/**
 * A daemon with the dashboard (`nerve server start --dashboard`, its home
 * in `dir`) and Debian's Chromium for a test file: pages logged in through
 * a fresh one-time URL, axe-core's serious violations, screenshots.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { nerve, root } from '../cli/run.js'

/** Where the tests' screenshots go. */
export const shots = join(root, 'out/dashboard')

export interface OpenPage {
  readonly page: Page
  readonly context: BrowserContext
  /** The page's uncaught errors. */
  readonly errors: string[]
}

export interface Dashboard {
  /** A page logged in through a fresh one-time URL, the connection live. */
  open(options?: { readonly bypassCSP?: boolean }): Promise<OpenPage>
  /** Stops the browser and the daemon. */
  close(): Promise<void>
}

/** Starts the daemon (with `env` added to this process's) and the browser. */
export const startDashboard = async (env: Record<string, string>): Promise<Dashboard> => {
  const r = await nerve(['server', 'start', '--detach', '--dashboard', '--json'], env)
  expect(r.code, r.stderr).toBe(0)
  mkdirSync(shots, { recursive: true })
  const browser: Browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  return {
    async open(options = {}) {
      const handed = await nerve(['dashboard', '--json'], env)
      expect(handed.code, handed.stderr).toBe(0)
      const { url } = JSON.parse(handed.stdout) as { url: string }
      const context = await browser.newContext({
        viewport: { width: 1300, height: 900 },
        ...options,
      })
      // A step that cannot happen fails with what it waited for, well before the test's own timeout.
      context.setDefaultTimeout(8000)
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(url)
      await page.locator('[data-connection="open"]').waitFor()
      return { page, context, errors }
    },
    async close() {
      await browser.close()
      await nerve(['server', 'stop'], env)
    },
  }
}

/** The serious and critical axe-core violations of what `page` shows (opened with `bypassCSP`). */
export const seriousViolations = async (page: Page): Promise<string[]> => {
  const axe = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: axe })
  return page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: {
        run: () => Promise<{
          violations: { id: string; impact: string; nodes: { target: unknown }[] }[]
        }>
      }
    }
    const { violations } = await w.axe.run()
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`)
  })
}
