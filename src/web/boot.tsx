/**
 * The page's code after its entry ({@link ./main.ts}) opened the WebSocket:
 * connects over it, then draws the views, at the place its address names.
 */
import { render } from 'preact'
import { App, loadViews } from './App.js'
import { followAddress } from './place.js'
import { start } from './session.js'

/** Connects over `socket` and draws the dashboard into `root`, or says why it cannot. */
export const boot = (socket: WebSocket, root: HTMLElement): void => {
  start(socket).then(
    () => {
      root.textContent = ''
      followAddress()
      render(<App />, root)
      performance.mark('nerve:drawn')
      // The other views load once the node list is on the screen: after the next frame is painted.
      requestAnimationFrame(() => setTimeout(() => void loadViews(), 0))
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
}
