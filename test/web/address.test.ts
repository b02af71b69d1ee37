/**
 * The dashboard's place in its address (src/web/address.ts): any place
 * written is read back as it was, whatever its ids hold; what an address
 * does not say is read as none.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatPlace, itemKey, parsePlace } from '../../src/web/address.js'
import { views } from '../../src/web/nav.js'

const view = fc.constantFrom(...Object.keys(views))
const id = fc.option(fc.string({ unit: 'grapheme', maxLength: 12 }), { nil: undefined })

describe('the address of a place', () => {
  it('reads back any place it writes', () => {
    fc.assert(
      fc.property(view, id, id, (v, session, item) => {
        const place = { view: v, session, item: v in itemKey ? item : undefined }
        const hash = formatPlace(place)
        expect(parsePlace(hash)).toEqual(place)
        // As the browser keeps it: its URL parser leaves such a fragment as it is.
        expect(new URL(`http://127.0.0.1/${hash}`).hash).toBe(hash)
      }),
    )
  })

  it('reads a view it does not know as written, and no fragment as the Nodes view', () => {
    expect(parsePlace('')).toEqual({ view: 'nodes', session: undefined, item: undefined })
    expect(parsePlace('#/chats?session=s2&chat=c1')).toEqual({
      view: 'chats',
      session: 's2',
      item: 'c1',
    })
    expect(parsePlace('#/no%20such?session=s')).toEqual({
      view: 'no such',
      session: 's',
      item: undefined,
    })
    // A parameter of another view is not this one's item.
    expect(parsePlace('#/runs?chat=c1').item).toBeUndefined()
    expect(parsePlace('#%E0%A4%A')).toEqual({
      view: '%E0%A4%A',
      session: undefined,
      item: undefined,
    })
  })
})
