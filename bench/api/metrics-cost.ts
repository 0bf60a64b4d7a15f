/**
 * What the HTTP metrics cost the API: two servers on the same data, one with the request metrics hook
 * (METRICS_HTTP=true) and one without, loaded in alternating rounds with the same hot URLs (cache hits:
 * the cheapest requests, where a fixed per-request cost shows most). Per request: CPU µs on − off
 * (this whole process: client, servers, engine) and the req/s lost in %, as medians over the rounds.
 * Also the time of one `/metrics` scrape (HTTP, admin key) once the loads have filled the registry, and
 * the hook's own cost in a tight loop (its series, labelled service="bench", come after the scrape).
 */
import { startServer } from '../../api/server.ts';
import { resolveAdminKey } from '../../core/admin-key.ts';
import type { Deps } from '../../core/deps.ts';
import { createHttpMetrics } from '../../core/metrics.ts';
import { type LoadResult, load } from './load.ts';
import type { UrlSource } from './scenarios.ts';

export interface MetricsCost {
  rounds: number;
  rpsOn: number;
  rpsOff: number;
  /** Process CPU per request, µs, with and without the hook. */
  cpuOnUs: number;
  cpuOffUs: number;
  /** cpuOnUs − cpuOffUs. */
  costUs: number;
  /** (rpsOff − rpsOn) / rpsOff, %. */
  rpsLossPct: number;
  /** One observe() of the hook in a tight loop, µs. */
  hookUs: number;
  /** One GET /metrics over HTTP with the admin key: median and max ms, and the body's bytes and samples. */
  scrape: { medianMs: number; maxMs: number; bytes: number; samples: number } | null;
  errors: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The hook's observe() alone: routes and statuses of a real mix, 1M calls. */
function hookCostUs(): number {
  const http = createHttpMetrics('bench');
  const routes = ['/v2/alpha/trades', '/v2/alpha/activity', '/v2/alpha/markets', undefined, '/health'];
  const statuses = [200, 200, 304, 404, 200];
  const n = 1_000_000;
  for (let i = 0; i < 10_000; i++) http.observe(routes[i % 5], 'GET', statuses[i % 5]!, 0.002);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) http.observe(routes[i % 5], 'GET', statuses[i % 5]!, 0.002);
  return ((performance.now() - t0) * 1000) / n;
}

export async function measureMetricsCost(o: {
  deps: Deps;
  key: string;
  urls: UrlSource;
  requests: number;
  concurrency: number;
  rounds: number;
  scrapes?: number;
}): Promise<MetricsCost> {
  const { deps } = o;
  const on = await startServer({ ...deps, config: { ...deps.config, metricsHttp: true } });
  const off = await startServer({ ...deps, config: { ...deps.config, metricsHttp: false } });
  try {
    const run = (base: string, requests: number) =>
      load({ base, key: o.key, urls: o.urls, requests, concurrency: o.concurrency });
    // Warm-up: JIT, keep-alive connections, each server's response cache.
    await run(on.url, Math.min(o.requests, 500));
    await run(off.url, Math.min(o.requests, 500));
    const results: { on: LoadResult[]; off: LoadResult[] } = { on: [], off: [] };
    for (let r = 0; r < o.rounds; r++) {
      // Alternate which goes first, so a drift of the machine's load weighs on both alike.
      const order = r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const which of order)
        results[which].push(await run(which === 'on' ? on.url : off.url, o.requests));
    }
    const rpsOn = median(results.on.map((x) => x.rps));
    const rpsOff = median(results.off.map((x) => x.rps));
    const cpuOnUs = median(results.on.map((x) => x.cpuMs)) * 1000;
    const cpuOffUs = median(results.off.map((x) => x.cpuMs)) * 1000;
    const errors = [...results.on, ...results.off].reduce((a, x) => a + x.errors, 0);

    let scrape: MetricsCost['scrape'] = null;
    const admin = resolveAdminKey(deps.config);
    if (admin) {
      const times: number[] = [];
      let body = '';
      for (let i = 0; i < (o.scrapes ?? 20); i++) {
        const t0 = performance.now();
        const res = await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${admin.key}` } });
        body = await res.text();
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${body.slice(0, 200)}`);
      }
      scrape = {
        medianMs: median(times),
        maxMs: Math.max(...times),
        bytes: Buffer.byteLength(body),
        samples: body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length,
      };
    }
    return {
      rounds: o.rounds,
      rpsOn,
      rpsOff,
      cpuOnUs,
      cpuOffUs,
      costUs: cpuOnUs - cpuOffUs,
      rpsLossPct: ((rpsOff - rpsOn) / rpsOff) * 100,
      hookUs: hookCostUs(),
      scrape,
      errors,
    };
  } finally {
    await on.close();
    await off.close();
  }
}
