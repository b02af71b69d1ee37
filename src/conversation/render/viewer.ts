/**
 * The style sheet and the script of the HTML viewer, inlined into every
 * document {@link renderHtml} writes. The script reads the embedded JSON,
 * draws one absolutely placed element per vertex and one SVG path for all
 * edges, fills the side panel only when a vertex is clicked, and keeps a
 * stack of open sub-conversations for the breadcrumb. It writes data into the
 * page with `textContent` only, never as markup.
 *
 * @internal
 */
import { COLOURS, KINDS } from './describe.js'

/** Node box size and grid spacing, in pixels. */
const SIZE = { width: 250, height: 46, columnGap: 280, rowGap: 80, pad: 20 }

/** @internal */
export const VIEWER_CSS = [
  String.raw`*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#212121;display:flex;flex-direction:column;background:#fff}
header{display:flex;flex-wrap:wrap;align-items:center;gap:6px 18px;padding:8px 14px;border-bottom:1px solid #ddd}
h1{font-size:15px;margin:0}
#crumbs{display:flex;flex-wrap:wrap;gap:4px;align-items:center}
#crumbs button{border:0;background:none;color:#1565c0;cursor:pointer;padding:0;font:inherit;text-decoration:underline}
#crumbs .sep{color:#9e9e9e}
#count{color:#616161}
#legend{display:flex;flex-wrap:wrap;gap:10px;font-size:12px;margin-left:auto}
.sw{display:inline-block;width:12px;height:12px;border:1px solid;border-left-width:4px;border-radius:3px;margin-right:4px;vertical-align:-2px}
main{flex:1;display:flex;min-height:0}
#scroll{flex:1;overflow:auto;background:#f7f7f8}
#canvas{position:relative}
#edges{position:absolute;left:0;top:0;pointer-events:none}
#edge-path{fill:none;stroke:#90a4ae;stroke-width:1.5}
#empty{padding:20px;color:#616161}`,
  `.v{position:absolute;width:${SIZE.width}px;height:${SIZE.height}px;padding:4px 8px;border:1px solid;border-left-width:6px;border-radius:6px;white-space:pre;overflow:hidden;text-overflow:ellipsis;cursor:pointer;font-size:12px;line-height:18px}`,
  String.raw`.v::first-line{font-weight:600}
.v.head{box-shadow:0 0 0 2px #424242}
.v.sel{outline:3px solid #ffb300;outline-offset:2px}
.v.k-subgraph{border-style:double;border-width:3px;border-left-width:6px}
aside{width:min(480px,42vw);border-left:1px solid #ddd;overflow:auto;padding:10px 14px}
aside h2{font-size:14px;margin:0 0 8px;padding:4px 8px;border-left:6px solid;border-radius:4px}
aside h3{font-size:12px;margin:12px 0 4px;color:#616161;text-transform:uppercase;letter-spacing:.04em}
aside dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}
aside dt{color:#616161}
aside dd{margin:0;word-break:break-all}
aside dd button{margin:0 4px 2px 0;font:12px ui-monospace,Menlo,Consolas,monospace;cursor:pointer}
aside pre{white-space:pre-wrap;word-break:break-word;background:#f5f5f5;padding:8px;border-radius:4px;margin:0;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
button.open{margin-top:10px;padding:6px 10px;cursor:pointer;font:inherit}
.help{color:#616161}`,
  ...KINDS.map((k) => `.k-${k}{background:${COLOURS[k].fill};border-color:${COLOURS[k].stroke}}`),
].join('\n')

