import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { envelope, type Envelope, UsageError } from 'nerve-agents'
import {
  decodeEnvelope,
  EnvelopeLog,
  renderEnvelopesHtml,
  renderEnvelopesMermaid,
} from 'nerve-agents/network'

const at = (id: string, causedBy?: readonly string[]): Envelope => ({
  id,
  kind: 'message',
  fromNodeId: 'a',
  toNodeId: 'b',
  payload: { message: `m ${id}` },
  time: 0,
  ...(causedBy !== undefined && { causedBy }),
})

describe('envelopes', () => {
  it('decode strictly, naming every problem with its path', () => {
    const r = decodeEnvelope({
      id: 'e',
      kind: 'handoff',
      fromNodeId: 'a',
      toNodeId: 'b',
      payload: { message: 'x', artifacts: [{ type: 'plan' }], extra: 1 },
      time: 'now',
    })
    expect(E.isLeft(r) && r.left.map((e) => [e.path, e.message])).toEqual([
      ['/payload/extra', 'is not a known key'],
      ['/payload/artifacts/0/ref', 'is required'],
      ['/time', 'expected number'],
    ])
  })

  it('are frozen with their payload and artifacts', () => {
    const e = envelope({
      ...at('e1'),
      payload: {
        message: 'x',
        structured: { ok: true },
        artifacts: [{ type: 'plan', ref: 'artifact:sha256:00' }],
      },
    })
    expect(Object.isFrozen(e.payload.artifacts![0])).toBe(true)
    expect(() => envelope({ ...at('e2'), kind: 'shout' as never })).toThrow(UsageError)
  })
})

describe('the envelope log', () => {
  it('is a DAG whose parents are the causes, in causedBy order', () => {
    const log = new EnvelopeLog()
    log.add(at('e1'))
    log.add(at('e2'))
    const v = log.add(at('e3', ['e2', 'e1', 'e2', 'unknown']))
    expect(v.id).toBe('e3')
    expect(v.parents.map((p) => p.id)).toEqual(['e2', 'e1'])
    expect(log.heads().map((h) => h.id)).toEqual(['e3'])
    expect(() => log.add(at('e1'))).toThrow(/recorded already/)
    expect(JSON.parse(JSON.stringify(log))).toEqual(log.envelopes())
  })

  it('renders as Mermaid and as a self-contained HTML page', () => {
    const log = new EnvelopeLog()
    log.add(at('e1'))
    log.add({ ...at('e2', ['e1']), kind: 'error', payload: { message: '</script>"quoted"' } })
    const mermaid = renderEnvelopesMermaid(log)
    expect(mermaid).toContain('n0 --> n1')
    expect(mermaid).toContain('#60;/script#62;#34;quoted#34;')
    const html = renderEnvelopesHtml(log.vertices())
    expect(html).toContain('2 envelopes')
    expect(html).toContain('<a href="#e1">e1</a>')
    expect(html).not.toContain('</script>"')
    expect(html).not.toMatch(/<script/)
  })
})
