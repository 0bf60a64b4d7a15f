import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadValidators, startWorld, type World } from './sim-replicas-support.ts';

let w: World;

beforeAll(async () => {
  w = await startWorld('fault-seed');
});

afterEach(() => {
  w.replicas.faults.clear();
});

afterAll(async () => {
  await w?.replicas.close();
});

async function get(url: string, timeoutMs = 10_000) {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
}

describe('replica faults', () => {
  it('a queued rate_limit answers 429 with Retry-After once, then the next request succeeds', async () => {
    w.replicas.faults.enqueue('beta', { kind: 'rate_limit', retryAfterS: 7 });
    const first = await get(`${w.replicas.urls.beta}/markets?limit=1`);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    const second = await get(`${w.replicas.urls.beta}/markets?limit=1`);
    expect(second.status).toBe(200);
    expect(w.replicas.faults.injected('beta').rate_limit).toBe(1);
  });

  it('a queued server_error answers the configured 5xx only on the matching path', async () => {
    w.replicas.faults.enqueue('alpha_metadata', { kind: 'server_error', status: 502, path: '/events' });
    expect((await get(`${w.replicas.urls.alpha_metadata}/markets?limit=1`)).status).toBe(200);
    const hit = await get(`${w.replicas.urls.alpha_metadata}/events?limit=1`);
    expect(hit.status).toBe(502);
    expect(hit.body).toEqual({ type: 'internal error', error: 'cannot get the information' });
    expect((await get(`${w.replicas.urls.alpha_metadata}/events?limit=1`)).status).toBe(200);
  });

  it('a hang never answers until the client gives up; with delayMs it answers late', async () => {
    w.replicas.faults.enqueue('gamma', { kind: 'hang' });
    const t0 = performance.now();
    await expect(get(`${w.replicas.urls.gamma}/markets/active`, 300)).rejects.toThrow();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    w.replicas.faults.enqueue('gamma', { kind: 'hang', delayMs: 250 });
    const t1 = performance.now();
    const late = await get(`${w.replicas.urls.gamma}/markets/active`);
    expect(late.status).toBe(200);
    expect(performance.now() - t1).toBeGreaterThanOrEqual(240);
  });

  it('a malformed record violates its upstream schema while the rest of the page stays valid', async () => {
    const v = loadValidators();
    const url = `${w.replicas.urls.beta}/markets/trades?limit=5`;
    const clean = await get(url);
    expect(v.beta.validate('/markets/trades', 'get', 200, clean.body)).toEqual([]);
    w.replicas.faults.enqueue('beta', { kind: 'malformed' });
    const bad = (await get(url)).body as { trades: Record<string, unknown>[] };
    const errors = v.beta.validate('/markets/trades', 'get', 200, bad) ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.instancePath.startsWith('/trades/0/'))).toBe(true);
    expect(bad.trades).toHaveLength(5);
  });

  it('duplicate_page serves the previous page again and overlap_page half of it, while the offset advances', async () => {
    const base = `${w.replicas.urls.alpha_metadata}/markets?limit=4`;
    const ids = async (offset: number) =>
      ((await get(`${base}&offset=${offset}`)).body as { id: string }[]).map((m) => m.id);
    const page1 = await ids(0);
    const page2 = await ids(4);
    expect(page2).not.toEqual(page1);
    w.replicas.faults.enqueue('alpha_metadata', { kind: 'duplicate_page' });
    expect(await ids(4)).toEqual(page1);
    w.replicas.faults.enqueue('alpha_metadata', { kind: 'overlap_page' });
    expect(await ids(4)).toEqual([...page1.slice(2), ...page2.slice(0, 2)]);
  });

  it('duplicate_page on a cursor-paged endpoint repeats trades but the cursor still moves on', async () => {
    const base = `${w.replicas.urls.beta}/markets/trades?limit=3`;
    const page = async (cursor?: string) =>
      (await get(cursor ? `${base}&cursor=${cursor}` : base)).body as {
        trades: { trade_id: string }[];
        cursor: string;
      };
    const p1 = await page();
    const p2 = await page(p1.cursor);
    w.replicas.faults.enqueue('beta', { kind: 'duplicate_page' });
    const dup = await page(p1.cursor);
    expect(dup.trades.map((t) => t.trade_id)).toEqual(p1.trades.map((t) => t.trade_id));
    expect(dup.cursor).toBe(p2.cursor);
  });

  it('rate-based faults are drawn from a seeded sequence: the same rates give the same faults', async () => {
    const statuses = async () => {
      w.replicas.faults.set('delta', { rate429: 0.3, rate5xx: 0.2 });
      const out: number[] = [];
      for (let i = 0; i < 30; i++) out.push((await get(`${w.replicas.urls.delta}/quoteToken`)).status);
      return out;
    };
    const a = await statuses();
    const b = await statuses();
    expect(a).toEqual(b);
    expect(a.filter((s) => s === 429).length).toBeGreaterThan(2);
    expect(a.filter((s) => s >= 500).length).toBeGreaterThan(1);
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(5);
    w.replicas.faults.clear('delta');
    expect((await get(`${w.replicas.urls.delta}/quoteToken`)).status).toBe(200);
  });
});
