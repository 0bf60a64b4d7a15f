/**
 * `GET /v2/data/ticks` and its part URLs over days compacted from rows inserted into beta_book_ticks:
 * the answer's shape and parts, the selectors' rules (one of three, ≤ 31 days, no venue → 422), not_final
 * and not_available, market_id pruning, the signed URLs (no key; expired or altered → 403; HEAD; Range →
 * 206), one charge per request and key in 24 h shown by `pmdata keys usage`, and the route in /openapi.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactFinalDays } from '../analytics/ticks/compact.ts';
import { createPartUrlSigner } from '../api/ticks/urls.ts';
import { runKeysCommand } from '../jobs/commands/keys.ts';
import type { DataTicksResponse } from '../schemas/api/data-ticks.ts';
import { DAY_MS, ticksSettings } from '../schemas/ticks.ts';
import { TICK_DATASETS } from '../schemas/venues/index.ts';
import { type ApiTestContext, createApiTestContext, TEST_SECRET } from './api-helpers.ts';
import { insertTicks, tickHistory } from './support/ticks.ts';

const DAY = Date.UTC(2026, 8, 20);
const DATE = '2026-09-20';
const BEFORE = '2026-09-19';
const AFTER = '2026-09-21';
const TICKERS = ['KXA-T1', 'KXB-T2', 'KXC-T3', 'KXD-T4', 'KXE-T5'];

let t: ApiTestContext;
let key: string;

beforeAll(async () => {
  t = await createApiTestContext('api_data_ticks', {
    env: { TICKS_PART_ROWS: '300', TICKS_FINAL_GRACE_S: '300', TICKS_URL_TTL_S: '600' },
  });
  // From noon the day before to 01:00 the day after: the day before and the day are final.
  const history = tickHistory({
    tickers: TICKERS,
    from: DAY - 12 * 3_600_000,
    to: DAY + DAY_MS + 3_600_000,
    messages: 300,
    seed: 3,
  });
  await insertTicks(t.deps.clickhouse, history.rows);
  const settings = ticksSettings(t.deps.config);
  const run = await compactFinalDays(
    { clickhouse: t.deps.clickhouse, log: t.deps.log, settings },
    TICK_DATASETS,
  );
  expect(run.days.map((d) => `${d.dataset} ${d.date}`)).toEqual([`beta ${BEFORE}`, `beta ${DATE}`]);
  key = await t.key('enterprise', 10_000);
});
afterAll(async () => t?.close());

const get = (url: string, headers: Record<string, string> = { 'x-api-key': key }) =>
  t.app.inject({ method: 'GET', url, headers });
const ticks = async (query: string, k = key) => {
  const res = await get(`/v2/data/ticks?${query}`, { 'x-api-key': k });
  return { status: res.statusCode, body: res.json() };
};
/** The path and query of a part URL (the app is injected, not listening). */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describe('GET /v2/data/ticks', () => {
  it('answers a final day: its parts, schema, sort order, totals and price', async () => {
    const { status, body } = await ticks(`venue=beta&date=${DATE}`, await t.key('free'));
    expect(status, JSON.stringify(body)).toBe(200);
    const b = body as DataTicksResponse;
    expect(b).toMatchObject({ venue: 'beta', status: 'final', format: 'parquet', compression: 'zstd' });
    expect(b.sort_order).toEqual(['ticker', 'timestamp', 'sequence', 'side', 'price']);
    expect(b.schema.map((c) => c.name)).toEqual([
      'ticker',
      'timestamp',
      'sequence',
      'side',
      'price',
      'delta',
      'is_snapshot',
      'resync',
    ]);
    expect(b.parts.length).toBeGreaterThan(2);
    expect(b.total_rows).toBe(b.parts.reduce((n, p) => n + p.rows, 0));
    expect(b.total_bytes).toBe(b.parts.reduce((n, p) => n + p.bytes, 0));
    expect(b.price_usd).toBeCloseTo((b.total_bytes / 2 ** 30) * 80, 6);
    expect(b.price_usd).toBeGreaterThan(0);
    expect(b.charged_usd).toBe(b.price_usd);
    expect(b.reused).toBe(false);
    const dir = ticksSettings(t.deps.config).dir;
    for (const [i, p] of b.parts.entries()) {
      expect(p.rows).toBeLessThanOrEqual(300);
      expect(p.ts_min).toBeGreaterThanOrEqual(DAY);
      expect(p.ts_max).toBeLessThan(DAY + DAY_MS);
      // Served without a key: the file's bytes.
      const res = await t.app.inject({ method: 'GET', url: local(p.url) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
      const file = fs.readFileSync(path.join(dir, `beta/${DATE}/part-${String(i).padStart(5, '0')}.parquet`));
      expect(res.rawPayload.equals(file)).toBe(true);
      expect(p.bytes).toBe(file.length);
      expect(Date.parse(p.expires_at) - Date.now()).toBeGreaterThan(590_000);
    }
  });

  it('charges a request once per key in 24 h, the same request written otherwise too, shown by keys usage', async () => {
    const k = await t.keys.create({ tier: 'enterprise', name: 'ticks-buyer', rate: 10_000 });
    const first = (await ticks(`venue=beta&date=${DATE}`, k.key)).body as DataTicksResponse;
    expect(first.reused).toBe(false);
    expect(first.charged_usd).toBe(first.price_usd);
    const again = (await ticks(`venue=beta&start_date=${DATE}&end_date=${DATE}`, k.key))
      .body as DataTicksResponse;
    expect(again).toMatchObject({ reused: true, charged_usd: 0, price_usd: first.price_usd });
    expect(again.parts.map((p) => p.bytes)).toEqual(first.parts.map((p) => p.bytes));
    // Another request is another charge.
    const both = (await ticks(`venue=beta&start_date=${BEFORE}&end_date=${DATE}`, k.key))
      .body as DataTicksResponse;
    expect(both.reused).toBe(false);
    expect(both.total_bytes).toBeGreaterThan(first.total_bytes);

    const lines: string[] = [];
    expect(
      await runKeysCommand(['usage', k.record.id], { redis: t.deps.redis, out: (l) => lines.push(l) }),
    ).toBe(0);
    const [head, row] = lines
      .at(-1)!
      .split('\n')
      .map((l) => l.split(/\s{2,}/));
    const col = (name: string) => row![head!.indexOf(name)];
    expect(col('TICK_REQUESTS')).toBe('3');
    const bytes = first.total_bytes + both.total_bytes;
    expect(col('TICK_GIB')).toBe((bytes / 2 ** 30).toFixed(6));
    expect(Number(col('TICK_USD')!.slice(1))).toBeCloseTo(first.price_usd + both.price_usd, 6);
  });

  it('keeps the parts whose ticker range holds a market_id, and those of a time range', async () => {
    const all = (await ticks(`venue=beta&date=${DATE}`)).body as DataTicksResponse;
    const one = (await ticks(`venue=beta&date=${DATE}&market_id=KXC-T3`)).body as DataTicksResponse;
    expect(one.parts.length).toBeGreaterThan(0);
    expect(one.parts.length).toBeLessThan(all.parts.length);
    expect(one.parts.every((p) => p.id_min <= 'KXC-T3' && 'KXC-T3' <= p.id_max)).toBe(true);
    expect(all.parts.filter((p) => p.id_min <= 'KXC-T3' && 'KXC-T3' <= p.id_max).map((p) => p.bytes)).toEqual(
      one.parts.map((p) => p.bytes),
    );
    const none = (await ticks(`venue=beta&date=${DATE}&market_id=ZZZ`)).body as DataTicksResponse;
    expect(none).toMatchObject({ parts: [], total_bytes: 0, price_usd: 0 });
    const timed = (await ticks(`venue=beta&start_time=${DAY}&end_time=${DAY + DAY_MS - 1}`))
      .body as DataTicksResponse;
    expect(timed.parts.map((p) => p.bytes)).toEqual(all.parts.map((p) => p.bytes));
    const ids = Array.from({ length: 51 }, (_, i) => `T${i}`).join(',');
    const many = await ticks(`venue=beta&date=${DATE}&market_id=${ids}`);
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/at most 50/);
  });

  it('answers 404 not_final after the latest final day and not_available before the first', async () => {
    const after = await ticks(`venue=beta&date=${AFTER}`);
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ error: 'Not Found', code: 'not_final', latest_final_date: DATE });
    const range = await ticks(`venue=beta&start_date=${DATE}&end_date=${AFTER}`);
    expect(range.body).toMatchObject({ code: 'not_final', latest_final_date: DATE });
    const before = await ticks('venue=beta&date=2026-09-18');
    expect(before.status).toBe(404);
    expect(before.body).toMatchObject({ code: 'not_available', first_date: BEFORE });
    // A dataset with no final day yet.
    const none = await ticks(`venue=beta_snapshots&date=${DATE}`);
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: 'not_final', latest_final_date: null });
  });

  it('refuses two selectors, none, half a range, 32 days (400 naming the rule) and no venue (422)', async () => {
    const two = await ticks(`venue=beta&date=${DATE}&start_time=${DAY}&end_time=${DAY + 1}`);
    expect(two.status).toBe(400);
    expect(two.body.message).toMatch(/exactly one of date, start_date\+end_date, start_time\+end_time/);
    expect((await ticks('venue=beta')).body.message).toMatch(/exactly one of/);
    expect((await ticks(`venue=beta&start_date=${DATE}`)).body.message).toMatch(
      /start_date and end_date go together/,
    );
    const long = await ticks('venue=beta&start_date=2026-08-20&end_date=2026-09-20');
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/at most 31 days; this one covers 32/);
    expect((await ticks('venue=beta&start_date=2026-08-21&end_date=2026-09-20')).status).not.toBe(400);
    const noVenue = await ticks(`date=${DATE}`);
    expect(noVenue.status).toBe(422);
    expect(noVenue.body.detail[0].loc).toEqual(['query', 'venue']);
    expect((await ticks(`venue=gamma&date=${DATE}`)).status).toBe(422);
    expect((await ticks('venue=beta&date=2026-02-30')).status).toBe(400);
    expect((await get(`/v2/data/ticks?venue=beta&date=${DATE}`, {})).statusCode).toBe(401);
  });
});

