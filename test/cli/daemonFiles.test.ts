/**
 * The command line finds Nerve's home by the session layer's rule without
 * loading that layer: the two agree for every environment.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { daemonFiles } from '../../src/cli/home.js'
import { nerveHome } from '../../src/session/index.js'

describe('daemonFiles', () => {
  it('finds the home nerveHome finds, whatever NERVE_HOME is (law)', () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(''),
      fc.constantFrom('/srv/nerve', 'rel/home', './x', '/tmp/a b'),
      fc.stringMatching(/^[a-z/._-]{1,12}$/),
    )
    fc.assert(
      fc.property(value, (NERVE_HOME) => {
        const env = { NERVE_HOME, NERVE_SOCKET: undefined }
        expect(daemonFiles({}, env).home).toBe(nerveHome(env))
      }),
    )
  })
})
