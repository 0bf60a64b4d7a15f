import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../../core/errors.ts';
import { createHttpClient, HttpPermanentError, HttpRetryableError, retryAfterMs } from './client.ts';

/** A real HTTP server answering from a script: one entry per request, then 200 {"ok":true}. */
interface Step {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
  /** Headers at once, the body this many ms later. */
  bodyDelayMs?: number;
}
let script: Step[] = [];
let arrivals: { path: string; at: number }[] = [];
let clock = 0;
let server: http.Server;
let base: string;
const hanging = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    arrivals.push({ path: req.url ?? '', at: clock });
    const step = script.shift() ?? {};
    if (step.hang) {
      hanging.add(res);
      return;
    }
    res.writeHead(step.status ?? 200, { 'content-type': 'application/json', ...step.headers });
    const body = step.body ?? JSON.stringify({ ok: true, path: req.url });
    if (step.bodyDelayMs === undefined) res.end(body);
    else {
      res.flushHeaders();
      setTimeout(() => res.end(body), step.bodyDelayMs);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  script = [];
  arrivals = [];
  clock = 1_000_000;
  for (const r of hanging) r.destroy();
  hanging.clear();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A client on a virtual clock: sleeping advances it, and each wait is recorded. */
function client(extra: Partial<Parameters<typeof createHttpClient>[0]> = {}) {
  const sleeps: number[] = [];
  const c = createHttpClient({
    baseUrl: base,
    timeoutMs: 2_000,
    maxAttempts: 4,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...extra,
  });
  return { c, sleeps };
}

describe('http client', () => {
  it('retries 5xx with jittered exponential backoff and returns the JSON of the first success', async () => {
    script = [{ status: 502 }, { status: 503 }, { status: 500 }];
    const { c, sleeps } = client({ random: () => 1 });
    expect(await c.getJson('/x', { a: 1, ids: ['p', 'q'] })).toEqual({
      ok: true,
      path: '/x?a=1&ids=p&ids=q',
    });
    expect(arrivals).toHaveLength(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('draws each backoff uniformly below its cap (full jitter)', async () => {
    script = [{ status: 503 }, { status: 503 }];
    const draws = [0.5, 0.25];
    const { c, sleeps } = client({ random: () => draws.shift() ?? 0 });
    await c.getJson('/x');
    expect(sleeps).toEqual([50, 50]);
  });

  it('gives up after maxAttempts with a retryable error naming the URL', async () => {
    script = Array.from({ length: 10 }, () => ({ status: 503 }));
    const { c } = client();
    const err = await c.getJson('/events', { offset: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpRetryableError);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toContain(`${base}/events?offset=500`);
    expect(arrivals).toHaveLength(4);
  });

  it('waits at least Retry-After seconds after a 429 before any request', async () => {
    script = [{ status: 429, headers: { 'retry-after': '7' } }];
    const { c } = client({ random: () => 0 });
    const t0 = clock;
    await c.getJson('/a');
    expect(arrivals.map((a) => a.at)).toEqual([t0, t0 + 7_000]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    clock = Date.parse('2026-04-01T00:00:00Z');
    const t0 = clock;
    script = [{ status: 429, headers: { 'retry-after': 'Wed, 01 Apr 2026 00:00:03 GMT' } }];
    const { c } = client({ random: () => 0 });
    await c.getJson('/a');
    expect(arrivals[1]!.at).toBeGreaterThanOrEqual(t0 + 3_000);
    expect(retryAfterMs('Wed, 01 Apr 2026 00:00:03 GMT', t0)).toBe(3_000);
    expect(retryAfterMs('garbage', t0)).toBeNull();
  });

  it('holds back other calls of the same client until the Retry-After has passed', async () => {
    // A real clock here: two calls in flight at once, the second must not slip in before the deadline.
    const stamps: number[] = [];
    const rec = createHttpClient({
      baseUrl: base,
      timeoutMs: 2_000,
      random: () => 0,
      fetch: (input, init) => {
        stamps.push(Date.now());
        return fetch(input, init);
      },
    });
    script = [{ status: 429, headers: { 'retry-after': '1' } }];
    const first = rec.getJson('/a');
    await new Promise((r) => setTimeout(r, 50));
    const second = rec.getJson('/b');
    await Promise.all([first, second]);
    expect(stamps).toHaveLength(3);
    // The 429 came back in a few ms; both later requests left at least 1 s after the first.
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(1_000);
    expect(stamps[2]! - stamps[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('counts Retry-After from the headers of a 429: a call made while its body arrives waits too', async () => {
    const stamps: { path: string; at: number }[] = [];
    const rec = createHttpClient({
      baseUrl: base,
      timeoutMs: 2_000,
      random: () => 0,
      fetch: async (input, init) => {
        stamps.push({ path: new URL(String(input)).pathname, at: Date.now() });
        const res = await fetch(input, init);
        if (res.status === 429) headersAt = Date.now();
        return res;
      },
    });
    let headersAt = 0;
    script = [{ status: 429, headers: { 'retry-after': '1' }, bodyDelayMs: 300 }];
    const first = rec.getJson('/a');
    while (headersAt === 0) await new Promise((r) => setTimeout(r, 5));
    // The 429's headers are in, its body is not: a call now must still wait out the Retry-After.
    const second = rec.getJson('/b');
    await Promise.all([first, second]);
    // Both the retry of /a and /b wait for the same instant: which of the two leaves first is the timers'.
    expect(stamps[0]!.path).toBe('/a');
    const rest = stamps.slice(1).map((x) => x.path);
    expect(rest.sort()).toEqual(['/a', '/b']);
    expect(stamps[1]!.at - headersAt).toBeGreaterThanOrEqual(999);
    expect(stamps[2]!.at - headersAt).toBeGreaterThanOrEqual(999);
  });

  it('fails at once when Retry-After exceeds what it may wait', async () => {
    script = [{ status: 429, headers: { 'retry-after': '3600' } }];
    const { c, sleeps } = client({ maxRetryAfterMs: 60_000 });
    await expect(c.getJson('/a')).rejects.toBeInstanceOf(HttpRetryableError);
    expect(sleeps).toEqual([]);
    expect(arrivals).toHaveLength(1);
  });

  it('does not retry other 4xx: a permanent error with the status', async () => {
    script = [{ status: 404, body: '{"error":"id not found"}' }];
    const { c } = client();
    const err = await c.getJson('/events/1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpPermanentError);
    expect((err as HttpPermanentError).status).toBe(404);
    expect(arrivals).toHaveLength(1);
  });

  it('retries a request that times out, each attempt bounded by the timeout', async () => {
    script = [{ hang: true }];
    const { c } = client({ timeoutMs: 150 });
    const t0 = performance.now();
    expect(await c.getJson('/slow')).toEqual({ ok: true, path: '/slow' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(arrivals).toHaveLength(2);
  });

  it('retries network errors, then fails retryable', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { c, sleeps } = client({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(c.getJson('/x')).rejects.toBeInstanceOf(HttpRetryableError);
    expect(sleeps).toHaveLength(3);
  });

  it('retries a 200 whose body is not JSON', async () => {
    script = [{ body: '[{"id":' }];
    const { c } = client();
    expect(await c.getJson('/x')).toEqual({ ok: true, path: '/x' });
  });

  it('posts JSON bodies', async () => {
    const { c } = client();
    expect(await c.postJson('/books', [{ token_id: '1' }])).toEqual({ ok: true, path: '/books' });
  });

  it("gives the answer's Date with its body (getJsonDated), after retries the Date of the answer served", async () => {
    const world = Date.UTC(2026, 3, 1, 12, 0, 7);
    script = [{ status: 503 }, { headers: { date: new Date(world).toUTCString() } }];
    const { c } = client();
    expect(await c.getJsonDated('/x')).toEqual({ body: { ok: true, path: '/x' }, date: world });
  });

  it("keeps the upstream's clock: its Date when over 5 s from the wall clock, strictly increasing", async () => {
    const { c } = client({ baseUrl: `${base}/clock-a` });
    expect(c.clock()).toBe(1_000_000); // no answer yet: the wall clock
    const world = Date.UTC(2026, 3, 1, 12);
    script = [{ headers: { date: new Date(world).toUTCString() } }];
    await c.getJson('/x');
    expect(c.clock()).toBe(world);
    expect(c.clock()).toBe(world + 1); // the world stands still, the clock does not give a time twice
    clock += 250;
    expect(c.clock()).toBe(world + 250);
    // A Date within 5 s of the wall clock (whole seconds, a little latency) is the wall clock.
    const near = createHttpClient({ baseUrl: `${base}/clock-b`, timeoutMs: 2_000, now: () => clock });
    script = [{ headers: { date: new Date(clock + 2_000).toUTCString() } }];
    await near.getJson('/x');
    expect(near.clock()).toBe(clock);
  });
});
