/**
 * The dashboard's full edits in Debian's Chromium against a real daemon:
 * every option of a network's edges and nodes changed on one page and seen
 * on a second, a bad value refused with the daemon's typed error, a node
 * removed with its edges, each edit one undo; a network's own settings
 * (workflow, limits, budget, sub-networks) likewise; and a run started through
 * the SDK (not recorded) run again from the page. Screenshots go to
 * out/dashboard/; no serious accessibility violation.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { NerveClient } from '../../src/client/index.js'
import { dashboard, networkOnTwoPages, seriousViolations, shots } from './harness.js'

const d = dashboard('dashboard-edit')

/** A client of the daemon through its socket, as the SDK's users have it. */
const sdk = () => NerveClient.connect(d.status().socket)

/** A network file started from one page (`a`) with a second page (`b`) on the Networks view too. */
const twoPagesOn = (
  id: string,
  nodes: readonly (readonly [string, string])[],
  edges: readonly Readonly<Record<string, string>>[],
) => networkOnTwoPages(d, id, nodes, edges)

describe('editing a network on the page', () => {
  it('changes every option of an edge and a node, one undo each, and a second page sees it', async () => {
    const { a, b } = await twoPagesOn(
      'team',
      [
        ['a', 'Coder'],
        ['b', 'Verifier'],
        ['c', 'Coder'],
      ],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c', direction: 'one-way' },
      ],
    )
    const netA = a.page.locator('[data-network="team"]')
    const netB = b.page.locator('[data-network="team"]')
    await netB.locator('[data-netnode="c"]').waitFor()

    // An edge's delivery and the debounce's wait, seen on the other page.
    const delivery = (p: Page) => p.getByLabel('Delivery of a<->b')
    const wait = (p: Page) => p.getByLabel('Debounce of a<->b (ms)')
    await delivery(a.page).selectOption('debounce')
    await expect.poll(() => delivery(b.page).inputValue()).toBe('debounce')
    await expect.poll(() => wait(b.page).inputValue()).toBe('500')
    await wait(a.page).fill('250')
    await wait(a.page).press('Tab')
    await expect.poll(() => wait(b.page).inputValue()).toBe('250')
    await expect.poll(() => wait(a.page).inputValue()).toBe('250')

    // A negative wait is refused by the daemon, its typed error shown; nothing changed.
    await wait(a.page).fill('-5')
    await wait(a.page).press('Tab')
    const alert = a.page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.innerText()).toBe(
      'InvalidPatch: the patched network is not valid: /edges/a<->b/delivery/ms: expected a number ≥ 0, got -5',
    )
    expect(await wait(b.page).inputValue()).toBe('250')

    // Its direction: the edge b->c becomes b<->c, drawn both ways.
    await a.page.getByLabel('Direction of b->c').selectOption('both')
    await netB.locator('[data-edgerow="b<->c"]').waitFor()
    await netB.locator('[data-edge="b>c"][marker-start]').waitFor({ state: 'attached' })
    expect(await netB.locator('[data-edgerow="b->c"]').count()).toBe(0)

    // A node's role, mode, trigger, tools, budget and assignment: one edit.
    await netA.locator('[data-netnode="c"]').click()
    const form = netA.locator('[data-nodeeditor="c"]')
    await form.getByLabel('Role').fill('Reviewer')
    await form.getByLabel('Mode').selectOption('interactive')
    await form.getByLabel('Trigger').selectOption('scheduled: every')
    await form.getByLabel('Every (ms)').fill('600000')
    await form.getByLabel('Tools').fill('read, grep')
    await form.getByLabel('Most tokens').fill('1000')
    await form.getByLabel('Assignment (paths)').fill('src/, docs/')
    await form.getByRole('button', { name: 'Apply' }).click()
    await expect.poll(() => netB.locator('[data-netnode="c"]').textContent()).toContain('Reviewer')
    await netB.getByLabel('Node to edit').selectOption('c')
    const formB = netB.locator('[data-nodeeditor="c"]')
    await expect.poll(() => formB.getByLabel('Trigger').inputValue()).toBe('scheduled: every')
    expect(await formB.getByLabel('Every (ms)').inputValue()).toBe('600000')
    expect(await formB.getByLabel('Most tokens').inputValue()).toBe('1000')
    const client = await sdk()
    try {
      const c = (await client.call('GET_NETWORK', { networkId: 'team' })).network.nodes.c
      expect(c).toMatchObject({
        role: 'Reviewer',
        mode: 'interactive',
        trigger: { type: 'scheduled', everyMs: 600000 },
        tools: ['read', 'grep'],
        budget: { maxTokens: 1000 },
        assignment: ['src/', 'docs/'],
      })
    } finally {
      await client.close()
    }
    await b.page.screenshot({ path: join(shots, 'networks-full-edit.png'), fullPage: true })
    expect(await seriousViolations(a.page)).toEqual([])

    // One undo takes the whole node edit back.
    await a.page.getByRole('button', { name: 'Undo edit' }).click()
    await expect.poll(() => netB.locator('[data-netnode="c"]').textContent()).toContain('Coder')
    await expect.poll(() => formB.getByLabel('Trigger').inputValue()).toBe('any')

    // A node removed with its edges, and back with them in one undo.
    await netA.getByLabel('Node to edit').selectOption('b')
    await netA.locator('[data-nodeeditor="b"]').getByRole('button', { name: 'Remove node' }).click()
    await netB.locator('[data-netnode="b"]').waitFor({ state: 'detached' })
    expect(await netB.locator('[data-edgerow]').count()).toBe(0)
    await a.page.getByRole('button', { name: 'Undo edit' }).click()
    await netB.locator('[data-netnode="b"]').waitFor()
    await netB.locator('[data-edgerow="a<->b"]').waitFor()
    await netB.locator('[data-edgerow="b<->c"]').waitFor()
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })
})

