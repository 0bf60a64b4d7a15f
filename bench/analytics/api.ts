/**
 * The analytics routes' latency for the busiest market, through the whole app (auth, rate limit,
 * validation, handler, serialization) by `app.inject`, one request at a time. The response cache is off
 * (API_CACHE_BYTES=0 in the benchmark's configuration), so every request runs its queries in the engine
 * even though each kind repeats one URL.
 */
import type { App } from '../../api/app.ts';
import type { Profiler } from './profile.ts';

export interface ApiKind {
  name: string;
  url: string;
}

export interface ApiTiming {
  name: string;
  url: string;
  status: number;
  /** Candles or points in the body (the route's array), for the record. */
  items: number | undefined;
  bytes: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests sent, the untimed warm-up included. */
  sent: number;
}

const DAY = 86_400;

/** The requests of the benchmark: condition and token candles (1m/7 d, 1h/90 d, 1d all), daily OI. */
export function apiKinds(o: { conditionId: string; tokenId: string; lastTime: number }): ApiKind[] {
  const end = o.lastTime;
  const candles = (path: string): ApiKind[] => [
    { name: '1m, 7 d', url: `${path}?interval=1&start_time=${end - 7 * DAY}&end_time=${end}` },
    { name: '1h, 90 d', url: `${path}?interval=60&start_time=${end - 90 * DAY}&end_time=${end}` },
    { name: '1d, all', url: `${path}?interval=1440` },
  ];
  return [
    ...candles(`/v2/alpha/candlesticks/${o.conditionId}`).map((k) => ({
      ...k,
      name: `condition candles ${k.name}`,
    })),
    ...candles(`/v2/alpha/candlesticks/token/${o.tokenId}`).map((k) => ({
      ...k,
      name: `token candles ${k.name}`,
    })),
    { name: 'open interest, day', url: `/v2/alpha/markets/${o.conditionId}/open_interest?granularity=day` },
  ];
}

/** Length of the body's first array (candles, points), whatever its key. */
function itemsOf(body: string): number | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (Array.isArray(parsed)) return parsed.length;
    if (parsed && typeof parsed === 'object') {
      for (const v of Object.values(parsed)) if (Array.isArray(v)) return v.length;
    }
  } catch {}
  return undefined;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** True when Fastify has no route for `url` (its own 404, not the route's 404 of an unknown id). */
export async function routeMissing(app: App, key: string, url: string): Promise<boolean> {
  const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  return res.statusCode === 404 && /Route GET:.* not found/.test(res.body);
}

/** `warmup` untimed then `requests` timed sequential requests of one kind. */
export async function timeKind(
  app: App,
  key: string,
  kind: ApiKind,
  requests: number,
  warmup = 5,
): Promise<ApiTiming> {
  const headers = { 'x-api-key': key };
  let first = await app.inject({ method: 'GET', url: kind.url, headers });
  for (let i = 1; i < warmup; i++) first = await app.inject({ method: 'GET', url: kind.url, headers });
  const ms: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: kind.url, headers });
    ms.push(performance.now() - t0);
    if (res.statusCode !== first.statusCode)
      throw new Error(`${kind.url}: ${res.statusCode} after ${first.statusCode}`);
  }
  ms.sort((a, b) => a - b);
  return {
    name: kind.name,
    url: kind.url,
    status: first.statusCode,
    items: first.statusCode === 200 ? itemsOf(first.body) : undefined,
    bytes: first.rawPayload.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms[ms.length - 1]!,
    sent: warmup + requests,
  };
}

/** What `timeKind` measures, plus the statements the requests ran (the profiler's labels). */
export interface ProfiledTiming extends ApiTiming {
  /** Σ wall ms of a request's statements (they may overlap), per request. */
  stmtMs: number;
  /** Statements per request. */
  stmts: number;
  labels: string[];
}

/** `timeKind` with the app's statements recorded by `profiler` (its bag must be the app's ClickHouse). */
export async function timeKindProfiled(
  app: App,
  key: string,
  kind: ApiKind,
  requests: number,
  profiler: Pick<Profiler, 'start' | 'stop'>,
): Promise<ProfiledTiming> {
  profiler.start();
  const t = await timeKind(app, key, kind, requests);
  const calls = profiler.stop();
  return {
    ...t,
    stmtMs: calls.reduce((sum, c) => sum + c.totalMs, 0) / t.sent,
    stmts: calls.reduce((sum, c) => sum + c.calls, 0) / t.sent,
    labels: calls.map((c) => c.label),
  };
}

/** The cells every benchmark prints for a timing: status, items, bytes, p50, p99, max. */
export const timingCells = (t: ApiTiming): string =>
  `${String(t.status).padStart(6)} ${String(t.items ?? '').padStart(6)} ${String(t.bytes).padStart(8)} ` +
  `${t.p50.toFixed(1).padStart(7)} ${t.p99.toFixed(1).padStart(7)} ${t.max.toFixed(1).padStart(7)}`;

/** The statement cells: Σ ms and count per request. */
export const statementCells = (t: ProfiledTiming): string =>
  `${t.stmtMs.toFixed(1).padStart(9)} ${t.stmts.toFixed(1).padStart(6)}`;
