import { appendFileSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UsageError } from 'nerve-agents'
import { ArtifactStore } from 'nerve-agents/network'

describe('the artifact store', () => {
  it('stores content by its SHA-256 once, lists every put, and reads by ref', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-artifacts-'))
    const store = new ArtifactStore(dir)
    const plan = await store.put('plan', '# Plan\n', { name: 'docs/plan.md', nodeId: 'planner' })
    const again = await store.put('report', '# Plan\n')
    expect(plan.ref).toMatch(/^artifact:sha256:[0-9a-f]{64}$/)
    expect(again.ref).toBe(plan.ref)
    expect(await store.readText(plan.ref)).toBe('# Plan\n')
    expect((await store.list()).map((a) => [a.type, a.name])).toEqual([
      ['plan', 'docs/plan.md'],
      ['report', undefined],
    ])
    expect(readdirSync(join(dir, 'artifacts')).sort()).toEqual(
      [plan.ref.slice(16), 'index.jsonl'].sort(),
    )
  })

  it('skips a torn last line of its index, and refuses what is not a ref', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerve-artifacts-'))
    const store = new ArtifactStore(dir)
    await store.put('log', 'ok')
    appendFileSync(join(dir, 'artifacts', 'index.jsonl'), '{"type":"lo')
    expect(await store.list()).toHaveLength(1)
    await expect(store.read('../etc/passwd')).rejects.toThrow(UsageError)
  })
})