describe('editing a network’s own settings on the page', () => {
  it('changes its limits and budget in one edit seen on a second page, refuses a bad limit, adds and removes a sub-network', async () => {
    const { a, b } = await twoPagesOn(
      'crew',
      [
        ['plan', 'Planner'],
        ['code', 'Coder'],
        ['check', 'Verifier'],
      ],
      [
        { from: 'plan', to: 'code' },
        { from: 'code', to: 'check' },
      ],
    )
    await b.page.getByRole('button', { name: /^crew/ }).click()
    const line = (p: Page) => p.locator('[data-settings="crew"]')
    await expect.poll(() => line(b.page).textContent()).toContain('maxIterations 25')
    const form = (p: Page) => p.locator('[data-settingsform="crew"]')
    const client = await sdk()
    const network = async () => (await client.call('GET_NETWORK', { networkId: 'crew' })).network
    try {
      // A sub-network with two members and a budget of its own.
      const add = a.page.getByRole('form', { name: 'Add a sub-network to crew' })
      await add.getByLabel('Sub-network').fill('build')
      await add.getByLabel('Members').selectOption(['code', 'check'])
      await add.getByLabel('Most firings').fill('4')
      await add.getByRole('button', { name: 'Add sub-network' }).click()
      const group = b.page.locator('[data-subnetwork="build"]')
      await group.waitFor()
      expect(await group.innerText()).toContain('build: code, check · budget maxSteps 4')
      const before = await network()
      expect(before.subnetworks).toEqual({
        build: { id: 'build', nodes: ['code', 'check'], budget: { maxSteps: 4 } },
      })

      // The workflow, a limit and the budget: one edit, seen on the other page.
      await form(a.page).getByLabel('Workflow').selectOption('planning')
      await form(a.page).getByLabel('Most iterations of a loop').fill('7')
      await form(a.page).getByLabel('Most tokens').fill('5000')
      await form(a.page).getByLabel('Most cost').fill('3')
      await form(a.page).getByRole('button', { name: 'Apply settings' }).click()
      await expect.poll(() => line(b.page).textContent()).toContain('maxIterations 7')
      expect(await line(b.page).textContent()).toBe(
        'Workflow planning · limits maxInFlight 4, maxIterations 7, stallAfter 3, maxSpawned 8 · budget maxTokens 5000, maxCost 3 · sub-networks build (code, check)',
      )
      await expect.poll(() => form(b.page).getByLabel('Most tokens').inputValue()).toBe('5000')
      expect(await form(b.page).getByLabel('Most iterations of a loop').inputValue()).toBe('7')
      expect(await form(b.page).getByLabel('Workflow').inputValue()).toBe('planning')
      const after = await network()
      expect(after.workflow).toBe('planning')
      expect(after.limits).toEqual({ ...before.limits, maxIterations: 7 })
      expect(after.budget).toEqual({ maxTokens: 5000, maxCost: 3 })
      await b.page.screenshot({ path: join(shots, 'networks-settings.png'), fullPage: true })
      expect(await seriousViolations(a.page)).toEqual([])

      // A limit below 1 is refused with the daemon's typed error and where; nothing changed.
      await form(a.page).getByLabel('Stall after (repeats)').fill('-1')
      await form(a.page).getByRole('button', { name: 'Apply settings' }).click()
      const alert = a.page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.innerText()).toBe(
        'InvalidPatch: the patched network is not valid: /limits/stallAfter: expected a whole number ≥ 1, got -1',
      )
      expect(await network()).toEqual(after)
      expect(await form(b.page).getByLabel('Stall after (repeats)').inputValue()).toBe('3')

      // One undo takes the whole settings edit back, on every page.
      await a.page.getByRole('button', { name: 'Undo edit' }).click()
      await expect.poll(() => line(b.page).textContent()).toContain('maxIterations 25')
      await expect.poll(() => form(b.page).getByLabel('Most tokens').inputValue()).toBe('')
      expect(await form(a.page).getByLabel('Stall after (repeats)').inputValue()).toBe('3')
      expect(await network()).toEqual(before)

      // The sub-network removed, and back with one undo.
      await a.page.getByRole('button', { name: 'Remove sub-network build' }).click()
      await group.waitFor({ state: 'detached' })
      expect((await network()).subnetworks).toBeUndefined()
      await a.page.getByRole('button', { name: 'Undo edit' }).click()
      await group.waitFor()
      expect(await network()).toEqual(before)
    } finally {
      await client.close()
    }
    expect([...a.errors, ...b.errors]).toEqual([])
    await a.context.close()
    await b.context.close()
  })
})

