/**
 * Where a phase's time goes, per statement label. The embedded engine keeps no system.query_log, so the
 * analytics jobs get a ClickHouse bag whose calls are timed by label (wall time), and, when `events` is
 * on, the engine's process-wide counters (system.events: rows and bytes read, rows written, CPU of the
 * engine's threads) are read before and after each call: the difference is that call's, unless another
 * call ran at the same time (then both are marked shared: their figures include each other's) or a
 * background merge ran meanwhile (its reads are not SelectedRows; its CPU is in the CPU figure).
 * Reading the counters costs ≈ 1–3 ms per call, so timed runs leave `events` off.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';

const EVENTS = [
  'SelectedRows',
  'SelectedBytes',
  'InsertedRows',
  'UserTimeMicroseconds',
  'SystemTimeMicroseconds',
];
type Counters = Record<string, number>;

export interface LabelStats {
  label: string;
  calls: number;
  totalMs: number;
  maxMs: number;
  /** From system.events when profiled (undefined otherwise). */
  readRows?: number;
  readBytes?: number;
  writtenRows?: number;
  cpuMs?: number;
  /** Some call of this label overlapped another: its counters are shared. */
  shared: boolean;
}

export interface Profiler {
  /** The bag to hand to the code under measurement. */
  clickhouse: ClickHouse;
  /** Starts recording (clears what was recorded); `events` reads the engine's counters around each call. */
  start(o?: { events?: boolean }): void;
  /** Stops and returns the labels, longest total first. */
  stop(): LabelStats[];
}

async function readCounters(ch: ClickHouse): Promise<Counters> {
  const rows = await ch.query<{ event: string; value: string }>(
    'bench.analytics.events',
    'SELECT event, value FROM system.events WHERE event IN {names:Array(String)}',
    { names: EVENTS },
  );
  const out: Counters = {};
  for (const r of rows) out[r.event] = Number(r.value);
  return out;
}

const delta = (a: Counters, b: Counters, k: string) => (b[k] ?? 0) - (a[k] ?? 0);

export function createProfiler(target: ClickHouse): Profiler {
  let on = false;
  let events = false;
  let inFlight = 0;
  let stats = new Map<string, LabelStats>();
  const TIMED = new Set(['query', 'read', 'command', 'insert', 'insertRaw']);

  const record = (label: string, ms: number, c?: { a: Counters; b: Counters }, shared = false) => {
    const s = stats.get(label) ?? { label, calls: 0, totalMs: 0, maxMs: 0, shared: false };
    s.calls++;
    s.totalMs += ms;
    s.maxMs = Math.max(s.maxMs, ms);
    if (c) {
      s.readRows = (s.readRows ?? 0) + delta(c.a, c.b, 'SelectedRows');
      s.readBytes = (s.readBytes ?? 0) + delta(c.a, c.b, 'SelectedBytes');
      s.writtenRows = (s.writtenRows ?? 0) + delta(c.a, c.b, 'InsertedRows');
      s.cpuMs =
        (s.cpuMs ?? 0) +
        (delta(c.a, c.b, 'UserTimeMicroseconds') + delta(c.a, c.b, 'SystemTimeMicroseconds')) / 1000;
    }
    s.shared ||= shared;
    stats.set(label, s);
  };

  const clickhouse = new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function' || !TIMED.has(String(prop))) return value;
      return async (...args: unknown[]) => {
        if (!on) return value.apply(t, args);
        const label = typeof args[0] === 'string' ? args[0] : String(prop);
        const counting = events;
        const a = counting ? await readCounters(t) : undefined;
        inFlight++;
        let shared = inFlight > 1;
        const t0 = performance.now();
        try {
          const out = await value.apply(t, args);
          shared ||= inFlight > 1;
          const ms = performance.now() - t0;
          const b = counting ? await readCounters(t) : undefined;
          record(label, ms, a && b ? { a, b } : undefined, shared);
          return out;
        } finally {
          inFlight--;
        }
      };
    },
  });

  return {
    clickhouse,
    start(o = {}) {
      stats = new Map();
      events = o.events ?? false;
      on = true;
    },
    stop() {
      on = false;
      return [...stats.values()].sort((x, y) => y.totalMs - x.totalMs);
    },
  };
}

const int = (n: number | undefined) => (n === undefined ? '' : Math.round(n).toLocaleString('en-US'));

/** A table of the labels (top `limit`), one line each. */
export function formatProfile(title: string, rows: LabelStats[], limit = 15): string[] {
  const out = [
    title,
    `  ${'label'.padEnd(52)} ${'calls'.padStart(5)} ${'total ms'.padStart(10)} ${'max ms'.padStart(9)} ${'rows read'.padStart(13)} ${'MB read'.padStart(8)} ${'rows written'.padStart(13)} ${'engine cpu ms'.padStart(13)}`,
  ];
  for (const r of rows.slice(0, limit)) {
    out.push(
      `  ${(r.label + (r.shared ? ' *' : '')).padEnd(52)} ${String(r.calls).padStart(5)} ${r.totalMs.toFixed(1).padStart(10)} ${r.maxMs.toFixed(1).padStart(9)} ${int(r.readRows).padStart(13)} ${(r.readBytes === undefined ? '' : (r.readBytes / 1e6).toFixed(1)).padStart(8)} ${int(r.writtenRows).padStart(13)} ${int(r.cpuMs).padStart(13)}`,
    );
  }
  if (rows.length > limit) out.push(`  … ${rows.length - limit} more labels`);
  if (rows.some((r) => r.shared))
    out.push('  * ran beside another statement: its counters include the other one’s');
  return out;
}

/**
 * Waits until no background merge runs, at most `maxS` seconds; returns the seconds waited and the merges
 * still running then.
 */
export async function settleMerges(ch: ClickHouse, maxS: number): Promise<{ s: number; running: number }> {
  const t0 = performance.now();
  let running = 0;
  for (;;) {
    const [m] = await ch.query<{ c: string }>(
      'bench.merges',
      'SELECT count() AS c FROM system.merges WHERE database = currentDatabase()',
    );
    running = Number(m!.c);
    if (running === 0 || (performance.now() - t0) / 1000 >= maxS) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { s: (performance.now() - t0) / 1000, running };
}

/** Per-label figures of several runs added up. */
export function addUp(runs: LabelStats[][]): LabelStats[] {
  const out = new Map<string, LabelStats>();
  for (const run of runs) {
    for (const r of run) {
      const s = out.get(r.label) ?? { label: r.label, calls: 0, totalMs: 0, maxMs: 0, shared: false };
      s.calls += r.calls;
      s.totalMs += r.totalMs;
      s.maxMs = Math.max(s.maxMs, r.maxMs);
      s.shared ||= r.shared;
      out.set(r.label, s);
    }
  }
  return [...out.values()].sort((a, b) => b.totalMs - a.totalMs);
}
