import { spawn } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  endProcesses,
  MARK_VARIABLE,
  newMark,
  processesOf,
  type ProcessInfo,
} from '../../../src/interpreters/terminal/processTree.js'
import { eventually, running } from './processes.js'

const proc = (pid: number, ppid: number, session: number): ProcessInfo => ({
  pid,
  ppid,
  session,
  start: '1',
  state: 'S',
})

/** A process table: pids 2..n+1, each with a parent among the earlier ones (or 1) and a session. */
const table = fc
  .array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 40 })
  .map((rows) =>
    rows.map(([parent, session], i) =>
      proc(i + 2, parent % (i + 2) < 2 ? 1 : parent % (i + 2), session + 100),
    ),
  )

const unmarked = (): boolean => false

describe('processesOf', () => {
  it('holds every member of the session and every descendant of a member, and nothing else', () => {
    fc.assert(
      fc.property(table, fc.integer({ min: 101, max: 104 }), (procs, session) => {
        const found = new Set(processesOf({ session }, procs, unmarked).map((p) => p.pid))
        const byPid = new Map(procs.map((p) => [p.pid, p]))
        const belongs = (p: ProcessInfo): boolean =>
          p.session === session || (byPid.has(p.ppid) && belongs(byPid.get(p.ppid)!))
        for (const p of procs) expect(found.has(p.pid)).toBe(belongs(p))
      }),
    )
  })

  it('holds the root and its descendants, whatever their session', () => {
    const procs = [
      proc(10, 1, 10),
      proc(11, 10, 10),
      proc(12, 11, 12),
      proc(13, 12, 12),
      proc(14, 1, 14),
    ]
    expect(processesOf({ root: 10 }, procs, unmarked).map((p) => p.pid)).toEqual([10, 11, 12, 13])
  })

  it('holds the processes that carry the mark, and their descendants', () => {
    const procs = [proc(20, 1, 20), proc(21, 20, 20), proc(22, 1, 22)]
    const marked = (pid: number, entry: string): boolean =>
      pid === 20 && entry === `\0${MARK_VARIABLE}=abc\0`
    expect(processesOf({ mark: 'abc' }, procs, marked).map((p) => p.pid)).toEqual([20, 21])
    expect(processesOf({ mark: 'abd' }, procs, marked)).toEqual([])
  })

  it('never holds pid 1 nor this process', () => {
    const procs = [proc(1, 0, 30), proc(process.pid, 1, 30), proc(31, process.pid, 30)]
    expect(processesOf({ session: 30 }, procs, unmarked).map((p) => p.pid)).toEqual([31])
  })

  it('reads the mark from the environment in /proc', async () => {
    const mark = newMark()
    const child = spawn('sleep', ['30'], { env: { ...process.env, [MARK_VARIABLE]: mark } })
    try {
      await eventually('the child', () =>
        child.pid !== undefined && running(child.pid) ? 1 : undefined,
      )
      expect(processesOf({ mark }).map((p) => p.pid)).toEqual([child.pid])
      expect(processesOf({ mark: newMark() })).toEqual([])
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('endProcesses', () => {
  it('sends SIGTERM, then SIGKILL to what ignores it after the grace', async () => {
    const mark = newMark()
    const env = { ...process.env, [MARK_VARIABLE]: mark }
    const polite = spawn('sleep', ['30'], { env })
    const stubborn = spawn('sh', ['-c', `trap '' TERM; sleep 30`], { env })
    const pids = [polite.pid!, stubborn.pid!]
    const exits = [polite, stubborn].map(
      (c) =>
        new Promise<NodeJS.Signals | null>((resolve) =>
          c.on('exit', (_, s) => {
            resolve(s)
          }),
        ),
    )
    await eventually('the sleep under sh', () =>
      processesOf({ mark }).length >= 3 ? true : undefined,
    )
    const started = Date.now()
    await endProcesses({ mark }, { graceMs: 300 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(await Promise.all(exits)).toEqual(['SIGTERM', 'SIGKILL'])
    expect(pids.filter(running)).toEqual([])
    expect(processesOf({ mark })).toEqual([])
  })

  it('resolves at once when nothing belongs to the scope', async () => {
    const started = Date.now()
    await endProcesses({ mark: newMark() }, { graceMs: 5000 })
    expect(Date.now() - started).toBeLessThan(1000)
  })
})