/** @internal */
export const VIEWER_JS =
  `var SIZE = ${JSON.stringify(SIZE)};\n` +
  String.raw`(function () {
  'use strict';
  var doc = JSON.parse(document.getElementById('nerve-data').textContent);
  var W = SIZE.width, H = SIZE.height, GX = SIZE.columnGap, GY = SIZE.rowGap, PAD = SIZE.pad;
  var scroll = document.getElementById('scroll');
  var canvas = document.getElementById('canvas');
  var svg = document.getElementById('edges');
  var edgePath = document.getElementById('edge-path');
  var nodes = document.getElementById('nodes');
  var crumbs = document.getElementById('crumbs');
  var count = document.getElementById('count');
  var panel = document.getElementById('panel');
  var stack = [{ graph: doc.graph, name: 'conversation', from: -1 }];
  var selected = -1;

  function graph() { return stack[stack.length - 1].graph; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function draw() {
    var vs = graph().vertices, frag = document.createDocumentFragment(), d = [];
    var maxC = 0, maxR = 0;
    for (var i = 0; i < vs.length; i++) {
      var v = vs[i], x = PAD + v.column * GX, y = PAD + v.row * GY;
      if (v.column > maxC) maxC = v.column;
      if (v.row > maxR) maxR = v.row;
      var text = v.label + ' ' + v.short + '\n' + (v.detail ? v.detail + (v.line ? ' · ' + v.line : '') : v.line);
      var n = el('div', 'v k-' + v.kind + (v.children.length === 0 ? ' head' : ''), text);
      n.style.left = x + 'px';
      n.style.top = y + 'px';
      n.setAttribute('data-i', String(i));
      frag.appendChild(n);
      for (var k = 0; k < v.parents.length; k++) {
        var p = vs[v.parents[k]];
        var x1 = PAD + p.column * GX + W / 2, y1 = PAD + p.row * GY + H, x2 = x + W / 2, m = (y1 + y) / 2;
        d.push('M' + x1 + ' ' + y1 + 'C' + x1 + ' ' + m + ' ' + x2 + ' ' + m + ' ' + x2 + ' ' + y);
      }
    }
    var width = 2 * PAD + maxC * GX + W, height = 2 * PAD + maxR * GY + H;
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height));
    edgePath.setAttribute('d', d.join(''));
    nodes.textContent = '';
    if (vs.length === 0) nodes.appendChild(el('div', null, 'This conversation is empty.')).id = 'empty';
    nodes.appendChild(frag);
    selected = -1;
    count.textContent = plural(vs.length, 'vertex', 'vertices') + ' · ' + plural(graph().heads.length, 'head', 'heads');
    drawCrumbs();
    help();
    scroll.scrollTop = 0;
    scroll.scrollLeft = 0;
  }

  function drawCrumbs() {
    crumbs.textContent = '';
    stack.forEach(function (entry, k) {
      if (k > 0) crumbs.appendChild(el('span', 'sep', '›'));
      if (k === stack.length - 1) { crumbs.appendChild(el('span', null, entry.name)); return; }
      var b = el('button', null, entry.name);
      b.addEventListener('click', function () { back(k); });
      crumbs.appendChild(b);
    });
  }

  function back(k) {
    var from = stack[k + 1].from;
    stack.length = k + 1;
    draw();
    select(from, true);
  }

  function open(i) {
    var v = graph().vertices[i];
    if (!v || !v.sub) return;
    stack.push({ graph: v.sub, name: v.label + ' ' + v.short + (v.detail ? ' ' + v.detail : ''), from: i });
    draw();
  }

  function help() {
    panel.textContent = '';
    panel.appendChild(el('p', 'help', 'Click a vertex to see its content and metadata. ' +
      'Double-click a SUBGRAPH vertex, or use its Open button, to zoom into the nested conversation; ' +
      'the breadcrumb or Escape goes back.'));
  }

  function row(dl, name, value) {
    dl.appendChild(el('dt', null, name));
    var dd = el('dd', null, typeof value === 'string' ? value : null);
    if (typeof value !== 'string') dd.appendChild(value);
    dl.appendChild(dd);
  }

  function links(list) {
    var span = el('span');
    if (list.length === 0) span.textContent = '—';
    list.forEach(function (j) {
      var u = graph().vertices[j];
      var b = el('button', null, u.label + ' ' + u.short);
      b.addEventListener('click', function () { select(j, true); });
      span.appendChild(b);
    });
    return span;
  }

  function select(i, reveal) {
    var v = graph().vertices[i];
    if (!v) return;
    var old = nodes.children[selected];
    if (selected >= 0 && old) old.classList.remove('sel');
    selected = i;
    var n = nodes.children[i];
    n.classList.add('sel');
    if (reveal) n.scrollIntoView({ block: 'center', inline: 'center' });
    panel.textContent = '';
    panel.appendChild(el('h2', 'k-' + v.kind, v.label + ' ' + v.short + (v.detail ? ' ' + v.detail : '')));
    var dl = el('dl');
    row(dl, 'id', v.id);
    row(dl, 'place', 'row ' + v.row + ', column ' + v.column + (v.children.length === 0 ? ' · head' : ''));
    row(dl, 'parents', links(v.parents));
    row(dl, 'children', links(v.children));
    panel.appendChild(dl);
    if (v.sub) {
      var b = el('button', 'open', 'Open nested conversation (' + plural(v.sub.vertices.length, 'vertex', 'vertices') + ') ▸');
      b.addEventListener('click', function () { open(i); });
      panel.appendChild(b);
    }
    panel.appendChild(el('h3', null, 'data'));
    panel.appendChild(el('pre', null, JSON.stringify(v.data, null, 2)));
    panel.appendChild(el('h3', null, 'meta'));
    panel.appendChild(el('pre', null, JSON.stringify(v.meta, null, 2)));
  }

  function indexOf(target) {
    var t = target && target.closest ? target.closest('.v') : null;
    return t ? Number(t.getAttribute('data-i')) : -1;
  }

  nodes.addEventListener('click', function (e) { var i = indexOf(e.target); if (i >= 0) select(i, false); });
  nodes.addEventListener('dblclick', function (e) { var i = indexOf(e.target); if (i >= 0) open(i); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && stack.length > 1) back(stack.length - 2);
  });
  function find(id) {
    var vs = graph().vertices;
    for (var i = 0; i < vs.length; i++) if (vs[i].id === id || vs[i].short === id) return i;
    return -1;
  }

  // A location hash of ids separated by '/' opens those sub-conversations and selects the last.
  function follow(hash) {
    var ids = decodeURIComponent(hash.replace(/^#/, '')).split('/');
    for (var k = 0; k < ids.length; k++) {
      var i = find(ids[k]);
      if (i < 0) return;
      if (k === ids.length - 1) select(i, true);
      else open(i);
    }
  }

  draw();
  if (location.hash.length > 1) follow(location.hash);
})();`
