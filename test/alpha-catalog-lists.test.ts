/**
 * Acceptance of alpha's catalog lists (analytics/catalog/; docs/catalog.md "Rules", "Derived lists",
 * "Tag hierarchy") against a small simulated world: the chain backfilled, the market analytics computed,
 * the catalog synced from the metadata replica and the books from the book replica, then the build.
 * Every figure is compared with a truth computed here from the world, never from the lists:
 * - status and winning side from the world state's resolutions;
 * - outcome prices by the rule (payout once resolved, else the book replica's midpoint, else the newest
 *   maker fill of the token or its complement in the sim ledger); liquidity from the book replica's levels;
 * - all-time volume and trades from the ledger, open interest and rolling metrics equal to the market
 *   analytics' condition rows;
 * - event figures the sums of their markets, event status from the world, series and category counts;
 * - the tag hierarchy and tag rollups recomputed here from the source tables, parents equal to the
 *   world's tag tree;
 * - canonical ids of the documented form, one per outcome, the same after the catalog is written again;
 * - a rebuild writes identical rows; the rollups job runs after a catalog sync through a worker.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists, type CatalogBuildSummary } from '../analytics/catalog/build.ts';
import { catalogLists } from '../analytics/catalog/index.ts';
import { recomputeMarketData } from '../analytics/market-data/run.ts';
import { runRolling } from '../analytics/rolling-metrics/run.ts';
import type { AlphaAnalyticsSettings } from '../analytics/shared/settings.ts';
import {
  CANONICAL_ID_PATTERN,
  canonicalId,
  questionOutcomeKey,
  sportsOutcomeKey,
} from '../core/canonical-id.ts';
import { acquireLease } from '../core/lease.ts';
import { searchWords } from '../core/search-words.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { syncAlphaBooks } from '../ingest/venues/alpha/book/sync.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { alphaCatalogJob } from '../jobs/processors/alpha-catalog.ts';
import { productJobOf } from '../jobs/products.ts';
import { createBullConnection, createQueues } from '../jobs/queues.ts';
import { createWorkers } from '../jobs/worker.ts';
import type { AlphaEventDoc, AlphaMarket, AlphaSeries } from '../schemas/api/alpha-catalog.ts';
import type { SavedSim } from '../sim/saved.ts';
import type { CatalogMarket } from '../sim/world/catalog.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

type Row = Record<string, unknown>;

let sim: SavedSim;
let deps: TestDeps;
let settings: AlphaAnalyticsSettings;
let now: number;
let built: CatalogBuildSummary;

const query = <T = Row>(sql: string, params: Record<string, unknown> = {}) =>
  deps.clickhouse.query<T>('test.catalog_lists', sql, params);
const alphaCatalogRollupsJob = productJobOf('alpha-catalog-lists');
const ALPHA_CATALOG_ROLLUPS_LEASE = catalogLists.job.lease;
const ALPHA_CATALOG_STALE = catalogLists.job.coalesce?.flag ?? '';

const metadataClient = () =>
  createAlphaMetadataClient({
    http: createHttpClient({ baseUrl: sim.replicaUrls!.alpha_metadata, timeoutMs: 10_000 }),
  });

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD, { replicas: true });
  deps = await createTestDeps('alpha_catalog_lists', {
    env: { ALPHA_METADATA_URL: sim.replicaUrls!.alpha_metadata, ALPHA_BOOK_URL: sim.replicaUrls!.alpha_book },
  });
  const top = await sim.anvil.rpc<{ number: Hex }>('eth_getBlockByNumber', ['latest', false]);
  const head = Number(top.number);
  const chainSettings = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });
  settings = {
    chainId: chainSettings.chainId,
    usdcE: chainSettings.roles.usdcE.toLowerCase(),
    finalityDepth: chainSettings.finalityDepth,
  };
  await recomputeMarketData(deps, settings);
  await runRolling(deps, settings);
  await runStream(alpha, 'catalog', { ...deps, client: metadataClient() }, { mode: 'full' });
  // The analytics' now: the newest ingested block. The books are observed a minute before it.
  const [newest] = await query<{ t: string }>(
    'SELECT toUnixTimestamp64Milli(max(timestamp)) AS t FROM alpha_blocks',
  );
  now = Number(newest!.t);
  const tokens = sim.catalog.venues.alpha.markets.flatMap((m) => m.tokenIds);
  await syncAlphaBooks(deps, tokens, { url: sim.replicaUrls!.alpha_book, clock: () => now - 60_000 });
  built = await buildAlphaCatalogLists(deps);
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
});

// ------------------------------------------------------------------------------------------- truth

interface ReplicaBook {
  asset_id: string;
  bids: { price: string; size: string }[];
  asks: { price: string; size: string }[];
}

/** The book replica's books of every alpha token (only open markets have one). */
async function replicaBooks(): Promise<Map<string, ReplicaBook>> {
  const tokens = sim.catalog.venues.alpha.markets.flatMap((m) => m.tokenIds);
  const res = await fetch(`${sim.replicaUrls!.alpha_book}/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(tokens.map((token_id) => ({ token_id }))),
  });
  const books = (await res.json()) as ReplicaBook[];
  return new Map(books.map((b) => [b.asset_id, b]));
}

function mid(b: ReplicaBook | undefined): number | null {
  if (!b || b.bids.length === 0 || b.asks.length === 0) return null;
  const bid = Math.max(...b.bids.map((l) => Number(l.price)));
  const ask = Math.min(...b.asks.map((l) => Number(l.price)));
  return (bid + ask) / 2;
}

const liquidityOf = (b: ReplicaBook | undefined) =>
  b ? [...b.bids, ...b.asks].reduce((s, l) => s + Number(l.price) * Number(l.size), 0) : 0;

/** The newest maker fill (ledger order = chain order) of `token` or its complement, as token's price. */
function fillPrice(token: string, complement: string): number | null {
  const fills = sim.ledger.fills;
  for (let i = fills.length - 1; i >= 0; i--) {
    const f = fills[i]!;
    if (f.role !== 'maker' || f.shares === 0n || f.time * 1000 > now) continue;
    if (f.tokenId === token) return Number(f.usd) / Number(f.shares);
    if (f.tokenId === complement) return Number(f.shares - f.usd) / Number(f.shares);
  }
  return null;
}

function expectedPrices(m: CatalogMarket, books: Map<string, ReplicaBook>): (number | null)[] {
  const st = sim.state.status('alpha', m.key);
  return m.tokenIds.map((token, i) => {
    if (st.status === 'resolved') return i === st.winningIndex ? 1 : 0;
    return mid(books.get(token)) ?? fillPrice(token, m.tokenIds[1 - i]!);
  });
}

const marketRows = async () =>
  new Map(
    (await query<Row & { market_id: string; doc: string }>('SELECT * FROM alpha_market_list')).map((r) => [
      r.market_id,
      r,
    ]),
  );
const eventRows = async () =>
  new Map(
    (await query<Row & { event_id: string; doc: string }>('SELECT * FROM alpha_event_list')).map((r) => [
      r.event_id,
      r,
    ]),
  );

/** Every row of the five lists, in a stable order. */
async function snapshot(): Promise<string> {
  const out: unknown[] = [];
  for (const t of [
    'alpha_market_list',
    'alpha_event_list',
    'alpha_series_list',
    'alpha_tag_list',
    'alpha_category_list',
  ]) {
    out.push(await query(`SELECT * FROM ${t} ORDER BY ALL`));
  }
  return JSON.stringify(out);
}

const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 6);

// ------------------------------------------------------------------------------------------- tests

describe('alpha catalog lists', () => {
  it('holds one row per market, event, series, tag and category of the synced catalog', async () => {
    const a = sim.catalog.venues.alpha;
    expect(built).toMatchObject({
      now,
      markets: a.markets.length,
      events: a.events.length,
      series: a.series.length,
      tags: a.tags.length,
    });
    expect(built.categories).toBeGreaterThan(1);
    for (const [t, n] of [
      ['alpha_market_list', a.markets.length],
      ['alpha_event_list', a.events.length],
      ['alpha_series_list', a.series.length],
      ['alpha_tag_list', a.tags.length],
      ['alpha_category_list', built.categories],
    ] as const) {
      const [c] = await query<{ n: string }>(`SELECT count() AS n FROM ${t}`);
      expect(Number(c!.n), t).toBe(n);
    }
  });

  it("gives each market the world's status and winning side, prices by the rule and the book's liquidity", async () => {
    const rows = await marketRows();
    const books = await replicaBooks();
    const statuses = new Set<string>();
    const sources = { book: 0, fill: 0, payout: 0 };
    for (const m of sim.catalog.venues.alpha.markets) {
      const row = rows.get(m.id)!;
      const doc = JSON.parse(row.doc) as AlphaMarket;
      const st = sim.state.status('alpha', m.key);
      statuses.add(st.status);
      expect(row.status, m.id).toBe(st.status);
      expect(doc.status).toBe(st.status);
      expect(doc.winning_side, m.id).toBe(st.status === 'resolved' ? m.outcomes[st.winningIndex!] : null);
      const prices = expectedPrices(m, books);
      expect(doc.outcomes.map((o) => o.label)).toEqual(m.outcomes);
      expect(doc.outcomes.map((o) => o.token_id)).toEqual(m.tokenIds);
      doc.outcomes.forEach((o, i) => {
        const want = prices[i]!;
        if (want === null) expect(o.price, `${m.id} ${i}`).toBeNull();
        else close(o.price!, want);
      });
      if (prices[0] === null) expect(row.price).toBeNull();
      else close(row.price as number, prices[0]!);
      if (st.status === 'resolved') sources.payout++;
      else if (mid(books.get(m.tokenIds[0])) !== null) sources.book++;
      else if (prices[0] !== null) sources.fill++;
      const liquidity = liquidityOf(books.get(m.tokenIds[0]));
      close(row.liquidity as number, liquidity);
      close(doc.liquidity_usd, liquidity);
      expect(row.token_ids).toEqual(m.tokenIds);
    }
    // The world has open and resolved markets (closed ones when its clock passed an end unresolved).
    expect(statuses).toContain('open');
    expect(statuses).toContain('resolved');
    expect(sources.book).toBeGreaterThan(0);
    expect(sources.payout).toBeGreaterThan(0);
  });

  it('prices from the newest fills once the books are older than 10 minutes (a later now)', async () => {
    const later = now + 11 * 60_000;
    const summary = await buildAlphaCatalogLists(deps, { now: later });
    expect(summary.now).toBe(later);
    const rows = await marketRows();
    let fills = 0;
    for (const m of sim.catalog.venues.alpha.markets) {
      const st = sim.state.status('alpha', m.key);
      const doc = JSON.parse(rows.get(m.id)!.doc) as AlphaMarket;
      m.tokenIds.forEach((token, i) => {
        const want =
          st.status === 'resolved' ? (i === st.winningIndex ? 1 : 0) : fillPrice(token, m.tokenIds[1 - i]!);
        if (want === null) expect(doc.outcomes[i]!.price).toBeNull();
        else close(doc.outcomes[i]!.price!, want);
        if (st.status !== 'resolved' && want !== null) fills++;
      });
    }
    expect(fills).toBeGreaterThan(0);
    await buildAlphaCatalogLists(deps);
  });

  it('carries volume and trades of the ledger, open interest and rolling metrics of the market analytics', async () => {
    const rows = await marketRows();
    const ledger = sim.exportLedger().markets;
    const totals = new Map(
      (
        await query<{ id: string; oi: string }>(
          "SELECT id, toString(open_interest) AS oi FROM alpha_market_totals FINAL WHERE level = 'condition' AND deleted = 0",
        )
      ).map((r) => [r.id, Number(r.oi) / 1e6]),
    );
    const rolling = new Map(
      (
        await query<Row & { id: string }>(
          "SELECT * FROM alpha_market_rolling FINAL WHERE level = 'condition' AND deleted = 0",
        )
      ).map((r) => [r.id, r]),
    );
    let traded = 0;
    for (const m of sim.catalog.venues.alpha.markets) {
      const row = rows.get(m.id)!;
      const doc = JSON.parse(row.doc) as AlphaMarket;
      const condition = m.alpha!.conditionId.toLowerCase();
      const truth = ledger[condition] ?? ledger[m.alpha!.conditionId] ?? { trades: 0, usd: '0' };
      if (truth.trades > 0) traded++;
      close(row.volume as number, Number(truth.usd) / 1e6);
      close(doc.total_volume_usd, Number(truth.usd) / 1e6);
      close(row.open_interest as number, totals.get(condition) ?? 0);
      const r = rolling.get(condition);
      if (!r) {
        expect(doc.rolling_metrics).toBeNull();
        continue;
      }
      const rm = doc.rolling_metrics!;
      for (const w of ['1d', '7d', '30d'] as const) {
        close(rm[`volume_${w}`], Number(r[`volume_${w}`]) / 1e6);
        close(rm[`oi_change_${w}`], Number(r[`oi_change_${w}`]) / 1e6);
        expect(rm[`trades_${w}`]).toBe(Number(r[`trades_${w}`]));
        close(row[`volume_${w}`] as number, rm[`volume_${w}`]);
        expect(Number(row[`trades_${w}`])).toBe(rm[`trades_${w}`]);
        close(row[`oi_change_${w}`] as number, rm[`oi_change_${w}`]);
      }
      expect(rm.computed_at).toBe(new Date(r.computed_at as string).toISOString());
    }
    expect(traded).toBeGreaterThan(0);
  });

  it("sums each event's markets and gives it the world's status and its markets' latest close", async () => {
    const markets = await marketRows();
    const events = await eventRows();
    const closes = new Map(
      (
        await query<{ id: string; t: string | null }>(
          'SELECT id, toUnixTimestamp64Milli(closed_time) AS t FROM alpha_markets FINAL',
        )
      ).map((r) => [r.id, r.t === null ? null : Number(r.t)]),
    );
    const byKey = new Map(sim.catalog.venues.alpha.markets.map((m) => [m.key, m]));
    for (const e of sim.catalog.venues.alpha.events) {
      const row = events.get(e.id)!;
      const doc = JSON.parse(row.doc) as AlphaEventDoc;
      const ms = e.marketKeys.map((k) => byKey.get(k)!);
      const mine = ms.map((m) => ({
        row: markets.get(m.id)!,
        doc: JSON.parse(markets.get(m.id)!.doc) as AlphaMarket,
      }));
      const open = ms.some((m) => sim.state.status('alpha', m.key).status === 'open');
      expect(row.status, e.id).toBe(open ? 'open' : 'closed');
      expect(doc.status).toBe(row.status);
      const latest = ms.reduce<number | null>((t, m) => {
        const c = closes.get(m.id) ?? null;
        return c !== null && (t === null || c > t) ? c : t;
      }, null);
      expect(doc.closed_time).toBe(open || latest === null ? null : new Date(latest).toISOString());
      expect(row.market_count).toBe(ms.length);
      expect(doc.market_count).toBe(ms.length);
      const sum = (f: (x: (typeof mine)[number]) => number) => mine.reduce((s, x) => s + f(x), 0);
      close(
        row.volume as number,
        sum((x) => x.row.volume as number),
      );
      close(
        doc.total_volume_usd,
        sum((x) => x.doc.total_volume_usd),
      );
      close(
        row.liquidity as number,
        sum((x) => x.row.liquidity as number),
      );
      close(doc.liquidity_usd, row.liquidity as number);
      close(
        row.open_interest as number,
        sum((x) => x.row.open_interest as number),
      );
      close(doc.current_oi_usd, row.open_interest as number);
      for (const w of ['1d', '7d', '30d'] as const) {
        close(
          row[`volume_${w}`] as number,
          sum((x) => x.row[`volume_${w}`] as number),
        );
        expect(Number(row[`trades_${w}`])).toBe(sum((x) => Number(x.row[`trades_${w}`])));
      }
      const withRolling = mine.filter((x) => x.doc.rolling_metrics !== null);
      if (withRolling.length === 0) expect(doc.rolling_metrics).toBeNull();
      else {
        close(
          doc.rolling_metrics!.buy_volume_7d,
          sum((x) => x.doc.rolling_metrics?.buy_volume_7d ?? 0),
        );
        expect(doc.rolling_metrics!.computed_at).toBe(
          withRolling
            .map((x) => x.doc.rolling_metrics!.computed_at!)
            .sort()
            .at(-1),
        );
      }
      // Markets carry their event's tags.
      for (const x of mine) expect(x.row.tags).toEqual(row.tags);
      expect(doc.tags.map((t) => t.slug)).toEqual(row.tags);
      expect(row.category_slug).toBe(searchWords(row.category as string).join('-'));
      expect(row.words).toEqual(searchWords(e.title));
    }
  });

  it('counts series and categories from their events', async () => {
    const events = [...(await eventRows()).values()];
    const series = await query<Row & { slug: string; doc: string }>('SELECT * FROM alpha_series_list');
    for (const s of series) {
      const mine = events.filter((e) => (e.series_slugs as string[]).includes(s.slug));
      const doc = JSON.parse(s.doc) as AlphaSeries;
      const openCount = mine.filter((e) => e.status === 'open').length;
      expect(s.event_count, s.slug).toBe(mine.length);
      expect(s.open_event_count).toBe(openCount);
      expect(s.active).toBe(openCount > 0);
      expect(doc).toMatchObject({
        active: openCount > 0,
        event_count: mine.length,
        open_event_count: openCount,
      });
      close(
        s.volume as number,
        mine.reduce((t, e) => t + (e.volume as number), 0),
      );
    }
    const simSeries = sim.catalog.venues.alpha.series;
    expect(series.map((s) => s.slug).sort()).toEqual(simSeries.map((s) => s.slug).sort());
    for (const s of simSeries) {
      expect(series.find((x) => x.slug === s.slug)!.event_count, s.slug).toBe(s.eventKeys.length);
    }

    const categories = await query<Row & { slug: string; category: string }>(
      'SELECT * FROM alpha_category_list',
    );
    const labels = [...new Set(events.map((e) => e.category as string).filter((c) => c !== ''))];
    expect(categories.map((c) => c.category).sort()).toEqual(labels.sort());
    for (const c of categories) {
      const mine = events.filter((e) => e.category === c.category);
      expect(c.slug).toBe(searchWords(c.category).join('-'));
      expect(c.event_count).toBe(mine.length);
      expect(c.open_event_count).toBe(mine.filter((e) => e.status === 'open').length);
      expect(c.market_count).toBe(mine.reduce((t, e) => t + (e.market_count as number), 0));
      close(
        c.volume as number,
        mine.reduce((t, e) => t + (e.volume as number), 0),
      );
      close(
        c.liquidity as number,
        mine.reduce((t, e) => t + (e.liquidity as number), 0),
      );
      expect(Number(c.trades_all_time)).toBe(mine.reduce((t, e) => t + Number(e.trades_all_time), 0));
    }
  });

  it('places tags by rank and relations, and rolls their events up', async () => {
    const tags = await query<{ id: string; slug: string; label: string }>(
      'SELECT id, slug, label FROM alpha_tags FINAL',
    );
    const relations = await query<{ a: string; b: string }>(
      'SELECT tag_id AS a, related_tag_id AS b FROM alpha_tag_relations FINAL',
    );
    const events = await query<{ id: string; tag_ids: string[]; category: string }>(
      'SELECT id, tag_ids, category FROM alpha_events FINAL',
    );
    const lists = [...(await eventRows()).values()];
    const categorySlugs = new Set(
      events.map((e) => searchWords(e.category).join('-')).filter((s) => s !== ''),
    );
    const eventsOf = (id: string) => events.filter((e) => e.tag_ids.includes(id));
    // Rank: category tags, then more events, then the lower numeric id.
    const ranked = [...tags].sort((x, y) => {
      const cx = categorySlugs.has(x.slug) ? 0 : 1;
      const cy = categorySlugs.has(y.slug) ? 0 : 1;
      if (cx !== cy) return cx - cy;
      const n = eventsOf(y.id).length - eventsOf(x.id).length;
      return n !== 0 ? n : Number(BigInt(x.id) - BigInt(y.id));
    });
    const rankOf = (id: string) => ranked.findIndex((t) => t.id === id);
    const related = (id: string) =>
      ranked.filter((t) =>
        relations.some((r) => (r.a === id && r.b === t.id) || (r.b === id && r.a === t.id)),
      );
    const rows = new Map(
      (await query<Row & { tag_id: string }>('SELECT * FROM alpha_tag_list')).map((r) => [r.tag_id, r]),
    );
    const simParent = new Map(sim.catalog.venues.alpha.tags.map((t) => [t.slug, t.parentSlug]));
    let withParent = 0;
    for (const t of tags) {
      const row = rows.get(t.id)!;
      const others = related(t.id);
      const above = others.filter((o) => rankOf(o.id) < rankOf(t.id));
      const below = others.filter((o) => rankOf(o.id) > rankOf(t.id));
      expect(row.parent_slug, t.slug).toBe(above[0]?.slug ?? null);
      expect(row.children, t.slug).toEqual(below.map((o) => o.slug));
      expect(row.subtag_count).toBe(below.length);
      expect(row.is_category).toBe(categorySlugs.has(t.slug));
      // The world's own tag tree.
      expect(row.parent_slug, t.slug).toBe(simParent.get(t.slug) ?? null);
      if (row.parent_slug !== null) withParent++;
      const mine = lists.filter((e) => (e.tags as string[]).includes(t.slug));
      expect(row.event_count).toBe(eventsOf(t.id).length);
      expect(row.event_count).toBe(mine.length);
      expect(row.open_event_count).toBe(mine.filter((e) => e.status === 'open').length);
      expect(row.market_count).toBe(mine.reduce((s, e) => s + (e.market_count as number), 0));
      close(
        row.volume as number,
        mine.reduce((s, e) => s + (e.volume as number), 0),
      );
      close(
        row.liquidity as number,
        mine.reduce((s, e) => s + (e.liquidity as number), 0),
      );
      expect(row.words).toEqual(searchWords(t.label));
    }
    expect(withParent).toBeGreaterThan(0);
  });

  it('gives every outcome a canonical id of the documented form, one per outcome, stable across re-syncs', async () => {
    const rows = await marketRows();
    const eventOf = new Map(sim.catalog.venues.alpha.events.map((e) => [e.key, e]));
    // Keys of the world's outcomes by the cross-venue rule (core/canonical-id.ts): games by the two
    // teams' names, the end day and the side; an alternative of a neg-risk event by the event title and
    // its label ("not <label>" for its No); the rest by question, end day and label.
    const keyOf = (m: CatalogMarket, i: number): string => {
      const event = eventOf.get(m.eventKey)!;
      const label = m.groupItemTitle;
      const side = label === null ? m.outcomes[i]! : i === 0 ? label : `not ${label}`;
      if (m.sports) {
        const s = m.sports;
        return sportsOutcomeKey({
          league: '',
          teams: [s.homeTeam.name, s.awayTeam.name],
          date: m.endTime,
          side,
        });
      }
      const question = label === null ? m.question : event.title;
      return questionOutcomeKey({ question, resolutionDate: m.endTime, outcome: side });
    };
    const expected = new Map<string, string[]>();
    let sports = 0;
    for (const m of sim.catalog.venues.alpha.markets) {
      const keys = m.outcomes.map((_, i) => keyOf(m, i));
      if (keys[0]!.startsWith('sports|')) sports++;
      expected.set(
        m.id,
        keys.map((k) => canonicalId(k)),
      );
    }
    const all: string[] = [];
    for (const m of sim.catalog.venues.alpha.markets) {
      const ids = rows.get(m.id)!.canonical_ids as string[];
      const doc = JSON.parse(rows.get(m.id)!.doc) as AlphaMarket;
      expect(doc.outcomes.map((o) => o.canonical_id)).toEqual(ids);
      for (const id of ids) expect(id).toMatch(CANONICAL_ID_PATTERN);
      expect(ids, m.id).toEqual(expected.get(m.id));
      all.push(...ids);
    }
    console.log(`canonical ids: ${all.length} outcomes, ${sports} sports markets`);
    expect(sports).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(all.length);

    // The catalog written again (every market row observed anew): the same ids, the same rows.
    const before = await snapshot();
    await deps.clickhouse.command('test.forget', 'TRUNCATE TABLE alpha_markets');
    await runStream(alpha, 'catalog', { ...deps, client: metadataClient() }, { mode: 'full' });
    await buildAlphaCatalogLists(deps);
    const again = await marketRows();
    for (const [id, row] of rows) expect(again.get(id)!.canonical_ids).toEqual(row.canonical_ids);
    expect(await snapshot()).toBe(before);
  });

  it('a rebuild writes identical rows and bumps the data source', async () => {
    const before = await snapshot();
    const version = (await deps.redis.hget('pmdata:data-versions', 'analytics:alpha-catalog')) ?? '';
    const versions = (await import('../core/data-version.ts')).createDataVersions({ redis: deps.redis });
    await buildAlphaCatalogLists({ ...deps, versions });
    expect(await snapshot()).toBe(before);
    const [after] = await versions.read(['analytics:alpha-catalog']);
    expect(after).not.toBe(version);
    expect(after).not.toBe('');
  });

  it('the rollups job rebuilds the lists after a catalog sync enqueues it, through a worker', async () => {
    const prefix = `alpha-catalog-lists-${process.pid}`;
    const connection = createBullConnection(deps.config.redisUrl);
    const queues = createQueues({ connection, prefix });
    const workers = createWorkers({
      deps,
      prefix,
      jobs: [alphaCatalogJob, alphaCatalogRollupsJob],
    });
    try {
      await deps.clickhouse.command('test.empty', 'TRUNCATE TABLE alpha_market_list');
      await queues.enqueue(alphaCatalogJob, { mode: 'open' });
      const deadline = Date.now() + 60_000;
      let done: { data: unknown; returnvalue: unknown } | undefined;
      while (!done && Date.now() < deadline) {
        done = (await queues.get('analytics').getJobs(['completed'])).find(
          (j) => j.name === alphaCatalogRollupsJob.name,
        );
        if (!done) await sleep(100);
      }
      expect(done?.data).toMatchObject({ reason: 'catalog-sync' });
      expect(done?.returnvalue).toMatchObject({
        ran: true,
        markets: sim.catalog.venues.alpha.markets.length,
      });
      const [c] = await query<{ n: string }>('SELECT count() AS n FROM alpha_market_list');
      expect(Number(c!.n)).toBe(sim.catalog.venues.alpha.markets.length);

      // A trigger while another build holds the lease completes at once, leaving the lists marked stale
      // for the holder; the next build clears the mark.
      const completed = async (id: string) => {
        const end = Date.now() + 60_000;
        for (;;) {
          const job = await queues.get('analytics').getJob(id);
          if (job && (await job.isCompleted())) return job.returnvalue as { ran: boolean };
          if (Date.now() > end) throw new Error(`job ${id} did not complete`);
          await sleep(100);
        }
      };
      const lease = await acquireLease(deps.redis, ALPHA_CATALOG_ROLLUPS_LEASE, 60_000);
      expect(lease.held).toBe(true);
      const blocked = await queues.enqueue(alphaCatalogRollupsJob, { reason: 'manual', slot: 1 });
      expect(await completed(blocked!)).toEqual({ ran: false });
      expect(await deps.redis.exists(ALPHA_CATALOG_STALE)).toBe(1);
      await lease.release();
      const next = await queues.enqueue(alphaCatalogRollupsJob, { reason: 'manual', slot: 2 });
      expect(await completed(next!)).toMatchObject({ ran: true });
      expect(await deps.redis.exists(ALPHA_CATALOG_STALE)).toBe(0);
    } finally {
      await workers.close();
      await queues.close();
      connection.disconnect();
    }
  });
});
