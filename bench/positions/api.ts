/**
 * The wallet routes' latency at a fixed concurrency over a mix of wallets, through the whole app
 * (`app.inject`: key, rate limiter, validation, handler, serialization) with the response cache off, as
 * bench/analytics/api.ts times one URL sequentially: `concurrency` loops in this process each send the
 * next request of the mix as soon as their last one answered, so a request's latency includes waiting
 * for the others it ran beside (the same event loop and engine).
 */
import type { App } from '../../api/app.ts';
import type { ProfiledTiming } from '../analytics/api.ts';
import type { LabelStats, Profiler } from '../analytics/profile.ts';

export interface MixKind {
  name: string;
  /** One URL per wallet of the mix; request i asks urls[i mod length]. */
  urls: string[];
}

export interface MixTiming extends ProfiledTiming {
  concurrency: number;
  /** Requests answered with another status than the first's. */
  others: number;
  /** Items (the body's first array) of the smallest and largest answer. */
  itemsMin: number;
  itemsMax: number;
  /** Requests per second over the timed requests. */
  rps: number;
  profile: LabelStats[];
}

function itemsOf(body: string): number {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (Array.isArray(parsed)) return parsed.length;
    if (parsed && typeof parsed === 'object') {
      for (const v of Object.values(parsed)) if (Array.isArray(v)) return v.length;
    }
  } catch {}
  return 0;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** Every URL of the mix once, untimed, then `requests` timed at `concurrency`, the statements recorded. */
export async function timeMix(
  app: App,
  key: string,
  kind: MixKind,
  o: {
    requests: number;
    concurrency: number;
    profiler: Pick<Profiler, 'start' | 'stop'>;
    /** Read the engine's counters around each statement (adds ≈ 1–3 ms per statement to the latency). */
    events?: boolean;
  },
): Promise<MixTiming> {
  const headers = { 'x-api-key': key };
  const first = await app.inject({ method: 'GET', url: kind.urls[0]!, headers });
  let bytes = 0;
  let itemsMin = Number.POSITIVE_INFINITY;
  let itemsMax = 0;
  for (const url of kind.urls) {
    const res = await app.inject({ method: 'GET', url, headers });
    const items = res.statusCode === 200 ? itemsOf(res.body) : 0;
    itemsMin = Math.min(itemsMin, items);
    itemsMax = Math.max(itemsMax, items);
    bytes = Math.max(bytes, res.rawPayload.length);
  }
  const ms: number[] = [];
  let others = 0;
  let next = 0;
  o.profiler.start({ events: o.events ?? false });
  const t0 = performance.now();
  const loop = async () => {
    for (let i = next++; i < o.requests; i = next++) {
      const url = kind.urls[i % kind.urls.length]!;
      const s = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      ms.push(performance.now() - s);
      if (res.statusCode !== first.statusCode) others++;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, loop));
  const wall = (performance.now() - t0) / 1000;
  const profile = o.profiler.stop();
  ms.sort((a, b) => a - b);
  return {
    name: kind.name,
    url: kind.urls[0]!,
    status: first.statusCode,
    items: itemsMax,
    bytes,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms[ms.length - 1]!,
    sent: o.requests,
    stmtMs: profile.reduce((sum, c) => sum + c.totalMs, 0) / o.requests,
    stmts: profile.reduce((sum, c) => sum + c.calls, 0) / o.requests,
    labels: profile.map((c) => c.label),
    concurrency: o.concurrency,
    others,
    itemsMin: Number.isFinite(itemsMin) ? itemsMin : 0,
    itemsMax,
    rps: o.requests / wall,
    profile,
  };
}
