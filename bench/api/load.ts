/**
 * The load generator: `concurrency` clients in this process send `requests` GETs over keep-alive HTTP,
 * each waiting for its answer before the next. Latency is per request (send → body read); CPU is this
 * whole process's (process.cpuUsage: client, server and the embedded engine's threads) over the run.
 */
import type { UrlSource } from './scenarios.ts';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Responses other than 200, and requests that failed outright. */
  errors: number;
  /** Status codes of the errors, e.g. { 429: 3 }. */
  errorCodes: Record<string, number>;
  /** Items in a 200 body's first array (trades, activity), per request. */
  rowsPerRequest: number;
  /** Process CPU per request, ms. */
  cpuMs: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function cpuNowMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Observes each request at concurrency 1 (phases are sequential there): its wall and CPU ms. */
export type RequestObserver = (wallMs: number, cpuMs: number, ok: boolean) => void;

function itemsOf(body: unknown): number {
  if (body && typeof body === 'object') {
    for (const v of Object.values(body)) if (Array.isArray(v)) return v.length;
  }
  return 0;
}

export interface LoadOptions {
  base: string;
  key: string;
  urls: UrlSource;
  requests: number;
  concurrency: number;
  /** Stop early at this time (performance.now() ms), whatever the count. */
  deadline?: number;
  observe?: RequestObserver;
}

export async function load(o: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const errorCodes: Record<string, number> = {};
  let next = 0;
  let errors = 0;
  let rows = 0;
  const started = performance.now();
  const cpu0 = cpuNowMs();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= o.requests || (o.deadline !== undefined && performance.now() >= o.deadline)) return;
        const url = o.base + o.urls(i);
        const t0 = performance.now();
        const c0 = o.observe ? cpuNowMs() : 0;
        let ok = false;
        try {
          const res = await fetch(url, { headers: { 'x-api-key': o.key } });
          const body = (await res.json()) as unknown;
          ok = res.status === 200;
          if (ok) rows += itemsOf(body);
          else errorCodes[res.status] = (errorCodes[res.status] ?? 0) + 1;
        } catch (err) {
          const code = (err as { cause?: { code?: string } }).cause?.code ?? 'fetch';
          errorCodes[code] = (errorCodes[code] ?? 0) + 1;
        }
        const ms = performance.now() - t0;
        latencies.push(ms);
        if (!ok) errors++;
        o.observe?.(ms, cpuNowMs() - c0, ok);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuNowMs() - cpu0;
  const n = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    requests: n,
    rps: n / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[n - 1] ?? Number.NaN,
    errors,
    errorCodes,
    rowsPerRequest: n > 0 ? rows / n : 0,
    cpuMs: n > 0 ? cpu / n : Number.NaN,
  };
}
