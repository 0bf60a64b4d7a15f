/**
 * The status page's HTML (GET /admin/status): one self-contained document — inline CSS, no script, no
 * external asset — that reloads itself every 10 s. Tables of every part of status.json, and the events
 * per second of each source over the last hour as an inline SVG line chart (one series per source, 60
 * points, labelled axes).
 */
import type { StatusDocument } from './status.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const num = (v: number | null | undefined) => (v === null || v === undefined ? '–' : String(v));

function table(caption: string, id: string, head: string[], rows: string[][]): string {
  const body =
    rows.length === 0
      ? `<tr><td colspan="${head.length}" class="none">none</td></tr>`
      : rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table id="${id}"><caption>${esc(caption)}</caption>
<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody></table>`;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** A "nice" upper bound of the y axis (1, 2 or 5 × 10^n) at or above `max`. */
function niceCeil(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** The events/s chart of the last hour: a polyline of 60 points per source (the running minute's rate over its elapsed seconds). */
export function eventsChart(doc: StatusDocument, now = Date.now()): string {
  const minutes = doc.events_per_minute;
  const seconds = minutes.map((m) => Math.min(60, Math.max(1, (now - Date.parse(m.minute)) / 1000)));
  const rates = minutes.map((m, i) => {
    const out: Record<string, number> = {};
    for (const [source, n] of Object.entries(m.counts))
      out[source] = Math.round((n / seconds[i]!) * 1000) / 1000;
    return out;
  });
  const sources = [
    ...new Set([...doc.sources.map((s) => s.source), ...minutes.flatMap((m) => Object.keys(m.counts))]),
  ];
  const W = 760;
  const H = 260;
  const L = 60;
  const R = 150;
  const T = 16;
  const B = 44;
  const plotW = W - L - R;
  const plotH = H - T - B;
  const yMax = niceCeil(Math.max(0, ...rates.flatMap((r) => Object.values(r))));
  const x = (i: number) => L + (minutes.length <= 1 ? 0 : (i * plotW) / (minutes.length - 1));
  const y = (v: number) => T + plotH - (v / yMax) * plotH;
  const parts: string[] = [];
  parts.push(`<rect x="${L}" y="${T}" width="${plotW}" height="${plotH}" fill="#fff" stroke="#999"/>`);
  for (let k = 0; k <= 4; k++) {
    const v = (yMax * k) / 4;
    parts.push(
      `<line x1="${L}" x2="${L + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${esc(Math.round(v * 1000) / 1000)}</text>`,
    );
  }
  for (let i = 0; i < minutes.length; i += 10) {
    const label = minutes[i]!.minute.slice(11, 16);
    parts.push(
      `<line x1="${x(i)}" x2="${x(i)}" y1="${T + plotH}" y2="${T + plotH + 4}" stroke="#999"/>`,
      `<text x="${x(i)}" y="${T + plotH + 16}" text-anchor="middle" font-size="11">${esc(label)}</text>`,
    );
  }
  parts.push(
    `<text x="${L + plotW / 2}" y="${H - 6}" text-anchor="middle" font-size="12">minute (UTC), last hour</text>`,
    `<text x="14" y="${T + plotH / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${T + plotH / 2})">events/s</text>`,
  );
  sources.forEach((source, si) => {
    const color = PALETTE[si % PALETTE.length];
    const points = rates.map((r, i) => `${x(i).toFixed(1)},${y(r[source] ?? 0).toFixed(1)}`);
    parts.push(
      `<polyline class="series" data-source="${esc(source)}" data-rates="${rates.map((r) => r[source] ?? 0).join(' ')}" fill="none" stroke="${color}" stroke-width="1.5" points="${points.join(' ')}"/>`,
      `<rect x="${L + plotW + 12}" y="${T + si * 18}" width="10" height="10" fill="${color}"/>`,
      `<text x="${L + plotW + 28}" y="${T + si * 18 + 9}" font-size="12">${esc(source)}</text>`,
    );
  });
  return `<svg id="events-chart" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="Events per second by source, last hour">
${parts.join('\n')}
</svg>`;
}

const stateCell = (state: string) => `<span class="state ${esc(state)}">${esc(state)}</span>`;

export function renderStatusPage(doc: StatusDocument, limits: { lagWarnS: number; stallS: number }): string {
  const sources = table(
    'Ingest sources',
    'sources',
    [
      'source',
      'kind',
      'state',
      'head',
      'checkpoint',
      'lag blocks',
      'lag s',
      'head time',
      'checkpoint time',
      'progressed at',
    ],
    doc.sources.map((s) => [
      esc(s.source),
      esc(s.kind),
      stateCell(s.state) + (s.error ? ` <span class="err">${esc(s.error)}</span>` : ''),
      num(s.head),
      num(s.checkpoint),
      num(s.lag_blocks),
      num(s.lag_seconds),
      esc(s.head_time ?? '–'),
      esc(s.checkpoint_time ?? '–'),
      esc(s.progressed_at ?? '–'),
    ]),
  );
  const products = table(
    'Analytics products',
    'products',
    ['product', 'computed at', 'freshness s'],
    doc.products.map((p) => [esc(p.product), esc(p.computed_at ?? 'never'), num(p.freshness_seconds)]),
  );
  const quarantine = table(
    'Quarantine',
    'quarantine',
    ['source', 'kind', 'records'],
    doc.quarantine.map((q) => [esc(q.source), esc(q.kind), num(q.records)]),
  );
  const queues = table(
    'Job queues',
    'queues',
    ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed'],
    doc.queues.map((q) => [
      esc(q.queue),
      num(q.waiting),
      num(q.active),
      num(q.delayed),
      q.failed > 0 ? `<span class="state stalled">${q.failed}</span>` : '0',
      num(q.completed),
    ]),
  );
  const roles = table(
    'Roles',
    'roles',
    ['role', 'host', 'pid', 'version', 'started at'],
    doc.roles.map((r) => [esc(r.role), esc(r.host), num(r.pid), esc(r.version), esc(r.started_at)]),
  );
  const generated = doc.generated_at
    ? `Snapshot of ${esc(doc.generated_at)}`
    : 'No snapshot: no scheduler (or <code>pmdata up</code>) has sampled in the last 10 minutes.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="10">
<title>pmdata status</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #222; background: #fafafa; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
table { border-collapse: collapse; margin: 1.2rem 0; background: #fff; }
caption { text-align: left; font-weight: 600; font-size: 1.05rem; padding: .3rem 0; }
th, td { border: 1px solid #ddd; padding: .25rem .6rem; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
td.none { text-align: center; color: #888; }
.state { font-weight: 600; padding: 0 .35rem; border-radius: 3px; }
.state.ok { color: #176d2c; background: #e3f4e6; }
.state.lagging { color: #8a5a00; background: #fff1d6; }
.state.stalled { color: #a11; background: #fbe0e0; }
.err { color: #a11; font-size: .85em; }
.meta { color: #555; }
</style>
</head>
<body>
<h1>pmdata status</h1>
<p class="meta" id="generated">${generated}. States: lagging past ${limits.lagWarnS} s of lag, stalled when behind without progress for ${limits.stallS} s. This page reloads every 10 s; the same data is at <a href="/admin/status.json">/admin/status.json</a>.</p>
${sources}
${products}
<h2>Events per second, last hour</h2>
${eventsChart(doc)}
${quarantine}
${queues}
${roles}
</body>
</html>
`;
}
