import { spawn, type ChildProcess } from 'node:child_process'

const script = new URL('./workerProcess.ts', import.meta.url).pathname

/** A worker child process. */
export interface WorkerChild {
  readonly pid: number
  readonly child: ChildProcess
  /** SIGTERM, then wait for it to exit. */
  stop(): Promise<void>
}

/** Starts a worker process on `queue` and waits until it listens. */
export const spawnWorker = (
  url: string,
  queue: string,
  dir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<WorkerChild> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, url, queue, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    })
    let out = ''
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('ready\n')) {
        resolve({
          pid: child.pid ?? 0,
          child,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null || child.signalCode !== null) {
                done()
                return
              }
              child.once('exit', () => {
                done()
              })
              child.kill('SIGTERM')
            }),
        })
      }
    })
    child.once('exit', (code) => {
      reject(new Error(`worker exited (${String(code)}): ${err}`))
    })
  })
