/**
 * `pmdata status [--url URL] [--json] [--watch]`: the status page's data (GET /admin/status.json of a
 * running API; the embedded engine belongs to the running process, so this reads nothing itself) as
 * aligned tables, or the JSON as it came (`--json`). The admin key is PMDATA_ADMIN_KEY, else the one
 * embedded mode keeps in `<data dir>/admin-key`. Exit 0 when every source is ok and no queue holds a
 * failed job; 1 when anything lags, stalls or fails, when there is no recent snapshot or the key is
 * refused; 75 when the API cannot be reached. `--watch` prints again every 10 s until interrupted.
 */
import fs from 'node:fs';
import type { StatusDocument } from '../../api/routes/admin/status.ts';
import { adminKeyFile } from '../../core/admin-key.ts';
import type { Config } from '../../core/config.ts';
import { needsAttention } from '../../core/ops/snapshot.ts';
import type { CliIo } from './io.ts';

export const STATUS_USAGE = 'Usage: pmdata status [--url URL] [--json] [--watch]';

export const EXIT_OK = 0;
export const EXIT_ATTENTION = 1;
export const EXIT_UNREACHABLE = 75;

/** A snapshot older than this (4 sampler intervals) means no sampler runs: reported, exit 1. */
const STALE_MS = 60_000;
const WATCH_MS = 10_000;

export interface StatusOptions {
  config: Pick<Config, 'host' | 'port' | 'dataDir' | 'adminKey'>;
  io: Pick<CliIo, 'out' | 'isTTY'>;
  url?: string;
  json?: boolean;
  watch?: boolean;
  /** Ends --watch (default: SIGINT/SIGTERM). */
  signal?: AbortSignal;
  watchMs?: number;
  /** Timeout of one request (default 10 s). */
  timeoutMs?: number;
}

/** The API's base URL from the config: its port on loopback when it listens on every interface. */
export function defaultStatusUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * PMDATA_ADMIN_KEY, else the key embedded mode keeps in the data dir (core/admin-key.ts); null when
 * neither is there (this client never generates one).
 */
export function adminKeyFor(config: Pick<Config, 'adminKey' | 'dataDir'>): string | null {
  if (config.adminKey) return config.adminKey;
  try {
    return fs.readFileSync(adminKeyFile(config.dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

type Fetched = { ok: true; doc: StatusDocument; raw: string } | { ok: false; code: number; message: string };

async function fetchStatus(url: string, key: string | null, timeoutMs: number): Promise<Fetched> {
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}/admin/status.json`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      code: EXIT_UNREACHABLE,
      message: `Cannot reach the API at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    };
  }
  const raw = await res.text();
  if (res.status === 401) {
    return {
      ok: false,
      code: EXIT_ATTENTION,
      message: key
        ? `The API at ${url} refused the admin key (401): set PMDATA_ADMIN_KEY to the API's key`
        : `The API at ${url} needs the admin key (401): set PMDATA_ADMIN_KEY`,
    };
  }
  if (res.status === 404) {
    return {
      ok: false,
      code: EXIT_ATTENTION,
      message: `The API at ${url} has no status page (404): in cluster mode the admin routes need PMDATA_ADMIN_KEY`,
    };
  }
  if (res.status >= 500) {
    return { ok: false, code: EXIT_UNREACHABLE, message: `The API at ${url} answered ${res.status}` };
  }
  if (res.status !== 200) {
    return {
      ok: false,
      code: EXIT_ATTENTION,
      message: `The API at ${url} answered ${res.status}: ${raw.slice(0, 200)}`,
    };
  }
  return { ok: true, doc: JSON.parse(raw) as StatusDocument, raw };
}

/** Rows as columns padded to their widest cell; numbers right-aligned. */
export function alignedTable(head: string[], rows: (string | number | null)[][]): string[] {
  const cells = rows.map((r) => r.map((c) => (c === null ? '-' : String(c))));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const numeric = head.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null),
  );
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

/** What needs attention, one phrase each (empty: all ok). */
export function problemsOf(doc: StatusDocument, now = Date.now()): string[] {
  const out: string[] = [];
  if (!doc.generated_at) out.push('no snapshot (is a scheduler or `pmdata up` running?)');
  else if (now - Date.parse(doc.generated_at) > STALE_MS) {
    out.push(
      `the snapshot is ${Math.round((now - Date.parse(doc.generated_at)) / 1000)} s old (is a scheduler running?)`,
    );
  }
  for (const s of doc.sources) if (s.state !== 'ok') out.push(`${s.source} ${s.state}`);
  for (const q of doc.queues) if (q.failed > 0) out.push(`queue ${q.queue}: ${q.failed} failed job(s)`);
  return out;
}

export function formatStatus(doc: StatusDocument, now = Date.now()): string[] {
  const lines: string[] = [];
  lines.push(doc.generated_at ? `Snapshot of ${doc.generated_at}` : 'No snapshot');
  const section = (title: string, table: string[]) => lines.push('', title, ...table);
  section(
    'Sources',
    alignedTable(
      ['source', 'kind', 'state', 'head', 'checkpoint', 'lag_blocks', 'lag_seconds'],
      doc.sources.map((s) => [s.source, s.kind, s.state, s.head, s.checkpoint, s.lag_blocks, s.lag_seconds]),
    ),
  );
  section(
    'Analytics products',
    alignedTable(
      ['product', 'computed_at', 'freshness_seconds'],
      doc.products.map((p) => [p.product, p.computed_at ?? 'never', p.freshness_seconds]),
    ),
  );
  section(
    'Quarantine',
    alignedTable(
      ['source', 'kind', 'records'],
      doc.quarantine.map((q) => [q.source, q.kind, q.records]),
    ),
  );
  section(
    'Queues',
    alignedTable(
      ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed'],
      doc.queues.map((q) => [q.queue, q.waiting, q.active, q.delayed, q.failed, q.completed]),
    ),
  );
  section(
    'Roles',
    alignedTable(
      ['role', 'host', 'pid', 'version', 'started_at'],
      doc.roles.map((r) => [r.role, r.host ?? '-', r.pid, r.version, r.started_at]),
    ),
  );
  const problems = problemsOf(doc, now);
  lines.push('', problems.length === 0 ? 'All ok' : `Needs attention: ${problems.join('; ')}`);
  return lines;
}

/** One look: prints and returns the exit code. */
async function once(o: StatusOptions, url: string, key: string | null): Promise<number> {
  const r = await fetchStatus(url, key, o.timeoutMs ?? 10_000);
  if (!r.ok) {
    o.io.out(r.message);
    return r.code;
  }
  if (o.json) o.io.out(r.raw);
  else for (const l of formatStatus(r.doc)) o.io.out(l);
  const attention = needsAttention(r.doc) || problemsOf(r.doc).length > 0;
  return attention ? EXIT_ATTENTION : EXIT_OK;
}

export async function runStatus(o: StatusOptions): Promise<number> {
  const url = o.url ?? defaultStatusUrl(o.config);
  const key = adminKeyFor(o.config);
  if (!o.watch) return once(o, url, key);
  let signal = o.signal;
  if (!signal) {
    const ac = new AbortController();
    process.once('SIGINT', () => ac.abort());
    process.once('SIGTERM', () => ac.abort());
    signal = ac.signal;
  }
  let code = EXIT_OK;
  while (!signal.aborted) {
    if (o.io.isTTY) o.io.out('\x1b[2J\x1b[H');
    code = await once(o, url, key);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, o.watchMs ?? WATCH_MS);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }
  return code;
}