describe('tick part URLs', () => {
  let url: string;
  let size: number;
  let file: Buffer;
  beforeAll(async () => {
    const b = (await ticks(`venue=beta&date=${DATE}`)).body as DataTicksResponse;
    url = local(b.parts[0]!.url);
    size = b.parts[0]!.bytes;
    file = fs.readFileSync(path.join(ticksSettings(t.deps.config).dir, `beta/${DATE}/part-00000.parquet`));
  });

  it('refuses an expired URL and an altered one (403)', async () => {
    const signer = createPartUrlSigner(TEST_SECRET);
    const rel = `beta/${DATE}/part-00000.parquet`;
    const expired = await t.app.inject({
      method: 'GET',
      url: signer.sign(rel, Math.floor(Date.now() / 1000) - 1),
    });
    expect(expired.statusCode).toBe(403);
    expect(expired.json().message).toMatch(/expired/);
    const valid = await t.app.inject({
      method: 'GET',
      url: signer.sign(rel, Math.floor(Date.now() / 1000) + 60),
    });
    expect(valid.statusCode).toBe(200);
    const u = new URL(url, 'http://x');
    const sig = u.searchParams.get('signature')!;
    const forged = `${u.pathname}?expires=${u.searchParams.get('expires')}&signature=${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    expect((await t.app.inject({ method: 'GET', url: forged })).statusCode).toBe(403);
    const later = `${u.pathname}?expires=${Number(u.searchParams.get('expires')) + 3600}&signature=${sig}`;
    expect((await t.app.inject({ method: 'GET', url: later })).statusCode).toBe(403);
    const other = `${u.pathname.replace('part-00000', 'part-00001')}${u.search}`;
    expect((await t.app.inject({ method: 'GET', url: other })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: u.pathname })).statusCode).toBe(403);
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(size));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.rawPayload.length).toBe(0);
  });

  it('answers a byte range with 206 and Content-Range, an unsatisfiable one with 416', async () => {
    const part = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=4-103' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 4-103/${size}`);
    expect(part.rawPayload.equals(file.subarray(4, 104))).toBe(true);
    const tail = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=-8' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-range']).toBe(`bytes ${size - 8}-${size - 1}/${size}`);
    // A Parquet file ends with its magic.
    expect(tail.rawPayload.subarray(4).toString()).toBe('PAR1');
    const from = await t.app.inject({ method: 'GET', url, headers: { range: `bytes=${size - 4}-` } });
    expect(from.rawPayload.toString()).toBe('PAR1');
    const head = await t.app.inject({ method: 'HEAD', url, headers: { range: 'bytes=0-9' } });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-length']).toBe('10');
    const out = await t.app.inject({ method: 'GET', url, headers: { range: `bytes=${size}-` } });
    expect(out.statusCode).toBe(416);
    expect(out.headers['content-range']).toBe(`bytes */${size}`);
  });

  it('lists the route in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toContain('/v2/data/ticks');
    expect(doc.paths['/v2/data/ticks'].get.parameters.map((p: { name: string }) => p.name)).toContain(
      'venue',
    );
  });
});
