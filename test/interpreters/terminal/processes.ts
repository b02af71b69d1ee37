/**
 * What runs, read from /proc by the tests themselves (not by the code under
 * test): the processes of a session, and whether a pid still runs; and the
 * bash the terminal tests run.
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { PtyOptions } from '../../../src/index.js'

interface Stat {
  readonly pid: number
  readonly state: string
  readonly pgrp: number
  readonly session: number
  readonly command: string
}

const stat = (pid: number): Stat | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const close = text.lastIndexOf(')')
    const fields = text.slice(close + 2).split(' ')
    return {
      pid,
      state: fields[0]!,
      pgrp: Number(fields[2]),
      session: Number(fields[3]),
      command: text.slice(text.indexOf('(') + 1, close),
    }
  } catch {
    return undefined
  }
}

/** Whether a process runs (gone, or a zombie waiting for its reaper, does not). */
export const running = (pid: number): boolean => {
  const s = stat(pid)
  return s !== undefined && s.state !== 'Z'
}

/** The running processes of session `session` (its leader included). */
export const sessionMembers = (session: number): Stat[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter((s): s is Stat => s !== undefined && s.state !== 'Z' && s.session === session)

/** The process group of a running process. */
export const groupOf = (pid: number): number | undefined => stat(pid)?.pgrp

/** The session of a running process. */
export const sessionOf = (pid: number): number | undefined => stat(pid)?.session

/** Waits (up to 10 s) until `found` returns something other than undefined. */
export const eventually = async <T>(what: string, found: () => T | undefined): Promise<T> => {
  for (let i = 0; i < 500; i++) {
    const value = found()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`never saw ${what}`)
}

/** A bash with no rc files and a plain `$ ` prompt: the terminal tests' program. */
export const BASH: PtyOptions = {
  command: 'bash',
  args: ['--norc', '--noprofile'],
  env: { PS1: '$ ', PROMPT_COMMAND: '' },
}

/**
 * A graph file whose terminal exits in its first step (skipped) and is
 * started again for the second, which echoes `back`.
 */
export const exitingTerminalGraph = {
  id: 'exits',
  nodes: { sh: { kind: 'pty', ...BASH } },
  steps: [
    { id: 'quit', node: 'sh', input: 'exit', onError: { type: 'skip', value: 'gone' } },
    { id: 'after', node: 'sh', input: 'echo back', dependsOn: ['quit'] },
  ],
}
