/**
 * `GET /v2/alpha/series` and `GET /v2/alpha/series/{slug}` against a synthetic catalog of 300 events
 * built into the lists (analytics/catalog/), compared with the catalog the writer returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import type { AlphaSeries } from '../schemas/api/alpha-catalog.ts';
import { type SyntheticCatalog, syntheticCatalog, writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import {
  type CursorPage,
  pageAll,
  sortedIds,
  type TruthEvent,
  truthEvents,
} from './support/alpha-events-truth.ts';

const NOW = Date.UTC(2026, 9, 15, 12);
const EVENTS = 300;

let t: ApiTestContext;
let key: string;
let cat: SyntheticCatalog;
let truth: TruthEvent[];

interface TruthSeries {
  slug: string;
  recurrence: string;
  events: TruthEvent[];
  open: number;
}
let series: TruthSeries[];

interface ListBody {
  series: AlphaSeries[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
}

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
async function ok<T>(url: string): Promise<T> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

/** Most open events first, then slug. */
const listOrder = (xs: TruthSeries[]) =>
  [...xs]
    .sort((a, b) => b.open - a.open || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
    .map((s) => s.slug);

function truthSeries(c: SyntheticCatalog): TruthSeries[] {
  const byId = new Map(truthEvents(c).map((e) => [e.id, e]));
  return c.series.map((s) => {
    const events = s.eventIds.map((id) => byId.get(id)!);
    return {
      slug: s.slug,
      recurrence: s.recurrence,
      events,
      open: events.filter((e) => e.status === 'open').length,
    };
  });
}

beforeAll(async () => {
  // The first seed whose catalog holds an inactive series (no open event) besides active ones: the
  // `active` filter must have something to leave out.
  let seed = '';
  for (let i = 0; i < 500 && seed === ''; i++) {
    const s = truthSeries(syntheticCatalog({ seed: `series-api-${i}`, events: EVENTS, now: NOW }));
    if (s.some((x) => x.open === 0) && s.filter((x) => x.open > 0).length > 4) seed = `series-api-${i}`;
  }
  expect(seed).not.toBe('');
  t = await createApiTestContext('api_alpha_series');
  key = await t.key('enterprise', 100_000);
  cat = await writeSyntheticCatalog(t.deps.clickhouse, { seed, events: EVENTS, now: NOW });
  await buildAlphaCatalogLists({ clickhouse: t.deps.clickhouse, log: t.deps.log }, { now: NOW });
  truth = truthEvents(cat);
  series = truthSeries(cat);
});
afterAll(async () => t?.close());

describe('GET /v2/alpha/series', () => {
  it('lists the active series by open events, then slug, 50 per page, with total and has_more', async () => {
    const active = series.filter((s) => s.open > 0);
    const body = await ok<ListBody>('/v2/alpha/series');
    expect(body.series.map((s) => s.slug)).toEqual(listOrder(active));
    expect(body.pagination).toEqual({ limit: 50, offset: 0, total: active.length, has_more: false });
    const bySlug = new Map(series.map((s) => [s.slug, s]));
    for (const s of body.series) {
      const x = bySlug.get(s.slug)!;
      expect(s).toMatchObject({
        recurrence: x.recurrence,
        active: true,
        event_count: x.events.length,
        open_event_count: x.open,
      });
    }
  });

  it('includes inactive series with active=false', async () => {
    const inactive = series.filter((s) => s.open === 0);
    expect(inactive.length).toBeGreaterThan(0);
    const body = await ok<ListBody>('/v2/alpha/series?active=false');
    expect(body.series.map((s) => s.slug)).toEqual(listOrder(series));
    expect(body.pagination.total).toBe(series.length);
    const flags = new Map(body.series.map((s) => [s.slug, s.active]));
    for (const s of inactive) expect(flags.get(s.slug)).toBe(false);
    expect((await ok<ListBody>('/v2/alpha/series?active=true')).series.length).toBe(
      series.length - inactive.length,
    );
  });

  it('filters by recurrence', async () => {
    for (const r of ['daily', 'weekly', 'monthly']) {
      const want = series.filter((s) => s.recurrence === r);
      const all = await ok<ListBody>(`/v2/alpha/series?recurrence=${r}&active=false`);
      expect(
        all.series.map((s) => s.slug),
        r,
      ).toEqual(listOrder(want));
      const active = await ok<ListBody>(`/v2/alpha/series?recurrence=${r}`);
      expect(
        active.series.map((s) => s.slug),
        r,
      ).toEqual(listOrder(want.filter((s) => s.open > 0)));
      expect(active.pagination.total).toBe(want.filter((s) => s.open > 0).length);
    }
  });

  it('pages by limit and offset: total stays, has_more is exact, the pages join into the whole order', async () => {
    const whole = listOrder(series);
    const got: string[] = [];
    for (let offset = 0; offset < whole.length; offset += 4) {
      const body = await ok<ListBody>(`/v2/alpha/series?active=false&limit=4&offset=${offset}`);
      expect(body.pagination).toEqual({
        limit: 4,
        offset,
        total: whole.length,
        has_more: offset + 4 < whole.length,
      });
      got.push(...body.series.map((s) => s.slug));
    }
    expect(got).toEqual(whole);
    const past = await ok<ListBody>(`/v2/alpha/series?active=false&offset=${whole.length + 3}`);
    expect(past.series).toEqual([]);
    expect(past.pagination).toMatchObject({ total: whole.length, has_more: false });
  });

  it('accepts limit 1 and 200', async () => {
    expect((await ok<ListBody>('/v2/alpha/series?active=false&limit=1')).series).toHaveLength(1);
    expect((await ok<ListBody>('/v2/alpha/series?active=false&limit=200')).series).toHaveLength(
      series.length,
    );
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['offset=-1', 'offset'],
    ['recurrence=yearly', 'recurrence'],
    ['active=sometimes', 'active'],
  ])('answers 422 for %s', async (qs, param) => {
    const res = await get(`/v2/alpha/series?${qs}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc[1])).toContain(param);
  });
});

describe('GET /v2/alpha/series/{slug}', () => {
  /** A series with both open and closed events, and more than two events. */
  const mixed = () => series.find((s) => s.open > 0 && s.open < s.events.length && s.events.length > 2)!;

  it('answers the series and its events newest first, each once across pages, markets null', async () => {
    const s = mixed();
    const first = await ok<CursorPage & { series: AlphaSeries }>(`/v2/alpha/series/${s.slug}`);
    expect(first.series).toMatchObject({
      slug: s.slug,
      recurrence: s.recurrence,
      event_count: s.events.length,
    });
    expect(first.pagination).toMatchObject({ limit: 50, count: s.events.length, has_more: false });
    expect(first.events.map((e) => e.id)).toEqual(sortedIds(s.events, 'created'));
    expect(first.events.every((e) => e.markets === null && e.series.some((x) => x.slug === s.slug))).toBe(
      true,
    );
    const paged = await pageAll(get, `/v2/alpha/series/${s.slug}`, 2);
    expect(paged.map((e) => e.id)).toEqual(sortedIds(s.events, 'created'));
  });

  it('filters its events by status', async () => {
    const s = mixed();
    for (const status of ['open', 'closed'] as const) {
      const got = await pageAll(get, `/v2/alpha/series/${s.slug}?status=${status}`, 1);
      expect(
        got.map((e) => e.id),
        status,
      ).toEqual(
        sortedIds(
          s.events.filter((e) => e.status === status),
          'created',
        ),
      );
    }
  });

  it('answers an inactive series too', async () => {
    const s = series.find((x) => x.open === 0)!;
    const body = await ok<CursorPage & { series: AlphaSeries }>(`/v2/alpha/series/${s.slug}?status=open`);
    expect(body.series).toMatchObject({ slug: s.slug, active: false });
    expect(body.events).toEqual([]);
  });

  it('answers 404 with the general error body for an unknown slug', async () => {
    const res = await get('/v2/alpha/series/no-such-series');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not Found', message: expect.stringContaining('no-such-series') });
  });

  it('answers 400 for a cursor reused with another status or another series', async () => {
    const s = mixed();
    const other = series.find((x) => x.slug !== s.slug && x.events.length > 0)!;
    const first = await ok<CursorPage>(`/v2/alpha/series/${s.slug}?limit=1`);
    const k = encodeURIComponent(first.pagination.pagination_key!);
    for (const url of [
      `/v2/alpha/series/${s.slug}?limit=1&status=open&pagination_key=${k}`,
      `/v2/alpha/series/${other.slug}?limit=1&pagination_key=${k}`,
      `/v2/alpha/events/keyset?limit=1&pagination_key=${k}`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toContain('other filters or sort');
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['status=resolved', 'status'],
  ])('answers 422 for %s', async (qs, param) => {
    const s = mixed();
    const res = await get(`/v2/alpha/series/${s.slug}?${qs}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc[1])).toContain(param);
  });

  it('accepts limit 200', async () => {
    const s = mixed();
    const body = await ok<CursorPage>(`/v2/alpha/series/${s.slug}?limit=200`);
    expect(body.pagination).toMatchObject({ limit: 200, count: s.events.length, has_more: false });
    expect(truth.length).toBe(EVENTS);
  });
});
