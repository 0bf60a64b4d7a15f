/**
 * What the ingest writers wrote, counted where they write (ingest/chain/writer.ts, ingest/rest/store.ts):
 * - `pmdata_ingest_events_total{source,kind}`: event rows of a source (the chain's event tables, a REST
 *   venue's records), kind = the table without its venue prefix (`fills`, `markets`, …);
 * - `pmdata_rows_written_total{table}`: every row inserted, by table (event tables, blocks, quarantine);
 * - per-minute event counts by source, for the status page's chart: kept in this process until
 *   `flushEventMinutes` adds them to `pmdata:ops:events:<minute>` (a Redis hash source → count, expiring
 *   after 2 h). Every role's heartbeat flushes them (heartbeat.ts).
 * The counters are process-wide like the metric registry they sit on: a writer counts rows once they
 * are inserted, whichever dependency bag it was built from.
 */
import type { Redis } from 'ioredis';
import { Counter } from 'prom-client';
import { registry } from '../metrics.ts';

export const EVENT_MINUTES_PREFIX = 'pmdata:ops:events:';
/** How long a minute's counts are kept. */
export const EVENT_MINUTES_TTL_S = 2 * 3600;

const eventsTotal = new Counter({
  name: 'pmdata_ingest_events_total',
  help: 'Event rows ingested, by source and kind (the table without its venue prefix).',
  labelNames: ['source', 'kind'] as const,
  registers: [registry],
});

const rowsWrittenTotal = new Counter({
  name: 'pmdata_rows_written_total',
  help: 'Rows inserted by the ingest writers, by table.',
  labelNames: ['table'] as const,
  registers: [registry],
});

/** Minute (`YYYY-MM-DDTHH:MMZ`) → source → events not yet added to Redis. */
const pending = new Map<string, Map<string, number>>();

/** The minute of a Unix ms time, as keys and the status page name it: `2026-11-26T22:05Z`. */
export function minuteOf(ms: number): string {
  return `${new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 16)}Z`;
}

/** Counts `rows` inserted into `table`. */
export function countRowsWritten(table: string, rows: number): void {
  if (rows > 0) rowsWrittenTotal.inc({ table }, rows);
}

/** Counts `n` events of `source` (kind = the event's table without its venue prefix), now. */
export function countEvents(source: string, kind: string, n: number, now = Date.now()): void {
  if (n <= 0) return;
  eventsTotal.inc({ source, kind }, n);
  const minute = minuteOf(now);
  let bySource = pending.get(minute);
  if (!bySource) {
    bySource = new Map();
    pending.set(minute, bySource);
  }
  bySource.set(source, (bySource.get(source) ?? 0) + n);
}

/** Adds the counts held in this process to Redis (HINCRBY per minute and source) and forgets them. */
export async function flushEventMinutes(redis: Redis): Promise<void> {
  if (pending.size === 0) return;
  const batch = [...pending];
  pending.clear();
  const multi = redis.multi();
  for (const [minute, bySource] of batch) {
    const key = EVENT_MINUTES_PREFIX + minute;
    for (const [source, n] of bySource) multi.hincrby(key, source, n);
    multi.expire(key, EVENT_MINUTES_TTL_S);
  }
  try {
    await multi.exec();
  } catch (err) {
    // Kept for the next flush rather than lost.
    for (const [minute, bySource] of batch) {
      for (const [source, n] of bySource) {
        const m = pending.get(minute) ?? new Map<string, number>();
        m.set(source, (m.get(source) ?? 0) + n);
        pending.set(minute, m);
      }
    }
    throw err;
  }
}

export interface EventMinute {
  /** The minute's start, `YYYY-MM-DDTHH:MMZ`. */
  minute: string;
  /** Events by source in that minute (sources without events absent). */
  counts: Record<string, number>;
}

/** The last `minutes` minutes up to the one of `now`, oldest first (a minute without events: `{}`). */
export async function readEventMinutes(redis: Redis, now = Date.now(), minutes = 60): Promise<EventMinute[]> {
  const names: string[] = [];
  for (let i = minutes - 1; i >= 0; i--) names.push(minuteOf(now - i * 60_000));
  const multi = redis.multi();
  for (const m of names) multi.hgetall(EVENT_MINUTES_PREFIX + m);
  const results = (await multi.exec()) ?? [];
  return names.map((minute, i) => {
    const raw = (results[i]?.[1] ?? {}) as Record<string, string>;
    const counts: Record<string, number> = {};
    for (const [source, n] of Object.entries(raw)) counts[source] = Number(n);
    return { minute, counts };
  });
}
