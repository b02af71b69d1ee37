/**
 * The SDK's wire over the browser's own WebSocket, to the daemon that
 * served the page: same origin, so the session cookie the page was given
 * at login opens it (no token in the page).
 */
import { ConnectionError } from '../client/ConnectionError.js'
import type { WireOpener } from '../client/wire.js'

/** A wire to `url` (`ws://host/ws`); rejects when the daemon refuses the upgrade. */
export const browserWire =
  (url: string): WireOpener =>
  (handlers) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url)
      let opened = false
      ws.onopen = () => {
        opened = true
        resolve({
          address: url,
          events: true,
          send: (line) => {
            ws.send(line)
          },
          close: () => {
            ws.close()
          },
        })
      }
      ws.onmessage = (m: MessageEvent<unknown>) => {
        if (typeof m.data !== 'string') return
        for (const line of m.data.split('\n')) if (line.trim() !== '') handlers.line(line)
      }
      ws.onclose = (e) => {
        const error = new ConnectionError(url, `closed (${e.code}${e.reason && `: ${e.reason}`})`)
        if (opened) handlers.closed(error)
        else reject(error)
      }
    })
