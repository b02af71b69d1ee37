/**
 * The dashboard's entry: opens the WebSocket to the daemon that served the
 * page at once, while the rest of the page's code ({@link ./boot.tsx},
 * preloaded by the page) is fetched and run. Bundled by src/web/build.js.
 */
import '@xterm/xterm/css/xterm.css'
import './style.css'

const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
const socket = new WebSocket(`${scheme}://${location.host}/ws`)
const { boot } = await import('./boot.js')
boot(socket, document.getElementById('app')!)
