/**
 * The dashboard's entry: connects to the daemon that served the page, then
 * draws the views. Bundled by scripts/buildDashboard.js.
 */
import '@xterm/xterm/css/xterm.css'
import './style.css'
import { render } from 'preact'
import { App } from './App.js'
import { start } from './session.js'

const root = document.getElementById('app')!
start().then(
  () => {
    root.textContent = ''
    render(<App />, root)
  },
  (e: unknown) => {
    root.innerHTML = ''
    const p = document.createElement('p')
    p.className = 'status error'
    p.setAttribute('role', 'alert')
    p.textContent = `Cannot reach the daemon: ${e instanceof Error ? e.message : String(e)}`
    root.append(p)
  },
)
