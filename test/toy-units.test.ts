/**
 * A venue and a product are units (docs/contributing.md): a toy venue declared with `defineVenue` and a
 * toy product declared with `defineProduct`, put in TEMPORARY lists, get everything from the same
 * derivations the real lists go through — the venue's jobs and schedules (jobs/venues.ts `restVenue`,
 * `deriveVenues`), its stream run by the runner (rows written, a watermark committed), its
 * `/v2/toy/markets` from the resource factory (api/resources/venue-markets.ts); the product's job, schedule
 * and lease (jobs/products.ts `productRegistry`), its run enqueued by the venue's committed watermark, and
 * its place in `pmdata recompute` (after its inputs). Nothing of the real lists is edited. Real chDB and
 * Redis; the toy's tables are created here (a real venue's come from a migration).
 */
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitRun } from '../analytics/shared/chain.ts';
import { defineProduct, dependencyOrder, type ProductPayload } from '../analytics/shared/product.ts';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { venueMarketsResource } from '../api/resources/venue-markets.ts';
import { c, defineTable } from '../core/clickhouse/table.ts';
import { defineConfigSection } from '../core/config.ts';
import { createDataVersions } from '../core/data-version.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { defineStream, defineVenue, runStream } from '../ingest/rest/runner.ts';
import type { JobContext } from '../jobs/define.ts';
import { productRegistry, recomputeProduct } from '../jobs/products.ts';
import { deriveVenues, restVenue, VENUE_JOBS } from '../jobs/venues.ts';
import { listColumns, marketList, venueContract } from '../schemas/venues/contract.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const TOY_MARKETS = defineTable('toy_markets', {
  id: c.text,
  title: c.text,
  price: c.f64,
  content_hash: c.hex(),
  observed_at: c.time,
});
const TOY_TOTALS = defineTable('toy_totals', { markets: c.u32, price_sum: c.f64, version: c.u64 });

/** The toy upstream: a push source, an in-process queue of market messages. */
type ToyMessage = {
  id: string;
  title: string;
  price: number;
};
function toyClient(messages: ToyMessage[][]) {
  return {
    async *feed(): AsyncIterable<ToyMessage[]> {
      for (const batch of messages.splice(0)) yield batch;
    },
  };
}
type ToyClient = ReturnType<typeof toyClient>;
const upstream: ToyMessage[][] = [];

interface ToySummary {
  mode: 'push';
  read: number;
  written: number;
  quarantined: number;
  requests: number;
  rereads: number;
  ms: number;
}

const toy = defineVenue({
  code: 'toy',
  source: 'toy',
  config: defineConfigSection('toy', {}),
  client: (): ToyClient => toyClient(upstream),
  streams: [
    defineStream({
      name: 'markets',
      modes: ['push'] as const,
      leases: () => ['toy:markets:lease'],
      every: [{ id: 'toy:markets-push', mode: 'push', everyMs: () => 5_000 }],
      summary: (): ToySummary => ({
        mode: 'push',
        read: 0,
        written: 0,
        quarantined: 0,
        requests: 0,
        rereads: 0,
        ms: 0,
      }),
      async *read(client: ToyClient, ctx) {
        for await (const batch of client.feed()) {
          ctx.account({ requests: 1, rereads: 0, invalid: [] });
          yield batch;
        }
      },
      rows: (batch: ToyMessage[]) => ({ toy_markets: batch }),
      tables: [{ table: TOY_MARKETS, key: 'id', counts: (s: ToySummary) => s }],
      marks: (ctx) => [{ stream: 'markets', time: ctx.observedAt() }],
    }),
  ],
});

const TOY_CONTRACT = venueContract({
  code: 'toy',
  name: 'Toy',
  tables: { markets: TOY_MARKETS },
  list: marketList({
    about: 'The toy venue’s markets.',
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
    response: Type.Object({
      markets: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), price: Type.Number() })),
    }),
    columns: listColumns(TOY_MARKETS, ['id', 'title', 'price']),
    resource: (r) => ({ id: r.id, title: r.title, price: r.price }),
    filters: [],
    sorts: { price: [{ column: 'price', dir: 'DESC' }] } as never,
    defaultSort: 'price' as never,
  }),
});