describe('running again a run the page did not start', () => {
  it('runs again, from the page, a run started through the SDK without a recording', async () => {
    const graph = {
      id: 'elsewhere',
      nodes: { sh: { kind: 'bash' } },
      steps: [
        { id: 'first', node: 'sh', input: 'echo one' },
        { id: 'second', node: 'sh', input: 'echo two', dependsOn: ['first'] },
      ],
    }
    const client = await sdk()
    try {
      const started = await client.runGraph(graph, { input: { why: 'test' } })
      const done = await started.result()
      expect(done.state).toBe('completed')
      expect(done.recording).toBeUndefined()

      const { page, context, errors } = await d.open({ bypassCSP: true })
      await page.getByRole('button', { name: 'Graph runs' }).click()
      await page.locator(`[data-runitem="${started.runId}"]`).click()
      await page.locator(`[data-run="${started.runId}"] [data-step="second"]`).click()
      // Not recorded: no re-run from a step, but it can be run again.
      await page.getByText('Not recorded').waitFor()
      expect(await page.getByRole('button', { name: 'Re-run from here' }).count()).toBe(0)
      await page.getByRole('button', { name: 'Run again' }).click()
      const again = page.locator('[data-run]')
      await expect.poll(() => again.getAttribute('data-run')).not.toBe(started.runId)
      await page.locator('[data-run][data-state="completed"]').waitFor()
      await page.locator('[data-step="second"][data-state="done"]').waitFor()
      const runId = (await again.getAttribute('data-run'))!
      // The same graph and input, recorded this time: it can be re-run from a step.
      const info = await client.call('GET_RUN', { runId })
      expect(info).toMatchObject({ graph, input: { why: 'test' }, state: 'completed' })
      expect(info.recording).toBeDefined()
      await page.locator('[data-step="second"]').click()
      await page.getByRole('button', { name: 'Re-run from here' }).waitFor()
      await page.screenshot({ path: join(shots, 'runs-run-again.png'), fullPage: true })
      expect(await seriousViolations(page)).toEqual([])
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await client.close()
    }
  })
})
