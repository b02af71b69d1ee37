/**
 * What importing an entry point loads, each in a fresh process: the
 * client loads the protocol and its transports only (no engine, no native
 * addon); the root loads none of the heavy parts a user may not need.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '../..')

/** The packages and native addons importing `entry` (a path under src/) loads. */
const loaded = (entry: string): { packages: string[]; addons: string[] } =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures/loaded.ts'), join(root, entry)],
      { cwd: root, encoding: 'utf8' },
    ),
  ) as { packages: string[]; addons: string[] }

const HEAVY = ['node-pty', 'better-sqlite3', 'bullmq', 'ioredis', '@modelcontextprotocol/sdk']

describe('importing an entry point', () => {
  it('nerve-agents/client loads fp-ts and io-ts (ws once a WebSocket opens), and no native addon', () => {
    const { packages, addons } = loaded('src/client/index.ts')
    expect(packages).toEqual(['fp-ts', 'io-ts'])
    expect(addons).toEqual([])
  })

  it('nerve-agents loads no store, queue or MCP SDK', () => {
    const { packages } = loaded('src/index.ts')
    expect(packages.filter((p) => HEAVY.slice(1).includes(p))).toEqual([])
  })

  it('nerve-agents/mcp loads the MCP SDK and the client, no engine and no native addon', () => {
    const { packages, addons } = loaded('src/mcp/index.ts')
    expect(packages).toContain('@modelcontextprotocol/sdk')
    expect(packages.filter((p) => HEAVY.includes(p) && p !== '@modelcontextprotocol/sdk')).toEqual(
      [],
    )
    expect(addons).toEqual([])
  })

  it('sees a native addon and the packages it comes with when one is loaded', () => {
    const { packages, addons } = loaded('src/interpreters/index.ts')
    expect(packages).toContain('node-pty')
    expect(addons.some((a) => a.endsWith('pty.node'))).toBe(true)
  })
})