/** The toy product: the markets' count and price sum, rewritten whole from the toy venue's table. */
const runs: ProductPayload[] = [];
const toyTotals = defineProduct({
  name: 'toy-totals',
  inputs: ['toy'],
  tables: [TOY_TOTALS.name],
  source: 'analytics:toy-totals',
  mode: 'whole',
  every: () => 60_000,
  job: {
    name: 'analytics.toy-totals',
    attempts: 3,
    lease: 'toy:totals:lease',
    schedule: { id: 'analytics:toy-totals', payload: { reason: 'schedule' } },
  },
  async run(ctx, payload) {
    runs.push(payload);
    const version = Date.now();
    // Its writes, then its run mark (what its freshness and its dependents' runs follow).
    await commitRun(ctx.clickhouse, 'toy-totals', { kind: 'head', at: version }, async () => {
      await ctx.clickhouse.command(
        'toy.totals',
        `INSERT INTO toy_totals SELECT toUInt32(count()), sum(price), ${version} FROM toy_markets FINAL`,
      );
    });
    await ctx.versions.bump('analytics:toy-totals');
    return { value: { ran: true }, moved: { stream: 'run', kind: 'head' } };
  },
  onInput: (moved) => (moved.stream === 'markets' ? { reason: 'analytics' } : null),
  async recompute(ctx) {
    await this.run(ctx, { reason: 'manual' });
    return { line: 'toy totals', fields: {} };
  },
});
/** A second product reading the first: `recompute` must run it after `toy-totals`. */
const toyShare = defineProduct({
  ...toyTotals,
  name: 'toy-share',
  inputs: ['toy-totals'],
  tables: [],
  source: 'analytics:toy-share',
  job: {
    ...toyTotals.job,
    name: 'analytics.toy-share',
    lease: 'toy:share:lease',
    schedule: { id: 'analytics:toy-share', payload: {} },
  },
  onInput: () => ({ reason: 'analytics' }),
  async run() {
    return { value: { ran: true }, moved: null };
  },
  async recompute() {
    return { line: 'toy share', fields: {} };
  },
});

let deps: TestDeps;
let app: App;
let key: string;

beforeAll(async () => {
  deps = await createTestDeps('toy_units');
  await deps.clickhouse.command(
    'toy.create',
    `CREATE TABLE toy_markets (id String, title String, price Float64, content_hash String,
       observed_at DateTime64(3, 'UTC')) ENGINE = ReplacingMergeTree(observed_at) ORDER BY id`,
  );
  await deps.clickhouse.command(
    'toy.create',
    'CREATE TABLE toy_totals (markets UInt32, price_sum Float64, version UInt64) ENGINE = MergeTree ORDER BY version',
  );
  // The toy's page is a plain read (a real venue's is api/queries/venue-markets.ts over its search words
  // and canonical ids, which a toy table does not have); rows are mapped by the contract.
  const { columns } = TOY_CONTRACT.list;
  const list = venueMarketsResource(TOY_CONTRACT, async (ctx, q) => ({
    markets: (
      await ctx.deps.clickhouse.read<unknown[]>(
        'toy.list',
        `SELECT ${columns.sql} FROM toy_markets FINAL ORDER BY price DESC LIMIT {limit:UInt32}`,
        { limit: q.limit ?? 20 },
      )
    ).map((v) => TOY_CONTRACT.list.resource(columns.zip(v), [])),
  }));
  app = await buildApp({ ...deps, secret: TEST_SECRET, extraResources: [list] });
  key = (await createKeyStore(deps.redis).create({ tier: 'free', name: 'toy', rate: 1000 })).key;
});
afterAll(async () => {
  await app?.close();
  await deps?.close();
});

