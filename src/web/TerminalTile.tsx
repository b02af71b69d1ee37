/**
 * A node's terminal in an xterm emulator. Read-only until "Take control".
 * A bash node runs one command per line: the line is edited here and sent
 * with `RUN_COMMAND`; its output arrives as `OUTPUT_CHUNK` events (so every
 * page attached sees it). A terminal node (pty, tmux, CLI agents) gets the
 * keys as they are typed (`WRITE_DATA`) and shows its screen
 * (`GET_BUFFER`), read again after each write and each event of the node.
 */
import type { Terminal as XTerm } from '@xterm/xterm'
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, onEvent } from './session.js'
import { chunkText } from './state.js'
import { attempt } from './problem.js'
import { crlf, endAfterLag, lastLines } from './terminalText.js'

/** Lines of scrollback the emulator keeps above its screen. */
const SCROLLBACK = 5000

/** Rows of the screen. */
const ROWS = 20

/** Milliseconds without output after which a flood is over and its scrollback drawn. */
const FLOOD_PAUSE = 100

/** The characters of an answer shown after dropped chunks. */
const TAIL = 4000

interface Props {
  /** The node's session; `undefined`: the daemon's default one. */
  readonly sessionId: string | undefined
  readonly nodeId: string
  readonly kind: string
  /** Its title (the node's name, and its session's when not the one shown). */
  readonly label: string
  readonly close: () => void
}

