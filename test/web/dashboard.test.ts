/**
 * The dashboard in Debian's Chromium against a real daemon (`nerve server
 * start --dashboard`, its home in a temp directory, a free loopback port):
 * the door (a one-time handover, a session cookie, Host and Origin checked,
 * refused without them), nodes and a bash terminal, a graph run drawn
 * live and re-run from a step, networks (their creation, envelopes and
 * their DAG, edits), the store (a saved session, a recording replayed),
 * two pages seeing the same thing, and no serious accessibility
 * violation. Each view is screenshotted into out/dashboard/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { WebSocket } from 'ws'
import { beforeAll, describe, expect, it } from 'vitest'
import { nerve, root } from '../cli/run.js'
import { exitingTerminalGraph } from '../interpreters/terminal/processes.js'
import { dashboard, seriousViolations, shots } from './harness.js'

const d = dashboard('dashboard')
const { dir, env } = d
const handover = () => d.handover()
let base: string
let firstUrl: string

beforeAll(() => {
  base = d.status().http.url
  firstUrl = d.status().dashboard
})

/** A page logged in through `url`, failing the test on any page error. */
const open = (
  url: string,
  options: { bypassCSP?: boolean } = {},
): Promise<{ page: Page; context: BrowserContext; errors: string[] }> => d.open({ url, ...options })

/** The text an xterm shows. */
const screenText = (page: Page, nodeId: string): Promise<string> =>
  page.locator(`[data-terminal="${nodeId}"] .xterm-rows`).innerText()

/** The status of a WebSocket upgrade to the daemon with these headers. */
const upgrade = (headers: Record<string, string>): Promise<number> =>
  new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
    })
    ws.on('error', () => undefined)
  })

