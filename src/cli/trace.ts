/**
 * A run's trace as one self-contained HTML page (no network, works offline):
 * a Gantt timeline of the steps with nested graphs indented, retries, errors,
 * durations and tokens; a click on a step opens its input, output, streamed
 * chunks and, when its output holds a conversation, that conversation as the
 * conversation viewer renders it; a time axis with round ticks, every bar
 * that did not complete labelled with why; the graph's shape drawn as SVG
 * (coloured by how each step ended), its Mermaid text beside it.
 */
import * as E from 'fp-ts/lib/Either.js'
import { decodeConversation, NERVE_CSS, NERVE_FORMAT, renderHtml } from '../conversation/index.js'
import { Graph, isGraph } from '../graph/index.js'
import type { EngineEvent, TraceJson } from '../protocol/index.js'
import { graphSvg } from './graphSvg.js'

/**
 * What a run's events tell beyond its trace: when each step started and
 * ended (ms since the epoch) and the chunks it streamed, keyed by the step's
 * path joined with `/`.
 *
 * @category cli
 */
export interface TraceTimes {
  readonly starts: Map<string, number>
  readonly ends: Map<string, number>
  readonly chunks: Map<string, string[]>
}

/**
 * Records starts, ends and chunks from a run's events.
 *
 * @category cli
 */
export const recordTimes = () => {
  const times: TraceTimes = { starts: new Map(), ends: new Map(), chunks: new Map() }
  return {
    times,
    update(e: EngineEvent): void {
      if (e.type === 'STEP_STARTED') {
        const key = e.path.join('/')
        if (!times.starts.has(key)) times.starts.set(key, Date.parse(e.time))
      } else if (e.type === 'STEP_COMPLETED' || (e.type === 'STEP_FAILED' && e.final)) {
        times.ends.set(e.path.join('/'), Date.parse(e.time))
      } else if (e.type === 'OUTPUT_CHUNK' && e.stepId !== undefined) {
        const data = (e.chunk as { data?: unknown } | null)?.data
        const text = typeof data === 'string' ? data : JSON.stringify(e.chunk)
        const list = times.chunks.get(e.stepId) ?? []
        list.push(text)
        times.chunks.set(e.stepId, list)
      }
    },
  }
}

interface Bar {
  readonly key: string
  readonly label: string
  readonly depth: number
  readonly start: number
  readonly durationMs: number
  readonly status: string
  readonly attempts: number
  readonly tokens: number
  readonly cost: number
  readonly kind: string
  readonly nodeId: string
  readonly error?: string
  readonly input?: unknown
  readonly output: unknown
  readonly chunks: readonly string[]
  readonly conversation?: string
}

/** The conversation viewer's page for an output that holds a conversation (or is one). */
const conversationOf = (output: unknown, title: string): string | undefined => {
  const candidates = [output, (output as { conversation?: unknown } | null)?.conversation]
  for (const c of candidates) {
    if (
      typeof c === 'object' &&
      c !== null &&
      (c as { format?: unknown }).format === NERVE_FORMAT
    ) {
      const d = decodeConversation(c)
      if (E.isRight(d)) return renderHtml(d.right.heads, { title })
    }
  }
  return undefined
}

/** Each step's fixed input by path key, nested graphs included. */
const inputsOf = (g: Graph, prefix = '', out = new Map<string, unknown>()) => {
  for (const s of Graph.steps(g)) {
    if (s.input !== undefined) out.set(`${prefix}${s.id}`, s.input)
    if (isGraph(s.node)) inputsOf(s.node, `${prefix}${s.id}/`, out)
  }
  return out
}

/**
 * The bars of a trace, in order, nested steps under theirs. A step starts
 * when the events say; without them, when its last parent ended (the
 * trace's durations and parents), nested steps from their step's start.
 */
const barsOf = (
  trace: TraceJson,
  times: TraceTimes | undefined,
  inputs: Map<string, unknown>,
): Bar[] => {
  const origin = Math.min(...(times === undefined ? [] : [...times.starts.values()]))
  const out: Bar[] = []
  const walk = (t: TraceJson, prefix: string, depth: number, base: number): void => {
    const ends = new Map<string, number>()
    for (const s of t.steps) {
      const key = `${prefix}${s.stepId}`
      const seen = times?.starts.get(key)
      const start =
        seen !== undefined && Number.isFinite(origin)
          ? seen - origin
          : Math.max(base, ...s.parents.map((p) => ends.get(p) ?? base))
      const end = times?.ends.get(key)
      const durationMs =
        s.durationMs > 0 || end === undefined || seen === undefined ? s.durationMs : end - seen
      ends.set(s.stepId, start + durationMs)
      ends.set(s.id, start + durationMs)
      const conversation = conversationOf(s.output, s.stepId)
      out.push({
        key,
        label: s.stepId,
        depth,
        start,
        durationMs,
        status: s.status,
        attempts: s.attempts,
        tokens: s.tokens,
        cost: s.cost,
        kind: s.kind,
        nodeId: s.nodeId,
        ...(s.error !== undefined && { error: s.error.message }),
        ...(inputs.has(key) && { input: inputs.get(key) }),
        output: s.output,
        chunks: times?.chunks.get(s.stepId) ?? [],
        ...(conversation !== undefined && { conversation }),
      })
      if (s.nested !== undefined) walk(s.nested, `${key}/`, depth + 1, start)
    }
  }
  walk(trace, '', 0, 0)
  return out
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** JSON that is safe inside a `<script>` element. */
const scriptJson = (v: unknown): string =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, '')

