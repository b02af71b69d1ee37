/**
 * The SDK's wire over the browser's own WebSocket, to the daemon that
 * served the page: same origin, so the session cookie the page was given
 * at login opens it (no token in the page).
 */
import { ConnectionError } from '../client/ConnectionError.js'
import type { WireOpener } from '../client/wire.js'

/**
 * A wire over `socket` (to `ws://host/ws`, opened by the caller: the page
 * opens it before its code has loaded, so the two overlap); rejects when
 * the daemon refuses the upgrade.
 */
export const browserWire =
  (socket: WebSocket): WireOpener =>
  (handlers) =>
    new Promise((resolve, reject) => {
      const url = socket.url
      let opened = false
      const open = () => {
        opened = true
        resolve({
          address: url,
          events: true,
          send: (line) => {
            socket.send(line)
          },
          close: () => {
            socket.close()
          },
        })
      }
      socket.onmessage = (m: MessageEvent<unknown>) => {
        if (typeof m.data !== 'string') return
        for (const line of m.data.split('\n')) if (line.trim() !== '') handlers.line(line)
      }
      socket.onclose = (e) => {
        const error = new ConnectionError(url, `closed (${e.code}${e.reason && `: ${e.reason}`})`)
        if (opened) handlers.closed(error)
        else reject(error)
      }
      if (socket.readyState === WebSocket.OPEN) open()
      else if (socket.readyState !== WebSocket.CONNECTING)
        reject(new ConnectionError(url, 'closed before it was used'))
      else socket.onopen = open
    })
