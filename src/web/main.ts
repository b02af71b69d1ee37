/**
 * The dashboard's entry: opens the WebSocket to the daemon that served the
 * page at once, while the rest of the page's code ({@link ./boot.tsx},
 * preloaded by the page) is fetched and run. Bundled by src/web/build.js.
 */
import '@xterm/xterm/css/xterm.css'
import './style.css'

performance.mark('nerve:entry')
const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
const socket = new WebSocket(`${scheme}://${location.host}/ws`)
// Marks of the load's stages (read by the bench and the browser's tools).
socket.addEventListener('open', () => performance.mark('nerve:socket'), { once: true })
const { boot } = await import('./boot.js')
performance.mark('nerve:code')
boot(socket, document.getElementById('app')!)