const STYLE = `${NERVE_CSS}
body{background:var(--ground)}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:12px;padding:12px 14px}
section.card{background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.row,.axis{display:grid;grid-template-columns:200px 1fr 80px;align-items:center;height:26px;cursor:pointer;border-radius:4px}
.row:hover,.row.sel{background:#e8eefc}
.axis{cursor:default;height:22px;color:var(--muted);font-size:11px}
.name{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.lane{position:relative;height:16px;background-color:#f0f0f0;border-radius:3px}
.axis .lane{background:none;border-bottom:1px solid var(--muted);border-radius:0}
.tick{position:absolute;bottom:2px;transform:translateX(-50%);white-space:nowrap;font-variant-numeric:tabular-nums}
.tick:first-child{transform:none}
.tick::after{content:"";position:absolute;left:50%;bottom:-3px;height:4px;border-left:1px solid var(--muted)}
.bar{position:absolute;top:0;height:16px;border-radius:3px;min-width:3px;background:var(--running)}
.bar.completed{background:var(--ok)}.bar.failed{background:var(--failed)}.bar.skipped{background:var(--skipped)}.bar.cancelled{background:var(--cancelled)}
.bar-label{position:absolute;top:0;line-height:16px;font-size:11px;white-space:nowrap;margin-left:4px;color:var(--muted)}
.dur{text-align:right;color:var(--muted);font-variant-numeric:tabular-nums}
.retry{color:var(--retry);margin-left:4px}
#details{min-height:200px}
pre{max-height:300px;overflow:auto}
iframe{width:100%;height:400px;border:1px solid var(--line)}
.error{color:var(--failed)}
#diagram{max-width:100%;height:auto;margin-top:6px}
#diagram .step rect{fill:#eceff1;stroke:#90a4ae}
#diagram .step.completed rect{fill:#e8f5e9;stroke:var(--ok)}
#diagram .step.failed rect{fill:#ffebee;stroke:var(--failed)}
#diagram .step.skipped rect{fill:#f5f5f5;stroke:var(--skipped);stroke-dasharray:4 3}
#diagram .step.cancelled rect{fill:#fff3e0;stroke:var(--cancelled)}
#diagram .cluster>rect{fill:none;stroke:#90a4ae;stroke-dasharray:6 4}
#diagram .kind{fill:var(--muted);font-size:11px}
#diagram .edge{fill:none;stroke:#78909c;stroke-width:1.4}
`