describe('the door', () => {
  it('refuses the page, its files and its WebSocket without a session', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401)
    expect((await fetch(`${base}/app.js`)).status).toBe(401)
    expect(await upgrade({ origin: base })).toBe(401)
    expect((await fetch(`${base}/login?handover=guessed`)).status).toBe(401)
    expect((await fetch(`${base}/dashboard/handover`, { method: 'POST' })).status).toBe(401)
  })

  it('spends a handover once for an HttpOnly SameSite=Strict cookie, and keeps no secret in the address', async () => {
    const url = await handover()
    const first = await fetch(url, { redirect: 'manual' })
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/')
    const cookie = first.headers.get('set-cookie')!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401)
    const session = cookie.split(';')[0]!
    expect((await fetch(`${base}/`, { headers: { cookie: session } })).status).toBe(200)
    expect(await upgrade({ origin: base, cookie: session })).toBe(101)
    // Another origin, or another Host, is refused even with the cookie.
    expect(await upgrade({ origin: 'http://evil.example', cookie: session })).toBe(403)
    const foreignHost = await new Promise<number | undefined>((resolve, reject) => {
      get(`${base}/`, { headers: { cookie: session, host: 'evil.example' } }, (res) => {
        res.resume()
        resolve(res.statusCode)
      }).on('error', reject)
    })
    expect(foreignHost).toBe(403)
  })

  it('prints a URL for people, and says how to start a daemon that serves one when none does', async () => {
    const r = await nerve(['dashboard'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\/login\?handover=\S+/)
    const none = await nerve(['dashboard'], { ...env, NERVE_HOME: join(dir, 'elsewhere') })
    expect(none.code).not.toBe(0)
    expect(none.stderr).toContain('nerve server start --dashboard')
  })

  it('opens the page from the URL the daemon printed, and the address is then plain', async () => {
    const { page, context, errors } = await open(firstUrl)
    expect(new URL(page.url()).search).toBe('')
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('nodes and terminals', () => {
  it('creates a bash node, runs echo hi in its terminal, and a second page sees the node', async () => {
    const a = await open(await handover())
    const b = await open(await handover())
    await a.page.getByLabel('Name').fill('sh')
    await a.page.getByLabel('Kind').selectOption('bash')
    await a.page.getByRole('button', { name: 'Create node' }).click()
    await a.page.locator('[data-node="sh"]').waitFor()
    await b.page.locator('[data-node="sh"]').waitFor()

    await a.page.locator('[data-node="sh"]').getByRole('button', { name: 'Terminal' }).click()
    await b.page.locator('[data-node="sh"]').getByRole('button', { name: 'Terminal' }).click()
    const tile = a.page.locator('[data-terminal="sh"]')
    // Read-only until taken control of.
    await tile.locator('.xterm-helper-textarea').focus()
    await a.page.keyboard.type('echo nope')
    expect(await screenText(a.page, 'sh')).not.toContain('nope')
    await tile.getByRole('button', { name: 'Take control' }).click()
    await a.page.keyboard.type('echo hi')
    await a.page.keyboard.press('Enter')
    await expect.poll(() => screenText(a.page, 'sh')).toMatch(/^hi$/m)
    // The other page attached to the same node sees the output too.
    await expect.poll(() => screenText(b.page, 'sh')).toMatch(/^hi$/m)
    await a.page.screenshot({ path: join(shots, 'nodes.png'), fullPage: true })
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })

  it('ends a flood of output on the screen as the command ended: its last line, the prompt, and the lines before in the scrollback', async () => {
    const { page, context, errors } = await open(await handover())
    await page.getByLabel('Name').fill('flood')
    await page.getByLabel('Kind').selectOption('bash')
    await page.getByRole('button', { name: 'Create node' }).click()
    await page.locator('[data-node="flood"]').getByRole('button', { name: 'Terminal' }).click()
    const tile = page.locator('[data-terminal="flood"]')
    await tile.locator('.xterm-rows').waitFor()
    await tile.getByRole('button', { name: 'Take control' }).click()
    // 2 MB in 300000 lines: more than the scrollback keeps, in chunks of 64 KB.
    await page.keyboard.type('seq 1 300000')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => screenText(page, 'flood'), { timeout: 15_000 })
      .toMatch(/^299999\n300000\n\$\s*$/m)
    // The scrollback above holds the lines before, one after the other (drawn again once the flood ended).
    await tile.locator('.xterm-screen').hover()
    await page.mouse.wheel(0, -1500)
    await expect
      .poll(async () => {
        const rows = (await screenText(page, 'flood')).split('\n').filter((r) => r.trim() !== '')
        return rows.length === 20 &&
          rows.every((r, i) => i === 0 || Number(r) === Number(rows[i - 1]) + 1)
          ? Number(rows[0])
          : rows.join(' ')
      })
      .toBeLessThan(299980)
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('graph runs', () => {
  it('runs examples/fan-out.json from the page and draws its steps going running → done', async () => {
    const { page, context, errors } = await open(await handover())
    await page.getByRole('button', { name: 'Graph runs' }).click()
    await page.getByLabel('Run a graph file').setInputFiles(join(root, 'examples/fan-out.json'))
    // Every step is drawn before it starts; `a` waits on `prepare`.
    await page.locator('[data-step="join"]').waitFor()
    await page.locator('[data-step="a"][data-state="running"]').waitFor()
    await page.locator('[data-step="a"][data-state="done"]').waitFor()
    await page.locator('[data-run][data-state="completed"]').waitFor()
    await expect
      .poll(() => page.locator('[data-step="optional"]').getAttribute('data-state'))
      .toBe('skipped')
    // The timeline: a bar per step that ran, on a time axis.
    const timeline = page.locator('[data-timeline]')
    for (const id of ['prepare', 'a', 'b', 'join'])
      await timeline.locator(`[data-bar="${id}"]`).waitFor()
    expect(await timeline.locator('[data-tick]').count()).toBe(5)
    await page.locator('[data-step="a"]').click()
    await expect.poll(() => page.locator('[data-detail="a"]').innerText()).toContain('a')
    await page.screenshot({ path: join(shots, 'runs.png'), fullPage: true })
    // Re-run from a step: a new run whose steps before it are answered from the recording.
    const first = await page.locator('[data-run]').getAttribute('data-run')
    await page.getByRole('button', { name: 'Re-run from here' }).click()
    await expect.poll(() => page.locator('[data-run]').getAttribute('data-run')).not.toBe(first)
    await page.locator('[data-run][data-state="completed"]').waitFor()
    await page.locator('[data-step="a"][data-state="done"]').waitFor()
    await page.locator('[data-step="prepare"][data-state="done"]').waitFor()
    expect(await page.locator('[data-runitem]').count()).toBeGreaterThanOrEqual(2)
    await page.screenshot({ path: join(shots, 'runs-rerun.png'), fullPage: true })
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows a step retried, in the graph and on the timeline', async () => {
    const mark = join(dir, 'flaky-mark')
    const file = join(dir, 'flaky.json')
    writeFileSync(
      file,
      JSON.stringify({
        id: 'flaky',
        nodes: { sh: { kind: 'bash' } },
        steps: [
          {
            id: 'flaky',
            node: 'sh',
            input: `test -f ${mark} || { touch ${mark}; exit 1; }; echo recovered`,
            onError: { type: 'retry', count: 2, delayMs: 50 },
          },
        ],
      }),
    )
    const { page, context, errors } = await open(await handover())
    await page.getByRole('button', { name: 'Graph runs' }).click()
    await page.getByLabel('Run a graph file').setInputFiles(file)
    await page.locator('[data-step="flaky"][data-state="done"]').waitFor()
    await page.locator('[data-bar="flaky"][data-retries="1"]').waitFor()
    await expect.poll(() => page.locator('[data-step="flaky"]').textContent()).toContain('↻1')
    await page.screenshot({ path: join(shots, 'runs-retry.png'), fullPage: true })
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows a step whose node the run started again (its program had exited)', async () => {
    const file = join(dir, 'exits.json')
    writeFileSync(file, JSON.stringify(exitingTerminalGraph))
    const { page, context, errors } = await open(await handover())
    await page.getByRole('button', { name: 'Graph runs' }).click()
    await page.getByLabel('Run a graph file').setInputFiles(file)
    await page.locator('[data-step="after"][data-state="done"]').waitFor()
    await expect
      .poll(() => page.locator('[data-step="after"]').textContent())
      .toContain('respawned 1×')
    expect(await page.locator('[data-step="quit"]').textContent()).not.toContain('respawned')
    await page.locator('[data-step="after"]').click()
    await expect
      .poll(() => page.locator('[data-detail="after"]').innerText())
      .toContain('its node respawned 1×')
    expect(errors).toEqual([])
    await context.close()
  })

  it('cancels a running run from the page', async () => {
    const file = join(dir, 'slow.json')
    writeFileSync(
      file,
      JSON.stringify({
        id: 'slow',
        nodes: { sh: { kind: 'bash' } },
        steps: [{ id: 'wait', node: 'sh', input: 'sleep 30' }],
      }),
    )
    const { page, context } = await open(await handover())
    await page.getByRole('button', { name: 'Graph runs' }).click()
    await page.getByLabel('Run a graph file').setInputFiles(file)
    await page.locator('[data-step="wait"][data-state="running"]').waitFor()
    await page.getByRole('button', { name: 'Cancel run' }).click()
    await page.locator('[data-run][data-state="cancelled"]').waitFor()
    await context.close()
  })
})

describe('networks', () => {
  it('starts a network, shows envelopes arriving, and mirrors an edit and its undo in a second page', async () => {
    const workspace = join(dir, 'review')
    mkdirSync(workspace)
    const a = await open(await handover())
    const b = await open(await handover())
    await a.page.getByRole('button', { name: 'Networks' }).click()
    await b.page.getByRole('button', { name: 'Networks' }).click()
    await b.page.getByText('No networks yet.').waitFor()
    await a.page.getByLabel('Workspace').fill(workspace)
    await a.page
      .getByLabel('Start a network file')
      .setInputFiles(join(root, 'examples/review.network.json'))
    await a.page.locator('[data-netnode="reviewer"]').waitFor()
    // The other page learns of the network from its creation (NETWORK_CREATED), before any of its events.
    await b.page.locator('[data-network="review"] [data-netnode="reviewer"]').waitFor()
    expect(await b.page.locator('[data-envelope]').count()).toBe(0)

    await a.page.getByLabel('Send to').selectOption('writer')
    await a.page.getByLabel('Message').fill('Write a haiku')
    await a.page.getByRole('button', { name: 'Send', exact: true }).click()
    await a.page.locator('[data-netnode="writer"][data-state="done"]').waitFor()
    await b.page.locator('[data-envelope]').nth(3).waitFor()
    expect(await b.page.locator('[data-envelope]').first().innerText()).toContain('Write a haiku')
    // The envelope DAG: a box per envelope, an arrow from each envelope to those it caused.
    await expect.poll(() => b.page.locator('[data-envnode]').count()).toBeGreaterThanOrEqual(4)
    await b.page.locator('[data-cause]').first().waitFor({ state: 'attached' })
    await b.page.screenshot({ path: join(shots, 'networks-envelopes.png'), fullPage: true })
    // Inbox counts per edge: in the edge's row and on its line.
    await expect
      .poll(async () =>
        Number(
          await b.page
            .locator('[data-edgerow="writer<->reviewer"] [data-sent]')
            .getAttribute('data-sent'),
        ),
      )
      .toBeGreaterThan(0)
    await b.page.locator('[data-inbox="writer<->reviewer"]').waitFor()

    const delivery = (p: Page) => p.getByLabel('Delivery of writer<->reviewer')
    await delivery(a.page).selectOption('latest')
    await expect.poll(() => delivery(b.page).inputValue()).toBe('latest')
    await a.page
      .locator('[data-edgerow="writer<->reviewer"]')
      .getByRole('button', { name: 'Remove' })
      .click()
    await b.page.locator('[data-edgerow]').first().waitFor({ state: 'detached' })
    await a.page.getByRole('button', { name: 'Undo edit' }).click()
    await expect.poll(() => delivery(b.page).inputValue()).toBe('latest')
    await a.page.getByRole('button', { name: 'Undo edit' }).click()
    await expect.poll(() => delivery(b.page).inputValue()).toBe('queue')
    await a.page.screenshot({ path: join(shots, 'networks.png'), fullPage: true })
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })

  it('draws an edit at once where the drawing is, every box kept in place, and lays out again when asked', async () => {
    const file = join(dir, 'chain.network.json')
    const ids = ['a', 'b', 'c', 'd']
    writeFileSync(
      file,
      JSON.stringify({
        format: 'nerve/network',
        version: 1,
        id: 'chain',
        nodes: ids.map((id) => ({ id, role: 'Coder', provider: { type: 'mock', script: [] } })),
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
          { from: 'c', to: 'd' },
        ],
      }),
    )
    const a = await open(await handover())
    await a.page.getByRole('button', { name: 'Networks' }).click()
    await a.page.getByLabel('Workspace').fill(dir)
    await a.page.getByLabel('Start a network file').setInputFiles(file)
    await a.page.locator('[data-network="chain"] [data-netnode="d"]').waitFor()
    const b = await open(await handover())
    await b.page.getByRole('button', { name: 'Networks' }).click()
    await b.page.locator('[data-network]').first().waitFor()
    await b.page.getByRole('button', { name: /^chain/ }).click()
    const net = b.page.locator('[data-network="chain"]')
    await net.locator('[data-netnode="d"]').waitFor()
    const places = () =>
      Promise.all(ids.map((id) => net.locator(`[data-netnode="${id}"]`).getAttribute('transform')))
    const before = await places()
    // Drawn as it is: a straight line from a to d, no box moved (dagre would route it through three layers).
    const adding = a.page
      .locator('[data-network="chain"] form')
      .filter({ has: a.page.getByRole('button', { name: 'Add edge' }) })
    await adding.getByLabel(/^From/).selectOption('a')
    await adding.getByLabel(/^To/).selectOption('d')
    await adding.getByRole('button', { name: 'Add edge' }).click()
    const added = net.locator('[data-edge="a>d"]')
    await added.waitFor({ state: 'attached' })
    expect((await added.getAttribute('points'))!.split(' ')).toHaveLength(2)
    expect(await places()).toEqual(before)
    await net.getByRole('button', { name: 'Lay out again' }).click()
    await expect
      .poll(async () => (await added.getAttribute('points'))!.split(' ').length)
      .toBeGreaterThan(2)
    // A node added on one page, with an edge to it, drawn on the other where the drawing is.
    const laid = await places()
    const adding2 = a.page
      .locator('[data-network="chain"] form')
      .filter({ has: a.page.getByRole('button', { name: 'Add node' }) })
    await adding2.getByLabel('Node', { exact: true }).fill('e')
    await adding2.getByLabel('Role').selectOption('Coder')
    await adding2.getByLabel('Scripted reply').fill('ok')
    await adding2.getByLabel('Edge from').selectOption('d')
    await adding2.getByRole('button', { name: 'Add node' }).click()
    await net.locator('[data-netnode="e"]').waitFor()
    await net.locator('[data-edge="d>e"]').waitFor({ state: 'attached' })
    expect(await places()).toEqual(laid)
    // It takes a message like the others.
    await a.page.getByLabel('Send to').selectOption('e')
    await a.page.getByLabel('Message').fill('hello e')
    await a.page.getByRole('button', { name: 'Send', exact: true }).click()
    await b.page.locator('[data-envelope]').filter({ hasText: 'hello e' }).first().waitFor()
    await b.page.screenshot({ path: join(shots, 'networks-edit.png'), fullPage: true })
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })

  it('shows an approval a node asks for and approves it from the page', async () => {
    const workspace = join(dir, 'plan')
    mkdirSync(workspace)
    const file = join(dir, 'plan.network.json')
    writeFileSync(
      file,
      JSON.stringify({
        format: 'nerve/network',
        version: 1,
        id: 'plan',
        workflow: 'planning',
        nodes: [
          {
            id: 'planner',
            role: 'Planner',
            tools: ['bash'],
            provider: {
              type: 'mock',
              script: [
                { tools: [{ name: 'bash', input: { command: 'echo hi > note.txt' } }] },
                'ok',
              ],
            },
          },
        ],
        edges: [],
      }),
    )
    const { page, context } = await open(await handover())
    await page.getByRole('button', { name: 'Networks' }).click()
    await page.getByLabel('Workspace').fill(workspace)
    await page.getByLabel('Start a network file').setInputFiles(file)
    await page.locator('[data-network="plan"]').waitFor()
    await page.getByLabel('Message').fill('look')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    const asked = page.locator('[data-approval]')
    await asked.waitFor()
    expect(await asked.innerText()).toContain('echo hi > note.txt')
    await asked.getByRole('button', { name: 'Approve' }).click()
    await asked.waitFor({ state: 'detached' })
    await expect.poll(() => readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('hi\n')
    await context.close()
  })
})

describe('conversations', () => {
  it("draws an LLM node's conversation, forks it at a vertex, and the fork grows a branch of its own", async () => {
    const { page, context, errors } = await open(await handover())
    await page.getByLabel('Name').fill('chat')
    await page.getByLabel('Kind').selectOption('llm')
    await page.getByLabel('Options').fill('{"provider":"echo"}')
    await page.getByRole('button', { name: 'Create node' }).click()
    await page.locator('[data-node="chat"]').waitFor()
    await page.getByRole('button', { name: 'Conversations' }).click()
    await page.getByLabel('Conversation', { exact: true }).selectOption('chat')
    const chat = page.locator('[data-conversation="chat"]')
    for (const text of ['hello', 'again']) {
      await page.getByLabel('Say to chat', { exact: true }).fill(text)
      await chat.getByRole('button', { name: 'Send' }).click()
      await chat.getByText(`assistant: echo: ${text}`).waitFor()
    }
    await chat.getByText('user: hello').click()
    await page.getByLabel('Fork here as').fill('chat-b')
    await page.getByRole('button', { name: 'Fork here' }).click()
    const fork = page.locator('[data-conversation="chat-b"]')
    await fork.getByText('user: hello').waitFor()
    expect(await fork.getByText('user: again').count()).toBe(0)
    await page.getByLabel('Say to chat-b').fill('other')
    await fork.getByRole('button', { name: 'Send' }).click()
    await fork.getByText('assistant: echo: other').waitFor()
    // The source keeps its own branch.
    expect(await chat.getByText('user: other').count()).toBe(0)
    expect(await chat.getByText('user: again').count()).toBe(1)
    // Edit a user message and retry: a new branch with the edited message, the earlier ones kept.
    await chat.getByText('user: again').click()
    await page.getByLabel('Fork here as').fill('chat-c')
    await page.getByLabel('Edit the message').fill('changed')
    await page.getByRole('button', { name: 'Edit and retry' }).click()
    const edited = page.locator('[data-conversation="chat-c"]')
    await edited.getByText('assistant: echo: changed').waitFor()
    expect(await edited.getByText('user: hello').count()).toBe(1)
    expect(await edited.getByText('user: again').count()).toBe(0)
    expect(await chat.getByText('user: changed').count()).toBe(0)
    await page.screenshot({ path: join(shots, 'conversations.png'), fullPage: true })
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('the store', () => {
  it("lists saved sessions and recordings: a saved session's nodes and conversation, a recording replayed in the runs view", async () => {
    const { page, context, errors } = await open(await handover())
    await page.getByRole('button', { name: 'Store' }).click()
    await page.getByRole('button', { name: 'Save the session now' }).click()
    await page.locator('[data-savedsession="default"]').click()
    const saved = page.locator('[data-saved="default"]')
    await saved.locator('[data-savednode="chat"]').waitFor()
    await saved.locator('[data-savednode="sh"]').waitFor()
    await saved.getByText('user: hello').waitFor()
    expect(await saved.locator('[data-vertex]').count()).toBeGreaterThanOrEqual(4)
    await page.screenshot({ path: join(shots, 'store.png'), fullPage: true })
    // The fan-out run started on the page was recorded: replayed, it opens in the runs view.
    const recording = page.locator('[data-recordingitem]').filter({ hasText: 'fan-out' }).first()
    await recording.getByRole('button', { name: 'Replay' }).click()
    await page.locator('[data-view="runs"][aria-pressed="true"]').waitFor()
    await page.locator('[data-run][data-state="completed"]').waitFor()
    await page.locator('[data-step="join"][data-state="done"]').waitFor()
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on any view', async () => {
    const { page, context } = await open(await handover(), { bypassCSP: true })
    const serious = () => seriousViolations(page)
    expect(await serious()).toEqual([])
    await page.getByRole('button', { name: 'Graph runs' }).click()
    await page.locator('[data-run]').first().waitFor()
    expect(await serious()).toEqual([])
    await page.getByRole('button', { name: 'Networks' }).click()
    await page.locator('[data-network]').first().waitFor()
    expect(await serious()).toEqual([])
    await page.getByRole('button', { name: 'Conversations' }).click()
    await page.getByLabel('Conversation', { exact: true }).selectOption('chat')
    await page.locator('[data-vertex]').first().waitFor()
    expect(await serious()).toEqual([])
    await page.getByRole('button', { name: 'Store' }).click()
    await page.locator('[data-savedsession]').first().click()
    await page.locator('[data-savednode]').first().waitFor()
    expect(await serious()).toEqual([])
    await context.close()
  })
})
