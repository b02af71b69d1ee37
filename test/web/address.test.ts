/**
 * The dashboard's place in its address (src/web/address.ts): any place
 * written is read back as it was, whatever its ids hold; what an address
 * does not say is read as none.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detailKey, formatPlace, itemKey, parsePlace } from '../../src/web/address.js'
import { views } from '../../src/web/nav.js'

const view = fc.constantFrom(...Object.keys(views))
const text = fc.string({ unit: 'grapheme', maxLength: 12 })
const id = fc.option(text, { nil: undefined })

describe('the address of a place', () => {
  it('reads back any place it writes', () => {
    fc.assert(
      fc.property(view, id, id, id, fc.array(text), (v, session, item, detail, tiles) => {
        const place = {
          view: v,
          session,
          item: v in itemKey ? item : undefined,
          detail: v in detailKey ? detail : undefined,
          tiles: v === 'nodes' ? tiles : [],
        }
        const hash = formatPlace(place)
        expect(parsePlace(hash)).toEqual(place)
        // As the browser keeps it: its URL parser leaves such a fragment as it is.
        expect(new URL(`http://127.0.0.1/${hash}`).hash).toBe(hash)
      }),
    )
  })

  it('reads a view it does not know as written, and no fragment as the Nodes view', () => {
    const none = { session: undefined, item: undefined, detail: undefined, tiles: [] }
    expect(parsePlace('')).toEqual({ ...none, view: 'nodes' })
    expect(parsePlace('#/chats?session=s2&chat=c1')).toEqual({
      ...none,
      view: 'chats',
      session: 's2',
      item: 'c1',
    })
    expect(parsePlace('#/runs?run=r1&step=build')).toEqual({
      ...none,
      view: 'runs',
      item: 'r1',
      detail: 'build',
    })
    expect(parsePlace('#/no%20such?session=s')).toEqual({ ...none, view: 'no such', session: 's' })
    // A parameter of another view is not this one's item or detail.
    expect(parsePlace('#/runs?chat=c1&node2=n').item).toBeUndefined()
    expect(parsePlace('#/runs?chat=c1&node2=n').detail).toBeUndefined()
    expect(parsePlace('#%E0%A4%A')).toEqual({ ...none, view: '%E0%A4%A' })
    // Tiles, in their order, are the Nodes view's only.
    expect(parsePlace('#/nodes?tile=b&session=s2&tile=s3%2Fa').tiles).toEqual(['b', 's3/a'])
    expect(parsePlace('#/runs?tile=b').tiles).toEqual([])
  })
})