const SCRIPT = `
const data = JSON.parse(document.getElementById('trace-data').textContent);
const total = Math.max(1, ...data.bars.map(b => b.start + b.durationMs));
const rows = document.getElementById('rows');
const details = document.getElementById('details');
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
};
const ms = d => d < 1000 ? Math.round(d) + ' ms' : (d / 1000).toFixed(2) + ' s';
// the time axis: about six ticks at a round step (1, 2 or 5 times a power of ten)
const step = (() => {
  const raw = total / 6;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
})();
const tick = t => t === 0 ? '0' : t < 1000 ? Math.round(t) + ' ms' : (t / 1000).toFixed(step < 1000 ? 1 : 0) + ' s';
const axis = el('div', { class: 'lane' });
for (let t = 0; t <= total + 1e-9; t += step) {
  const mark = el('span', { class: 'tick' }, tick(t));
  mark.style.left = (100 * t / total) + '%';
  axis.append(mark);
}
rows.append(el('div', { class: 'axis', 'aria-label': 'time since the run started' },
  el('div', { class: 'name' }, 'time since start'), axis, el('div', { class: 'dur' }, 'took')));
const grid = 'repeating-linear-gradient(to right, #dcdcdc 0 1px, transparent 1px ' + (100 * step / total) + '%)';
const labelOf = bar => {
  const why = bar.error === undefined ? '' : ': ' + bar.error.split('\\n')[0];
  return bar.status === 'completed' ? '' : bar.status + why;
};
const show = v => typeof v === 'string' ? v : JSON.stringify(v, null, 2);
function open(bar, row) {
  for (const r of rows.querySelectorAll('.row')) r.classList.remove('sel');
  row.classList.add('sel');
  details.replaceChildren(
    el('h2', {}, bar.key),
    el('p', {}, bar.kind + ' node ' + bar.nodeId + ' · ' + bar.status + ' · ' + ms(bar.durationMs) +
      ' · ' + bar.attempts + (bar.attempts === 1 ? ' attempt' : ' attempts') + ' · ' + bar.tokens + ' tokens'),
  );
  if (bar.error !== undefined) details.append(el('h3', {}, 'Error'), el('pre', { class: 'error' }, bar.error));
  if (bar.input !== undefined) details.append(el('h3', {}, 'Input'), el('pre', {}, show(bar.input)));
  details.append(el('h3', {}, 'Output'), el('pre', {}, show(bar.output ?? null)));
  if (bar.chunks.length > 0) details.append(el('h3', {}, 'Chunks'), el('pre', {}, bar.chunks.join('')));
  const ofNode = data.conversations[bar.nodeId];
  const conversation = bar.conversation ?? ofNode;
  if (conversation !== undefined) {
    const frame = el('iframe', { title: 'conversation', sandbox: 'allow-scripts' });
    frame.srcdoc = conversation;
    const heading = bar.conversation === undefined ? 'Conversation of ' + bar.nodeId + ' after the run' : 'Conversation';
    details.append(el('h3', {}, heading), frame);
  }
}
for (const bar of data.bars) {
  const b = el('div', { class: 'bar ' + bar.status });
  b.style.left = (100 * bar.start / total) + '%';
  b.style.width = (100 * bar.durationMs / total) + '%';
  const name = el('div', { class: 'name' }, bar.label);
  name.style.paddingLeft = (bar.depth * 16 + 4) + 'px';
  if (bar.attempts > 1) name.append(el('span', { class: 'retry' }, '↻' + bar.attempts));
  if (bar.error !== undefined) name.title = bar.error.split('\\n')[0];
  b.title = bar.key + ': ' + bar.status + ', ' + ms(bar.durationMs);
  const lane = el('div', { class: 'lane' }, b);
  lane.style.backgroundImage = grid;
  const text = labelOf(bar);
  if (text !== '') {
    const label = el('span', { class: 'bar-label' }, text);
    label.style.left = (100 * (bar.start + bar.durationMs) / total) + '%';
    lane.append(label);
  }
  const row = el('div', { class: 'row', 'data-step': bar.key }, name, lane,
    el('div', { class: 'dur' }, ms(bar.durationMs)));
  row.addEventListener('click', () => open(bar, row));
  rows.append(row);
}
`

/**
 * The trace page. `times` (from {@link recordTimes}) places the bars where
 * the run's events put them; `graph` adds each step's input and the Mermaid
 * text of its shape.
 *
 * @category cli
 */
export const traceHtml = (
  trace: TraceJson,
  o: {
    readonly times?: TraceTimes
    readonly graph?: Graph
    readonly mermaid?: string
    /** Conversation files (Nerve JSON) of the run's LLM nodes after the run, by node id. */
    readonly conversations?: Readonly<Record<string, unknown>>
  } = {},
): string => {
  const bars = barsOf(
    trace,
    o.times,
    o.graph === undefined ? new Map<string, unknown>() : inputsOf(o.graph),
  )
  const tokens = bars.reduce((n, b) => n + b.tokens, 0)
  // One viewer page per node, shown by each of its steps that carries no conversation of its own.
  const conversations: Record<string, string> = {}
  for (const [nodeId, file] of Object.entries(o.conversations ?? {})) {
    const page = conversationOf(file, nodeId)
    if (page !== undefined) conversations[nodeId] = page
  }
  const cost = bars.reduce((n, b) => n + b.cost, 0)
  const title = `${trace.graphId} · ${trace.runId}`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style id="nerve-style">${NERVE_CSS}</style><style>${STYLE.slice(NERVE_CSS.length)}</style></head>
<body><header><h1>${escapeHtml(trace.graphId)}</h1>
<div class="muted">run ${escapeHtml(trace.runId)} · ${escapeHtml(trace.status)} · ${Math.round(trace.durationMs)} ms · ${bars.length} steps · ${tokens} tokens · $${cost.toFixed(4)}</div></header>
<main><section class="card"><h2>Timeline</h2><div id="rows"></div>${
    o.graph === undefined
      ? ''
      : `<h2>Shape</h2>${graphSvg(o.graph, new Map(bars.map((b) => [b.key, b.status])))}`
  }${
    o.mermaid === undefined
      ? ''
      : `<details><summary>Mermaid</summary><pre id="mermaid">${escapeHtml(o.mermaid)}</pre></details>`
  }</section>
<section id="details" class="card"><p>Click a step to see its input, output, chunks and conversation.</p></section></main>
<script type="application/json" id="trace-data">${scriptJson({ bars, conversations })}</script>
<script>${SCRIPT}</script></body></html>
`
}

/**
 * The trace in a file's JSON: a trace itself, or a run's info holding one.
 *
 * @category cli
 */
export const traceIn = (json: unknown): TraceJson | undefined => {
  const isTrace = (v: unknown): v is TraceJson =>
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as { steps?: unknown }).steps) &&
    typeof (v as { runId?: unknown }).runId === 'string'
  if (isTrace(json)) return json
  const inner = (json as { trace?: unknown } | null)?.trace
  return isTrace(inner) ? inner : undefined
}
