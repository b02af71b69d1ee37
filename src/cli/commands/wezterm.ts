/**
 * `nerve wezterm list|spawn|send|read|kill`: WezTerm panes through
 * `wezterm cli`, with no daemon. A missing `wezterm` (or one that finds no
 * running WezTerm) is one line naming it.
 */
import {
  listWeztermPanes,
  weztermCli,
  WeztermCommandFailed,
  type WeztermPaneInfo,
} from '../../interpreters/index.js'
import { CliError, print, type GlobalOptions } from '../context.js'

/** `NERVE_WEZTERM` names the executable (default `wezterm` on PATH). */
const bin = (): string => process.env.NERVE_WEZTERM ?? 'wezterm'

/** Runs `f`; a `wezterm` that is not there becomes a clear `WeztermMissing`. */
const wez = async <A>(f: () => Promise<A>): Promise<A> => {
  try {
    return await f()
  } catch (e) {
    if (
      e instanceof WeztermCommandFailed &&
      (e.cause as { code?: unknown } | undefined)?.code === 'ENOENT'
    ) {
      throw new CliError(
        'WeztermMissing',
        `${bin()} is not installed or not on PATH (install WezTerm, or set NERVE_WEZTERM)`,
        undefined,
        'unavailable',
      )
    }
    throw e
  }
}

const paneOf = (pane: string): string => {
  if (!/^\d+$/.test(pane))
    throw new CliError('BadPane', `a pane id is a number, got ${pane}`, undefined, 'invalidInput')
  return pane
}

const row = (p: WeztermPaneInfo): string =>
  `${String(p.paneId).padEnd(6)} ${String(p.windowId).padEnd(6)} ${String(p.tabId).padEnd(5)} ${`${p.cols}x${p.rows}`.padEnd(9)} ${p.title}`

export const list = async (o: GlobalOptions): Promise<void> => {
  const panes = await wez(() => listWeztermPanes(bin()))
  print(o, { panes }, ({ panes: ps }) =>
    ps.length === 0
      ? 'no panes'
      : [
          `${'PANE'.padEnd(6)} ${'WINDOW'.padEnd(6)} ${'TAB'.padEnd(5)} ${'SIZE'.padEnd(9)} TITLE`,
          ...ps.map(row),
        ].join('\n'),
  )
}

export const spawnPane = async (
  command: readonly string[],
  o: GlobalOptions & { readonly cwd?: string },
): Promise<void> => {
  const args = [
    'spawn',
    ...(o.cwd === undefined ? [] : ['--cwd', o.cwd]),
    ...(command.length > 0 ? ['--', ...command] : []),
  ]
  const out = (await wez(() => weztermCli(bin(), args))).trim()
  print(o, { paneId: Number(out) }, (r) => `Spawned pane ${r.paneId}`)
}

/** Sends text as typed (`--no-paste`), then Enter unless `--no-enter`. */
export const send = async (
  pane: string,
  text: string,
  o: GlobalOptions & { readonly enter?: boolean },
): Promise<void> => {
  const data = o.enter === false ? text : `${text}\r`
  await wez(() => weztermCli(bin(), ['send-text', '--pane-id', paneOf(pane), '--no-paste'], data))
  print(o, { paneId: Number(pane), sent: data.length }, () => '')
}

export const read = async (
  pane: string,
  o: GlobalOptions & { readonly tail?: string },
): Promise<void> => {
  const tail = o.tail === undefined ? undefined : Number(o.tail)
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0)) {
    throw new CliError(
      'BadOption',
      `--tail takes a line count, got ${o.tail}`,
      '--tail',
      'invalidInput',
    )
  }
  const text = await wez(() => weztermCli(bin(), ['get-text', '--pane-id', paneOf(pane)]))
  const lines = text.replace(/\n+$/, '').split('\n')
  const shown = tail === undefined ? lines : lines.slice(Math.max(0, lines.length - tail))
  print(o, { paneId: Number(pane), text: shown.join('\n') }, (r) => r.text)
}

export const kill = async (pane: string, o: GlobalOptions): Promise<void> => {
  await wez(() => weztermCli(bin(), ['kill-pane', '--pane-id', paneOf(pane)]))
  print(o, { paneId: Number(pane), killed: true }, () => `Killed pane ${pane}`)
}