export const TerminalTile = ({ sessionId, nodeId, kind, label, close }: Props) => {
  const host = useRef<HTMLDivElement>(null)
  const control = useRef(false)
  const [inControl, setInControl] = useState(false)
  const lineMode = kind === 'bash'
  /** The params naming the node: its session (when known) and its id. */
  const node: { readonly nodeId: string; readonly sessionId?: string } =
    sessionId === undefined ? { nodeId } : { sessionId, nodeId }

  useEffect(() => {
    // xterm is loaded with the first terminal: the page opens without it.
    let cleanup: (() => void) | undefined
    let gone = false
    void import('@xterm/xterm').then(({ Terminal }) => {
      if (!gone) cleanup = attach(Terminal)
    })
    return () => {
      gone = true
      cleanup?.()
    }
    function attach(Terminal: typeof XTerm): () => void {
      const term = new Terminal({
        cols: 96,
        rows: ROWS,
        scrollback: SCROLLBACK,
        convertEol: false,
        disableStdin: false,
        fontSize: 13,
        theme: { background: '#111418' },
      })
      term.open(host.current!)
      // Writes are queued and handed to xterm once a frame, and only when it has parsed the last
      // ones. A flood (more lines at once than the terminal keeps) is drawn a screen at a time while
      // it lasts, its last lines kept aside; once it ends (a smaller write, or FLOOD_PAUSE ms
      // without one) the terminal is drawn again from them, scrollback and all. xterm then parses a
      // screen a frame instead of a scrollback, and the page reads the chunks as fast as they come.
      let queued = ''
      let parsing = false
      /** Cancels the flush that is scheduled, if any. */
      let scheduled: (() => void) | undefined
      /** The last lines of a flood being drawn a screen at a time. */
      let flood: string | undefined
      let settle: ReturnType<typeof setTimeout> | undefined
      /** Draws the flood's scrollback FLOOD_PAUSE ms from now, unless more output comes first. */
      const settleLater = (): void => {
        clearTimeout(settle)
        settle = setTimeout(() => {
          if (parsing) settleLater()
          else {
            scheduled?.()
            flush()
          }
        }, FLOOD_PAUSE)
      }
      const schedule = (): void => {
        if (scheduled !== undefined || parsing) return
        const frame = requestAnimationFrame(flush)
        scheduled = () => {
          cancelAnimationFrame(frame)
        }
      }
      function flush(): void {
        scheduled = undefined
        if (parsing || (queued === '' && flood === undefined)) return
        let text = queued
        // A line longer than the terminal is wide wraps: the characters kept are bounded too.
        const keep = (lines: number): number => lines * term.cols
        const kept = lastLines(queued, SCROLLBACK + ROWS, keep(SCROLLBACK + ROWS))
        if (kept.length < queued.length) {
          flood = kept
          text = lastLines(kept, ROWS, keep(ROWS))
          settleLater()
        } else if (flood !== undefined) {
          clearTimeout(settle)
          term.reset()
          text = `\x1b[2m[… earlier output skipped …]\x1b[0m\r\n${lastLines(flood + queued, SCROLLBACK + ROWS, keep(SCROLLBACK + ROWS))}`
          flood = undefined
        }
        queued = ''
        parsing = true
        term.write(crlf(text), () => {
          parsing = false
          if (queued !== '') schedule()
        })
      }
      const write = (text: string): void => {
        queued += text
        schedule()
      }
      let line = ''
      let streamed = false
      /** Whether the cursor sits just after a prompt: output another page asked for starts on a new line. */
      let atPrompt = false
      const prompt = (): void => {
        write('\x1b[32m$\x1b[0m ')
        atPrompt = true
      }
      const output = (text: string): void => {
        if (atPrompt) write('\r\n')
        atPrompt = false
        write(text)
      }
      let redraw: ReturnType<typeof setTimeout> | undefined
      const readScreen = (): void => {
        clearTimeout(redraw)
        redraw = setTimeout(() => {
          client()
            .call('GET_BUFFER', { ...node })
            .then(
              ({ buffer }) => {
                term.reset()
                term.write(crlf(buffer.replace(/\n+$/, '')))
              },
              () => undefined,
            )
        }, 60)
      }
      if (lineMode) prompt()
      else readScreen()

      /** Whether events were dropped (the page fell behind) since the last answer. */
      let lagged = false
      /** The last characters of this command's stdout as its chunks came. */
      let recent = ''
      const stop = onEvent((e) => {
        if (e.type === 'LAGGED') {
          lagged = true
          if (streamed)
            output('\r\n\x1b[2m[… the page fell behind: output may be missing here …]\x1b[0m\r\n')
        }
        if (!('nodeId' in e) || e.nodeId !== nodeId) return
        if (sessionId !== undefined && 'sessionId' in e && e.sessionId !== sessionId) return
        if (e.type === 'OUTPUT_CHUNK' && e.runId === undefined) {
          const text = chunkText(e.chunk)
          if (text === undefined) return
          if (lineMode) {
            streamed = true
            if ((e.chunk as { stream?: unknown }).stream !== 'stderr')
              recent = text.length >= TAIL ? text.slice(-TAIL) : (recent + text).slice(-TAIL)
            output(text)
          } else readScreen()
        } else if (e.type === 'OUTPUT_PARSED' && lineMode) {
          const out = e.output as { stdout?: unknown; stderr?: unknown } | null
          if (lagged && streamed && out !== null && typeof out === 'object') {
            // Chunks were dropped on the way: unless the last of them are the answer's end, end with
            // the answer's own tail, marked as such.
            output(endAfterLag(typeof out.stdout === 'string' ? out.stdout : '', recent, TAIL))
          } else if (!streamed && out !== null && typeof out === 'object') {
            if (e.truncated === true) output('\x1b[2m[… the answer is long: its end …]\x1b[0m\r\n')
            for (const s of [out.stdout, out.stderr])
              if (typeof s === 'string' && s !== '') output(s)
          }
          lagged = false
          streamed = false
          recent = ''
          prompt()
        } else if (!lineMode) readScreen()
      })

      const input = term.onData((data) => {
        if (!control.current) return
        if (!lineMode) {
          attempt(async () => {
            await client().call('WRITE_DATA', { ...node, data })
            readScreen()
          })
          return
        }
        for (const ch of data) {
          if (ch === '\r') {
            write('\r\n')
            atPrompt = false
            const command = line
            line = ''
            if (command.trim() === '') prompt()
            else attempt(() => client().call('RUN_COMMAND', { ...node, input: command }))
          } else if (ch === '\x7f') {
            if (line.length > 0) {
              line = line.slice(0, -1)
              write('\b \b')
            }
          } else if (ch === '\x03') {
            line = ''
            attempt(() => client().call('SEND_INTERRUPT', node))
          } else if (ch >= ' ') {
            line += ch
            atPrompt = false
            write(ch)
          }
        }
      })
      return () => {
        scheduled?.()
        clearTimeout(settle)
        clearTimeout(redraw)
        stop()
        input.dispose()
        term.dispose()
      }
    }
  }, [sessionId, nodeId, lineMode])

  return (
    <article
      class="tile"
      data-terminal={nodeId}
      data-session={sessionId}
      aria-label={`Terminal of ${label}`}
    >
      <header>
        <h3>{label}</h3>
        <span class="mode">{inControl ? 'in control' : 'read-only'}</span>
        <button
          type="button"
          aria-pressed={inControl}
          onClick={() => {
            control.current = !control.current
            setInControl(control.current)
            if (control.current) host.current?.querySelector('textarea')?.focus()
          }}
        >
          {inControl ? 'Release' : 'Take control'}
        </button>
        <button
          type="button"
          onClick={() => {
            attempt(() => client().call('SEND_INTERRUPT', node))
          }}
        >
          Interrupt
        </button>
        <button type="button" onClick={close} aria-label={`Close the terminal of ${label}`}>
          ×
        </button>
      </header>
      <div class="screen" ref={host} />
    </article>
  )
}