describe('a toy venue and a toy product in temporary lists', () => {
  const products = productRegistry(dependencyOrder([toyShare, toyTotals]));
  const venues = deriveVenues([restVenue(toy, undefined, products.enqueueDependents)]);

  it('derives the venue’s job and schedule, and the product’s job, schedule and lease', () => {
    expect(venues.jobs.map((j) => [j.name, j.queue])).toEqual([['toy.markets', 'venues']]);
    expect(venues.schedulesOf('toy').map((s) => [s.id, s.job.name, s.payload])).toEqual([
      ['toy:markets-push', 'toy.markets', { mode: 'push' }],
    ]);
    expect(venues.sources).toEqual([{ source: 'toy' }]);
    expect(venues.configSections.map((s) => s.name)).toEqual(['venues', 'toy']);
    expect(products.products.map((p) => p.name)).toEqual(['toy-totals', 'toy-share']);
    expect(products.jobs.map((j) => [j.name, j.queue, j.attempts])).toEqual([
      ['analytics.toy-totals', 'analytics', 3],
      ['analytics.toy-share', 'analytics', 3],
    ]);
    expect(products.schedules.map((s) => [s.id, s.job.name])).toEqual([
      ['analytics:toy-totals', 'analytics.toy-totals'],
      ['analytics:toy-share', 'analytics.toy-share'],
    ]);
    // The real lists are untouched.
    expect(VENUE_JOBS.map((j) => j.name)).not.toContain('toy.markets');
  });

  it('runs the stream through the runner: rows written, a watermark committed, the venue’s version bumped', async () => {
    upstream.push(
      [
        { id: 'a', title: 'Alpha', price: 0.25 },
        { id: 'b', title: 'Beta', price: 0.5 },
      ],
      [{ id: 'c', title: 'Gamma', price: 0.75 }],
    );
    const versions = createDataVersions({ redis: deps.redis });
    const [before] = await versions.read(['venue:toy']);
    const summary = await runStream(toy, 'markets', { ...deps, config: deps.config }, { mode: 'push' });
    expect(summary).toMatchObject({ mode: 'push', read: 3, written: 3, requests: 2 });
    const mark = await createWatermarks(deps.clickhouse).read('toy', 'markets');
    expect(mark).toMatchObject({ source: 'toy', stream: 'markets', kind: 'head' });
    expect((await versions.read(['venue:toy']))[0]).not.toBe(before);
  });

  it('serves /v2/toy/markets from the resource factory', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v2/toy/markets?limit=2',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      markets: [
        { id: 'c', title: 'Gamma', price: 0.75 },
        { id: 'b', title: 'Beta', price: 0.5 },
      ],
    });
  });

  it('its scheduled job’s committed watermark enqueues the product, whose run enqueues its dependent', async () => {
    upstream.push([{ id: 'd', title: 'Delta', price: 0.1 }]);
    const sent: [string, unknown][] = [];
    const ctx = (data: unknown) =>
      ({
        deps,
        log: deps.log,
        job: { data, updateProgress: async () => {} },
        signal: new AbortController().signal,
        enqueue: async (def: { name: string }, payload: unknown) => {
          sent.push([def.name, payload]);
          return undefined;
        },
      }) as unknown as JobContext<never>;
    const streamJob = venues.jobs[0]!;
    expect(await streamJob.process(ctx({ mode: 'push' }))).toMatchObject({
      ran: true,
      summary: { written: 1 },
    });
    expect(sent).toEqual([['analytics.toy-totals', { reason: 'analytics' }]]);

    sent.length = 0;
    expect(await products.jobOf('toy-totals').process(ctx({ reason: 'analytics' }))).toEqual({ ran: true });
    expect(runs.at(-1)).toEqual({ reason: 'analytics' });
    expect(sent).toEqual([['analytics.toy-share', { reason: 'analytics' }]]);
    const [totals] = await deps.clickhouse.query<{ markets: number; price_sum: number }>(
      'toy.read',
      'SELECT markets, price_sum FROM toy_totals ORDER BY version DESC LIMIT 1',
    );
    expect(totals).toEqual({ markets: 4, price_sum: 1.6 });
  });

  it('recomputes each product after its inputs, under its lease', async () => {
    const order = products.products.map((p) => p.name);
    expect(order).toEqual(['toy-totals', 'toy-share']);
    const reports = [];
    for (const p of products.products) reports.push((await recomputeProduct(deps, p, null))?.line);
    expect(reports).toEqual(['toy totals', 'toy share']);
    // A held lease: the recomputation reports it (null) instead of running beside the holder.
    await deps.redis.set('toy:totals:lease', 'someone', 'PX', 10_000);
    expect(await recomputeProduct(deps, toyTotals, null)).toBeNull();
    await deps.redis.del('toy:totals:lease');
    expect(() => dependencyOrder([{ ...toyTotals, inputs: ['toy-share'] }, toyShare])).toThrow(/cycle/);
  });
});
