/**
 * The dashboard's door in the HTTP transport. The owner (who holds the
 * daemon's token) asks for a one-time handover (`POST /dashboard/handover`
 * with the bearer token, or {@link DashboardAccess.handover} in the daemon's
 * process) and opens the URL it gives; `GET /login?handover=…` spends it
 * for a session cookie (HttpOnly, SameSite=Strict) and redirects to `/`, so
 * the page never keeps a secret in its address. The page's files and its
 * WebSocket then need that cookie. Handovers expire after ten minutes;
 * both kinds are bounded in number, the oldest dropped first.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tokenMatches } from './token.js'

/** How long a handover may wait to be spent. */
const HANDOVER_MS = 10 * 60_000
/** At most this many handovers wait, and this many sessions live; the oldest go first. */
const MAX_KEPT = 64

const secret = (): string => randomBytes(32).toString('base64url')

/** Drops the oldest entries of `map` until it holds fewer than {@link MAX_KEPT}. */
const bound = <K, V>(map: Map<K, V>): void => {
  for (const k of map.keys()) {
    if (map.size < MAX_KEPT) return
    map.delete(k)
  }
}

/**
 * The handovers and sessions of one HTTP listener: in memory only, gone
 * when the daemon stops.
 *
 * @category server
 */
export class DashboardAccess {
  readonly #handovers = new Map<string, number>()
  readonly #sessions = new Set<string>()
  /** The session cookie's name: its own per daemon, since cookies do not tell ports apart. */
  readonly cookie = `nerve-${randomBytes(6).toString('hex')}`

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh one-time handover code. */
  handover(): string {
    bound(this.#handovers)
    const code = secret()
    this.#handovers.set(code, this.now() + HANDOVER_MS)
    return code
  }

  /** Spends `code` for a new session id; undefined when it is unknown, spent or expired. */
  exchange(code: string | null): string | undefined {
    if (code === null) return undefined
    const until = [...this.#handovers].find(([c]) => tokenMatches(c, code))
    if (until === undefined) return undefined
    this.#handovers.delete(until[0])
    if (until[1] < this.now()) return undefined
    // A Set keeps insertion order: the oldest session goes first.
    if (this.#sessions.size >= MAX_KEPT)
      this.#sessions.delete(this.#sessions.values().next().value!)
    const session = secret()
    this.#sessions.add(session)
    return session
  }

  /** Whether a `Cookie` header carries a live session of this listener. */
  admits(cookieHeader: string | undefined): boolean {
    const given = cookieHeader
      ?.split(';')
      .map((c) => c.trim().split('='))
      .find(([name]) => name === this.cookie)?.[1]
    return given !== undefined && [...this.#sessions].some((s) => tokenMatches(s, given))
  }

  /** The `Set-Cookie` value of a session. */
  setCookie(session: string): string {
    return `${this.cookie}=${session}; HttpOnly; SameSite=Strict; Path=/`
  }
}

/**
 * Where the built dashboard is: `dist/dashboard` beside the compiled server,
 * or, when the server runs from its sources, the repository's `dist/dashboard`.
 *
 * @category server
 */
export const dashboardDir = (): string => {
  const candidates = ['../../dashboard/', '../../../dist/dashboard/'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  )
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[0]!
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
}

/** What every dashboard response says about itself: no framing, no sniffing, nothing fetched from elsewhere. */
const GUARD = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

const page = (res: ServerResponse, status: number, text: string): void => {
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Nerve</title><p>${text}</p></html>`
  res
    .writeHead(status, {
      ...GUARD,
      'content-type': TYPES['.html']!,
      'content-length': Buffer.byteLength(body),
    })
    .end(body)
}

/**
 * Serves a dashboard request (`GET /login`, `GET /` and the bundle's files);
 * false when `path` is not the dashboard's.
 *
 * @category server
 */
export const serveDashboard = (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  access: DashboardAccess,
  dir: string,
): boolean => {
  const name = path === '/' ? 'index.html' : /^\/([\w-]+\.(?:js|css|map|svg))$/.exec(path)?.[1]
  if (path !== '/login' && name === undefined) return false
  req.resume()
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET')
    page(res, 405, 'Use GET.')
  } else if (path === '/login') {
    const session = access.exchange(
      new URL(req.url ?? '/', 'http://localhost').searchParams.get('handover'),
    )
    if (session === undefined)
      page(res, 401, 'This link was used or has expired: run <code>nerve dashboard</code> again.')
    else
      res.writeHead(303, { ...GUARD, location: '/', 'set-cookie': access.setCookie(session) }).end()
  } else if (!access.admits(req.headers.cookie))
    page(res, 401, 'Open the link <code>nerve dashboard</code> prints to reach this dashboard.')
  else {
    const file = join(dir, name!)
    if (!existsSync(file) || !statSync(file).isFile())
      page(
        res,
        name === 'index.html' ? 503 : 404,
        name === 'index.html'
          ? 'The dashboard is not built: run <code>npm run build</code>.'
          : 'Not found.',
      )
    else {
      const body = readFileSync(file)
      res
        .writeHead(200, {
          ...GUARD,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'content-length': body.length,
        })
        .end(req.method === 'HEAD' ? undefined : body)
    }
  }
  return true
}
