/**
 * GET /admin/status.json, /admin/status and /admin on the status world (test/support/ops-status.ts): the
 * JSON is the sampler's snapshot with the live roles and the events of the last 60 minutes; the HTML
 * page shows every number of it, a chart of one 60-point series per source, reloads every 10 s and
 * loads nothing from elsewhere; /admin redirects to the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { analyticsProducts } from '../analytics/products.ts';
import type { StatusDocument } from '../api/routes/admin/status.ts';
import { registry } from '../core/metrics.ts';
import { minuteOf } from '../core/ops/ingest-counts.ts';
import { useChain } from './support/chain.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type StatusWorld, statusWorld } from './support/ops-status.ts';

describe('admin status page', () => {
  const chain = useChain();
  let deps: TestDeps;
  let world: StatusWorld;

  beforeAll(async () => {
    deps = await createTestDeps('admin_status');
    world = await statusWorld(deps, chain.current, {
      polled: ['beta', 'delta'],
      behind: 7,
      quarantine: true,
      waiting: 3,
    });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await deps?.close();
  });

  it('status.json holds the snapshot, the roles alive and 60 minutes of events', async () => {
    const res = await world.app.inject({ url: '/admin/status.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as StatusDocument;
    expect(Object.keys(doc).sort()).toEqual(
      ['events_per_minute', 'generated_at', 'products', 'queues', 'quarantine', 'roles', 'sources'].sort(),
    );
    const s = world.snapshot;
    expect(doc.generated_at).toBe(s.generated_at);
    expect(doc.sources).toEqual(s.sources);
    expect(doc.products).toEqual(s.products);

    const head = Number(await chain.current.rpc<string>('eth_blockNumber'));
    const alpha = doc.sources.find((x) => x.source === 'alpha-chain')!;
    expect(alpha).toMatchObject({ kind: 'chain', head, checkpoint: head - 7, lag_blocks: 7, state: 'ok' });
    expect(doc.sources.map((x) => x.source)).toEqual([
      'alpha-chain',
      'alpha-catalog',
      'beta',
      'beta-feed',
      'gamma',
      'delta',
      'epsilon',
    ]);
    expect(doc.sources.find((x) => x.source === 'beta')).toMatchObject({ kind: 'rest', state: 'ok' });
    expect(doc.sources.find((x) => x.source === 'beta')!.lag_seconds!).toBeLessThan(30);
    // beta's book feed (ingest/feed.ts), never run: no position, stalled.
    expect(doc.sources.find((x) => x.source === 'beta-feed')).toMatchObject({
      kind: 'feed',
      state: 'stalled',
      checkpoint_time: null,
    });
    // Never polled: stalled.
    expect(doc.sources.find((x) => x.source === 'gamma')).toMatchObject({
      state: 'stalled',
      checkpoint_time: null,
    });

    expect(doc.quarantine).toEqual([
      { source: 'beta', kind: 'event', records: 1 },
      { source: 'beta', kind: 'market', records: 2 },
      { source: 'gamma', kind: 'market', records: 1 },
    ]);
    expect(doc.queues.find((q) => q.queue === 'venues')).toEqual({
      queue: 'venues',
      waiting: 3,
      active: 0,
      delayed: 0,
      failed: 0,
      completed: 0,
    });
    expect(doc.products.map((p) => p.product)).toEqual([
      'alpha-market-data',
      'alpha-rolling-metrics',
      'alpha-positions',
      'alpha-profiles',
      'alpha-catalog-lists',
    ]);
    expect(doc.roles).toEqual([expect.objectContaining({ role: 'worker', pid: process.pid })]);

    expect(doc.events_per_minute).toHaveLength(60);
    expect(doc.events_per_minute.at(-1)!.minute).toBe(minuteOf(Date.now()));
    const counts = (ms: number) => doc.events_per_minute.find((m) => m.minute === minuteOf(ms))?.counts;
    expect(counts(world.eventsAt)).toEqual({ beta: 120, 'alpha-chain': 3000 });
    expect(counts(world.eventsAt - 60_000)).toEqual({ beta: 600 });
  });

  it('the HTML page shows every number of status.json, a 60-point series per source, and reloads every 10 s', async () => {
    const doc = (await world.app.inject({ url: '/admin/status.json' })).json() as StatusDocument;
    const res = await world.app.inject({ url: '/admin/status' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const html = res.body;
    expect(html).toContain('<meta http-equiv="refresh" content="10">');
    expect(html).not.toMatch(/<script|<link|src=|url\(|href="http/i);
    const rowOf = (id: string, first: string) => {
      const table = html.slice(
        html.indexOf(`<table id="${id}">`),
        html.indexOf('</table>', html.indexOf(`<table id="${id}">`)),
      );
      const row = table.split('<tr>').find((r) => r.startsWith(`<td>${first}</td>`));
      expect(row, `${id} row ${first}`).toBeDefined();
      return row!;
    };
    for (const s of doc.sources) {
      const row = rowOf('sources', s.source);
      expect(row).toContain(`>${s.state}<`);
      for (const v of [s.head, s.checkpoint, s.lag_blocks, s.lag_seconds])
        if (v !== null) expect(row).toContain(`<td>${v}</td>`);
    }
    for (const p of doc.products) {
      const row = rowOf('products', p.product);
      expect(row).toContain(p.computed_at ?? 'never');
    }
    for (const q of doc.quarantine) {
      const table = html.slice(html.indexOf('<table id="quarantine">'));
      expect(table).toContain(`<tr><td>${q.source}</td><td>${q.kind}</td><td>${q.records}</td></tr>`);
    }
    expect(rowOf('queues', 'venues')).toContain('<td>3</td>');
    expect(rowOf('roles', 'worker')).toContain(`<td>${process.pid}</td>`);
    const series = [
      ...html.matchAll(/<polyline class="series" data-source="([^"]+)"[^>]* points="([^"]+)"/g),
    ];
    expect(series.map((m) => m[1]).sort()).toEqual(doc.sources.map((s) => s.source).sort());
    for (const m of series) expect(m[2]!.trim().split(/\s+/)).toHaveLength(60);
    // The rates drawn: events ÷ 60 for a whole minute (the running minute's over its elapsed seconds).
    const rates = (source: string) =>
      /data-rates="([^"]+)"/
        .exec(html.slice(html.indexOf(`data-source="${source}"`)))![1]!
        .split(' ')
        .map(Number);
    const before = doc.events_per_minute.findIndex((m) => m.minute === minuteOf(world.eventsAt - 60_000));
    expect(rates('beta')[before]).toBe(10);
    expect(rates('alpha-chain')[before]).toBe(0);
    expect(rates('alpha-chain')[before + 1]).toBeGreaterThanOrEqual(50);
    expect(rates('gamma').every((r) => r === 0)).toBe(true);
    expect(html).toContain('events/s');
    expect(html).toContain('minute (UTC)');
  });

  it("the snapshot's gauges on the metric registry carry its numbers", async () => {
    const text = await registry.metrics();
    const doc = (await world.app.inject({ url: '/admin/status.json' })).json() as StatusDocument;
    const alpha = doc.sources.find((x) => x.source === 'alpha-chain')!;
    expect(text).toContain(`pmdata_ingest_head_block{source="alpha-chain"} ${alpha.head}`);
    expect(text).toContain(`pmdata_ingest_checkpoint_block{source="alpha-chain"} ${alpha.checkpoint}`);
    expect(text).toContain('pmdata_ingest_lag_blocks{source="alpha-chain"} 7');
    expect(text).toContain(`pmdata_ingest_lag_seconds{source="alpha-chain"} ${alpha.lag_seconds}`);
    expect(text).toContain('pmdata_quarantine_records{source="beta",kind="market"} 2');
    expect(text).toContain('pmdata_quarantine_records{source="gamma",kind="market"} 1');
    expect(text).toContain('pmdata_jobs{queue="venues",state="waiting"} 3');
    expect(text).toContain('pmdata_jobs{queue="chain",state="failed"} 0');
    // Products never computed have no series.
    expect(text).not.toMatch(/pmdata_analytics_computed_at_seconds\{product="alpha-profiles"\}/);
    expect(text).toContain('# TYPE pmdata_analytics_freshness_seconds gauge');
  });

  it("every product's computedAt answers: null before a run, the run's time after", async () => {
    const products = analyticsProducts(deps.clickhouse);
    for (const p of products) expect(await p.computedAt(), p.product).toBeNull();
    // Rows alone are not a run: the freshness is the run's mark.
    await deps.clickhouse.insert('test.list', 'alpha_market_list', [
      { market_id: 'm1', event_id: 'e1', title: 'x' },
    ]);
    const lists = products.find((p) => p.product === 'alpha-catalog-lists')!;
    expect(await lists.computedAt()).toBeNull();
    const t0 = Date.now();
    await buildAlphaCatalogLists({ clickhouse: deps.clickhouse, log: deps.log });
    const at = await lists.computedAt();
    expect(at).toBeGreaterThanOrEqual(t0);
    expect(at! - t0).toBeLessThan(5_000);
  });

  it('/admin redirects to the status page', async () => {
    const res = await world.app.inject({ url: '/admin' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/admin/status');
  });
});
