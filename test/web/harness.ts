/**
 * What the dashboard's browser tests share: a daemon (`nerve server start
 * --dashboard`, its home in a temporary directory, a free loopback port)
 * and Debian's Chromium for the tests of one file, pages logged in through
 * a fresh one-time URL, a network file started on one page with a second
 * page watching, and axe-core's serious violations of a page.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { nerve, root, testDir } from '../cli/run.js'

/** Where the screenshots go. */
export const shots = join(root, 'out/dashboard')

/** The daemon and browser of one test file, ready once its `beforeAll` ran. */
export interface Dashboard {
  /** The test file's temporary directory. */
  readonly dir: string
  /** The daemon's environment (its home). */
  readonly env: Readonly<Record<string, string>>
  /** The daemon's status as `nerve server start --json` printed it. */
  status(): {
    readonly socket: string
    readonly http: { readonly url: string }
    /** The one-time URL it printed. */
    readonly dashboard: string
  }
  /** A fresh one-time URL, as `nerve dashboard` prints it. */
  handover(): Promise<string>
  /**
   * A page logged in through `url` (default: a fresh one-time URL), its
   * page errors collected; `prepare` is given the page before it loads.
   */
  open(options?: {
    readonly url?: string
    readonly bypassCSP?: boolean
    readonly prepare?: (page: Page) => Promise<void>
  }): Promise<{ page: Page; context: BrowserContext; errors: string[] }>
}

/**
 * Starts a daemon and a browser before the file's tests, stops them after.
 * `more` gives variables added to the daemon's environment, asked for when
 * the daemon starts (a local model server's URL, once it listens).
 */
export const dashboard = (
  name: string,
  more: () => Promise<Record<string, string>> | Record<string, string> = () => ({}),
): Dashboard => {
  const dir = testDir(name)
  const env: Record<string, string> = {
    NERVE_HOME: join(dir, 'home'),
    HOME: join(dir, 'user'),
    XDG_RUNTIME_DIR: '',
  }
  let browser: Browser
  let status: ReturnType<Dashboard['status']>
  beforeAll(async () => {
    Object.assign(env, await more())
    const r = await nerve(['server', 'start', '--detach', '--dashboard', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    status = JSON.parse(r.stdout) as typeof status
    mkdirSync(shots, { recursive: true })
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    })
  }, 60_000)
  afterAll(async () => {
    await browser.close()
    await nerve(['server', 'stop'], env)
  })
  const handover = async (): Promise<string> => {
    const r = await nerve(['dashboard', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    return (JSON.parse(r.stdout) as { url: string }).url
  }
  return {
    dir,
    env,
    status: () => status,
    handover,
    open: async ({ url, prepare, ...options } = {}) => {
      const context = await browser.newContext({
        viewport: { width: 1300, height: 900 },
        ...options,
      })
      // A step that cannot happen fails with what it waited for, well before the test's own timeout.
      context.setDefaultTimeout(8000)
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await prepare?.(page)
      await page.goto(url ?? (await handover()))
      await page.locator('[data-connection="open"]').waitFor()
      return { page, context, errors }
    },
  }
}

/** axe-core's serious and critical violations of the page as it is (open it with `bypassCSP`). */
export const seriousViolations = async (page: Page): Promise<string[]> => {
  const loaded = await page.evaluate(() => 'axe' in globalThis)
  if (!loaded) {
    const axe = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
    await page.addScriptTag({ content: axe })
  }
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

/**
 * A network file of mock nodes (id, role), `edges` and what else the file
 * holds (`more`: its sub-networks…), started from one page (`a`, which
 * axe can check) with a second page (`b`) on the Networks view too.
 */
export const networkOnTwoPages = async (
  d: Dashboard,
  id: string,
  nodes: readonly (readonly [string, string])[],
  edges: readonly Readonly<Record<string, string>>[],
  more: Readonly<Record<string, unknown>> = {},
) => {
  const workspace = join(d.dir, id)
  mkdirSync(workspace)
  const file = join(d.dir, `${id}.network.json`)
  const provider = { type: 'mock', script: ['ok'] }
  const network = {
    format: 'nerve/network',
    version: 1,
    id,
    nodes: nodes.map(([node, role]) => ({ id: node, role, provider })),
    edges,
    ...more,
  }
  writeFileSync(file, JSON.stringify(network))
  const a = await d.open({ bypassCSP: true })
  const b = await d.open()
  for (const p of [a.page, b.page]) await p.getByRole('button', { name: 'Networks' }).click()
  await a.page.getByLabel('Workspace').fill(workspace)
  await a.page.getByLabel('Start a network file').setInputFiles(file)
  return { a, b }
}
