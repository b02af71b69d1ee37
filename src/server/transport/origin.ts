/**
 * Who may speak to a listener over HTTP from a browser's point of view: the
 * `Host` header must name a loopback host or the bound address (a page on
 * evil.example that rebinds its name to 127.0.0.1 sends `Host:
 * evil.example`), and an `Origin` header, when a browser sends one, must be
 * the listener's own (a page elsewhere may not drive it; a dashboard served
 * by the listener itself may).
 */
import { hostname, networkInterfaces } from 'node:os'

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1'])

/** The host name of a `Host` header, lowercased, without port and brackets; undefined when it is not one. */
const hostnameOf = (host: string): string | undefined => {
  try {
    const url = new URL(`http://${host}`)
    if (url.username !== '' || url.password !== '' || url.pathname !== '/') return undefined
    return url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * The names a `Host` header may give for a listener bound to `host`: that
 * address, or for a wildcard (`0.0.0.0`, `::`) every address of this
 * machine and its host name.
 *
 * @category server
 * @example
 * import { boundNames } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.deepStrictEqual(boundNames('10.0.0.5'), ['10.0.0.5'])
 * assert.ok(boundNames('0.0.0.0').includes('127.0.0.1'))
 */
export const boundNames = (host: string): readonly string[] =>
  host === '0.0.0.0' || host === '::'
    ? [
        hostname(),
        ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
      ]
    : [host]

/**
 * Whether a `Host` header names a loopback host (`localhost`, `127.0.0.1`,
 * `::1`, any `127.*`) or one of `hosts` (the bound address and names the
 * owner allowed), whatever the port.
 *
 * @category server
 * @example
 * import { hostAllowed } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.ok(hostAllowed('localhost:7070', []))
 * assert.ok(hostAllowed('[::1]:7070', []))
 * assert.ok(hostAllowed('10.0.0.5:7070', ['10.0.0.5']))
 * assert.ok(!hostAllowed('evil.example:7070', ['10.0.0.5']))
 * assert.ok(!hostAllowed(undefined, []))
 */
export const hostAllowed = (host: string | undefined, hosts: readonly string[]): boolean => {
  if (host === undefined) return false
  const name = hostnameOf(host)
  if (name === undefined) return false
  return (
    LOOPBACK_NAMES.has(name) ||
    /^127(\.\d{1,3}){3}$/.test(name) ||
    hosts.some((h) => h.replace(/^\[|\]$/g, '').toLowerCase() === name)
  )
}

/**
 * Whether an `Origin` header is absent (not a browser, or a same-origin
 * GET) or names the listener itself: `http://` and the very `Host` the
 * request was sent to. `null` (a sandboxed or file page) is refused.
 *
 * @category server
 * @example
 * import { originAllowed } from 'nerve-agents/server'
 * import assert from 'assert'
 *
 * assert.ok(originAllowed(undefined, '127.0.0.1:7070'))
 * assert.ok(originAllowed('http://127.0.0.1:7070', '127.0.0.1:7070'))
 * assert.ok(!originAllowed('https://evil.example', '127.0.0.1:7070'))
 * assert.ok(!originAllowed('null', '127.0.0.1:7070'))
 */
export const originAllowed = (origin: string | undefined, host: string | undefined): boolean => {
  if (origin === undefined) return true
  if (host === undefined) return false
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' && url.host === new URL(`http://${host}`).host
  } catch {
    return false
  }
}

/**
 * Why a request is refused before anything else is read of it: a `Host`
 * that is not ours (`ForbiddenHost`) or a foreign `Origin`
 * (`ForbiddenOrigin`); undefined when it may go on.
 *
 * @category server
 */
export const browserRefusal = (
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  hosts: readonly string[],
): { readonly tag: 'ForbiddenHost' | 'ForbiddenOrigin'; readonly message: string } | undefined => {
  if (!hostAllowed(headers.host, hosts))
    return {
      tag: 'ForbiddenHost',
      message: `Host ${JSON.stringify(headers.host ?? '')} is not this listener's: use a loopback name or the bound address`,
    }
  if (!originAllowed(headers.origin, headers.host))
    return {
      tag: 'ForbiddenOrigin',
      message: `Origin ${JSON.stringify(headers.origin)} is not this listener's own`,
    }
  return undefined
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1'])

/**
 * Whether `host` is a loopback address.
 *
 * @category server
 */
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith('127.')
