/**
 * The one style every Nerve HTML view starts from (the conversation viewer,
 * a run's trace, a network's envelopes): the same type, header, headings,
 * tables, code blocks, and one palette for what things are — kinds of
 * entries and envelopes, and the states of steps. Each view adds its own
 * layout after it.
 *
 * @category render
 */
export const NERVE_CSS = String.raw`:root{--ink:#212121;--muted:#616161;--line:#ddd;--paper:#fff;--ground:#f7f7f8;--accent:#1565c0;--ok:#43a047;--running:#1e88e5;--failed:#e53935;--skipped:#9e9e9e;--cancelled:#fb8c00;--retry:#b26b00}
*{box-sizing:border-box}
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--paper);margin:0}
header{padding:8px 14px;border-bottom:1px solid var(--line);background:var(--paper)}
h1{font-size:15px;margin:0}
h2{font-size:14px;margin:12px 0 6px}
h3{font-size:12px;margin:12px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.muted{color:var(--muted)}
table{border-collapse:collapse}
th,td{border:1px solid var(--line);padding:4px 6px;vertical-align:top;text-align:left}
th{background:var(--ground);font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:var(--ground);padding:8px;border-radius:4px;margin:0}
a{color:var(--accent)}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:var(--ink)}`
