/**
 * The alpha catalog sync against the sim's metadata replica: the stored events, markets, series, tags
 * and tag relations equal the world's ground truth field by field (computed here from the catalog and
 * the world state, as the replica renders them: sim/venues/alpha/metadata.ts); a re-sync writes
 * nothing; under each fault kind, queued and at 20 % rates, the sync ends with the same tables, no
 * request leaves before a Retry-After has passed, and malformed records are quarantined by id.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, HttpRetryableError } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { QUARANTINE_SOURCE } from '../ingest/venues/alpha/metadata/read.ts';
import { ALPHA_CATALOG_TABLES } from '../schemas/tables/alpha-catalog.ts';
import { DEFAULT_START_TIME } from '../sim/index.ts';
import type { SavedSim } from '../sim/saved.ts';
import type { FaultRates } from '../sim/venues/faults.ts';
import { dec, num } from '../sim/venues/format.ts';
import { startReplicas } from '../sim/venues/index.ts';
import { DAY, volumeWindows } from '../sim/venues/market-views.ts';
import { type CatalogTag, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let sim: SavedSim;
let deps: TestDeps;

/** A world (what the metadata replica serves) and the database its catalog is synced into. */
interface World {
  sim: Pick<SavedSim, 'catalog' | 'state' | 'replicas' | 'replicaUrls'>;
  deps: TestDeps;
}
/** The small world most tests use. */
const small = (): World => ({ sim, deps });

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD, { replicas: true });
  deps = await createTestDeps('alpha_catalog_sync');
}, 120_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
});

interface Logged {
  url: string;
  start: number;
  end: number;
  status: number | null;
  retryAfter: string | null;
}

/** A sync over the replica, logging every request it sends (start, end, status, Retry-After). */
function syncer(opts: { pageSize?: number; timeoutMs?: number } = {}, w: World = small()) {
  const { sim, deps } = w;
  const log: Logged[] = [];
  const http = createHttpClient({
    baseUrl: sim.replicaUrls!.alpha_metadata,
    timeoutMs: opts.timeoutMs ?? 5_000,
    baseDelayMs: 20,
    maxDelayMs: 200,
    fetch: async (input, init) => {
      const entry: Logged = { url: String(input), start: Date.now(), end: 0, status: null, retryAfter: null };
      log.push(entry);
      try {
        const res = await fetch(input, init);
        entry.status = res.status;
        entry.retryAfter = res.headers.get('retry-after');
        return res;
      } finally {
        entry.end = Date.now();
      }
    },
  });
  const metadata = createAlphaMetadataClient({ http, pageSize: opts.pageSize });
  return {
    log,
    run: (mode: 'full' | 'open' = 'full') =>
      runStream(alpha, 'catalog', { ...deps, client: metadata }, { mode }),
    markets: (conditionIds: string[]) =>
      runStream(
        alpha,
        'markets',
        { ...deps, client: metadata },
        { mode: 'byId', options: { conditionIds: conditionIds } },
      ),
  };
}

/** DateTime64(3) as the wrapper's reads print it. */
const t = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** Times the upstream gives in whole seconds (its Postgres form). */
const ts = (ms: number | null) => (ms === null ? null : t(Math.floor(ms / 1000) * 1000));

function groundTruth(sim: World['sim']) {
  const { catalog, state } = sim;
  const a = catalog.venues.alpha;
  const label = (slug: string) => a.categories.find((c) => c.slug === slug)?.label ?? slug;
  const tagsOf = (slugs: readonly string[]) => {
    const out: CatalogTag[] = [];
    for (const s of slugs) {
      const tag = a.tags.find((x) => x.slug === s);
      if (tag && !out.includes(tag)) out.push(tag);
    }
    return out;
  };
  const markets = a.markets.map((m) => {
    const x = m.alpha!;
    const st = state.status('alpha', m.key);
    const px = state.price('alpha', m.key);
    const vol = volumeWindows(state, 'alpha', m.key);
    const closed = st.status !== 'open';
    return {
      id: m.id,
      event_id: a.events.find((e) => e.key === m.eventKey)!.id,
      condition_id: x.conditionId.toLowerCase(),
      question_id: x.questionId.toLowerCase(),
      slug: m.slug,
      question: m.question,
      description: m.description,
      category: label(m.category),
      outcomes: m.outcomes,
      outcome_prices:
        st.status === 'resolved'
          ? st.winningIndex === 0
            ? ['1', '0']
            : ['0', '1']
          : [dec(px.last, 4), dec(1 - px.last, 4)],
      clob_token_ids: m.tokenIds,
      group_item_title: m.groupItemTitle ?? '',
      group_item_threshold: String(x.negRiskIndex ?? 0),
      start_date: t(m.startTime),
      end_date: t(m.endTime),
      created_at: t(m.createdAt),
      closed_time: ts(st.closedAt),
      closed,
      accepting_orders: !closed,
      automatically_resolved: st.status === 'resolved',
      neg_risk: x.negRisk,
      neg_risk_market_id: x.negRisk ? x.negRiskMarketId!.toLowerCase() : null,
      neg_risk_request_id: x.negRisk ? x.negRiskRequestId!.toLowerCase() : null,
      uma_resolution_status: st.umaStatus ?? '',
      uma_resolution_statuses: st.umaHistory.map((h) => h.status),
      resolved_by: x.umaAdapter.toLowerCase(),
      order_price_min_tick_size: m.tickSize,
      order_min_size: m.minOrderSize,
      volume: num(vol.total),
      volume_24hr: num(vol.h24),
      volume_1wk: num(vol.wk1),
      volume_1mo: num(vol.mo1),
      volume_1yr: num(vol.yr1),
      last_trade_price: num(px.last, 4),
      team_a_id: m.sports?.homeTeam.abbreviation ?? '',
      team_b_id: m.sports?.awayTeam.abbreviation ?? '',
      game_start_time: m.sports ? ts(m.sports.gameStartTime) : null,
    };
  });
  const events = a.events.map((e) => {
    const sts = e.marketKeys.map((k) => state.status('alpha', k));
    const vols = e.marketKeys.map((k) => volumeWindows(state, 'alpha', k));
    const allClosed = sts.every((s) => s.status !== 'open');
    const lastClose = Math.max(0, ...sts.map((s) => s.closedAt ?? 0));
    const series = e.seriesKey ? a.series.find((s) => s.key === e.seriesKey)! : null;
    return {
      id: e.id,
      ticker: e.ticker,
      slug: e.slug,
      title: e.title,
      description: e.description,
      category: label(e.category),
      start_date: t(e.startTime),
      creation_date: t(e.createdAt),
      end_date: t(e.endTime),
      closed_time: allClosed && lastClose > 0 ? t(lastClose) : null,
      closed: allClosed,
      neg_risk: e.negRisk,
      neg_risk_market_id: e.negRisk ? e.negRiskMarketId!.toLowerCase() : null,
      neg_risk_fee_bips: e.negRisk ? (e.negRiskFeeBips ?? 0) : 0,
      volume: num(vols.reduce((s, v) => s + v.total, 0)),
      volume_24hr: num(vols.reduce((s, v) => s + v.h24, 0)),
      series_slug: series?.slug ?? '',
      series_ids: series ? [series.id] : [],
      tag_ids: tagsOf(e.tags).map((x) => x.id),
      market_ids: e.marketKeys.map((k) => a.markets.find((m) => m.key === k)!.id),
      start_time: e.sports ? t(e.sports.gameStartTime) : null,
      event_date: e.sports?.gameDate ?? '',
    };
  });
  const series = a.series.map((s) => {
    const evs = a.events.filter((e) => e.seriesKey === s.key);
    return {
      id: s.id,
      ticker: s.slug,
      slug: s.slug,
      title: s.title,
      recurrence: s.recurrence,
      created_at: t(s.createdAt),
      published_at: ts(s.createdAt),
      event_ids: evs.map((e) => e.id),
      volume: num(
        evs.reduce(
          (sum, e) => sum + e.marketKeys.reduce((x, k) => x + volumeWindows(state, 'alpha', k).total, 0),
          0,
        ),
      ),
    };
  });
  const tags = a.tags.map((x) => ({
    id: x.id,
    label: x.label,
    slug: x.slug,
    created_at: t(x.createdAt),
    published_at: ts(x.createdAt),
    updated_at: t(x.createdAt + 30 * DAY),
  }));
  const relations = a.tags.flatMap((x) =>
    a.tags
      .filter((r) => r.parentSlug === x.slug || x.parentSlug === r.slug)
      .map((r, i) => ({
        id: String(Number(x.id) * 1000 + i),
        tag_id: x.id,
        related_tag_id: r.id,
        rank: i + 1,
      })),
  );
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((p, q) => (p.id < q.id ? -1 : 1));
  return {
    alpha_events: byId(events),
    alpha_markets: byId(markets),
    alpha_series: byId(series),
    alpha_tags: byId(tags),
    alpha_tag_relations: byId(relations),
  };
}

async function stored(table: keyof typeof ALPHA_CATALOG_TABLES, w: World = small()) {
  return w.deps.clickhouse.query<Record<string, unknown>>(
    'test.read',
    `SELECT * FROM ${table} FINAL ORDER BY id`,
  );
}

/** Every table equals the ground truth on every field the truth names; the id sets are equal. */
async function expectGroundTruth(w: World = small()) {
  const truth = groundTruth(w.sim);
  for (const [table, rows] of Object.entries(truth) as [keyof typeof truth, Record<string, unknown>[]][]) {
    const got = await stored(table, w);
    expect(
      got.map((r) => r.id),
      table,
    ).toEqual(rows.map((r) => r.id));
    const picked = got.map((r, i) => Object.fromEntries(Object.keys(rows[i]!).map((k) => [k, r[k]])));
    expect(picked, table).toEqual(rows);
  }
}

async function counts(w: World = small()) {
  const out: Record<string, string> = {};
  for (const name of Object.keys(ALPHA_CATALOG_TABLES)) {
    const [r] = await w.deps.clickhouse.query<{ n: string; v: string }>(
      'test.count',
      `SELECT count() AS n, toString(max(observed_at)) AS v FROM ${name}`,
    );
    out[name] = `${r!.n}@${r!.v}`;
  }
  return out;
}

async function quarantined() {
  return deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    `SELECT kind, record_id FROM quarantine FINAL WHERE source = {s:String} ORDER BY kind, record_id`,
    { s: QUARANTINE_SOURCE },
  );
}

async function reset() {
  for (const name of [...Object.keys(ALPHA_CATALOG_TABLES), 'quarantine']) {
    await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${name}`);
  }
}

/** No request left before the Retry-After of a 429 that came back before it. */
function expectRetryAfterHonoured(log: Logged[]) {
  let checked = 0;
  for (const r of log) {
    if (r.status !== 429) continue;
    const until = r.end + Number(r.retryAfter) * 1000;
    for (const later of log) {
      if (later.start > r.start) expect(later.start).toBeGreaterThanOrEqual(until);
    }
    checked++;
  }
  return checked;
}

type Injected = ReturnType<NonNullable<SavedSim['replicas']>['faults']['injected']>;

/** Faults the replica injected since `before` (its counts only grow). */
function injectedSince(before: Injected): Injected {
  const now = sim.replicas!.faults.injected('alpha_metadata');
  const out = { ...now };
  for (const k of Object.keys(now) as (keyof Injected)[]) out[k] = now[k] - before[k];
  return out;
}

describe('alpha catalog sync', () => {
  beforeEach(() => sim.replicas!.faults.clear());

  it('stores every event, market, series, tag and relation as the replica serves them', async () => {
    await reset();
    const s = syncer();
    const summary = await s.run('full');
    const a = sim.catalog.venues.alpha;
    expect(summary.events.read).toBe(a.events.length);
    expect(summary.markets.read).toBe(a.markets.length);
    expect(summary.series.read).toBe(a.series.length);
    expect(summary.tags.read).toBe(a.tags.length);
    expect(summary.events.written).toBe(a.events.length);
    expect(summary.quarantined).toBe(0);
    // Pages of 500: one page per list, one request per tag's relations.
    expect(summary.requests).toBe(4 + a.tags.length);
    await expectGroundTruth();
  });

  it('writes nothing on a re-sync of an unchanged catalog', async () => {
    const before = await counts();
    const s = syncer();
    const full = await s.run('full');
    const open = await s.run('open');
    for (const x of [full, open]) {
      expect([x.events, x.markets, x.series, x.tags, x.tagRelations].map((c) => c.written)).toEqual([
        0, 0, 0, 0, 0,
      ]);
    }
    expect(open.events.read).toBeGreaterThan(0);
    expect(open.requests).toBe(1);
    expect(await counts()).toEqual(before);
  });

  it('rewrites only the records whose content changed', async () => {
    await deps.clickhouse.command(
      'test.mutate',
      // The same observed_at: of equal versions the last inserted wins, so FINAL shows the stale row; the
      // sync's observation (the replica's world time, never earlier than the last) replaces it.
      `INSERT INTO alpha_tags SELECT * REPLACE ('stale' AS label, 'stale' AS content_hash) FROM alpha_tags FINAL WHERE id = {id:String}`,
      { id: sim.catalog.venues.alpha.tags[0]!.id },
    );
    const summary = await syncer().run('full');
    expect(summary.tags.written).toBe(1);
    expect(summary.events.written + summary.markets.written + summary.series.written).toBe(0);
    await expectGroundTruth();
  });

  /** A fault that answers normally at once: it lets the first page of `path` pass, so the next fault hits a later page. */
  const past = (path: string) => [{ kind: 'hang' as const, delayMs: 0, path }];

  it('fetches markets by condition id as the events sweep stores them', async () => {
    const conditions = sim.catalog.venues.alpha.markets.map((m) => m.alpha!.conditionId);
    // Already stored by the sweep: the same content, nothing written.
    expect((await syncer().markets(conditions)).written).toBe(0);
    await deps.clickhouse.command('test.truncate', 'TRUNCATE TABLE alpha_markets');
    const r = await syncer().markets(conditions);
    expect(r).toMatchObject({ read: conditions.length, written: conditions.length, quarantined: 0 });
    await expectGroundTruth();
  });

  it('fails retryable, naming the URL, when the upstream keeps failing', async () => {
    await reset();
    sim.replicas!.faults.set('alpha_metadata', { rate5xx: 1, path: '/series' });
    const err = await syncer()
      .run('full')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpRetryableError);
    expect((err as Error).message).toContain(`${sim.replicaUrls!.alpha_metadata}/series?`);
    // The tags read before the failure are complete; no event was written.
    expect((await stored('alpha_tags')).length).toBe(sim.catalog.venues.alpha.tags.length);
    expect(await stored('alpha_events')).toEqual([]);
  });

  /** Ids stored per catalog table. */
  async function storedIds() {
    const out: Record<string, string[]> = {};
    for (const name of Object.keys(ALPHA_CATALOG_TABLES) as (keyof typeof ALPHA_CATALOG_TABLES)[]) {
      out[name] = (await stored(name)).map((r) => r.id as string);
    }
    return out;
  }

  /**
   * Takes records out of the small world's catalog in place (the replica reads these arrays on every
   * request); returns the function that puts them back.
   */
  function withdraw(change: (a: SavedSim['catalog']['venues']['alpha']) => void): () => void {
    const a = sim.catalog.venues.alpha;
    const lists = {
      events: [...a.events],
      markets: [...a.markets],
      series: [...a.series],
      tags: [...a.tags],
    };
    const keys = new Map(a.events.map((e) => [e, [...e.marketKeys]]));
    change(a);
    return () => {
      for (const [name, list] of Object.entries(lists))
        a[name as keyof typeof lists].splice(0, Infinity, ...(list as never[]));
      for (const [e, k] of keys) e.marketKeys.splice(0, Infinity, ...k);
    };
  }

  /** Removes `x` from `list` (by identity). */
  const drop = <T>(list: T[], x: T) => list.splice(list.indexOf(x), 1);

  it('deletes what a complete full sweep no longer sees; keeps a market /markets still returns', async () => {
    await reset();
    await syncer().run('full');
    const a = sim.catalog.venues.alpha;
    const multi = a.events.filter((e) => e.marketKeys.length >= 3);
    expect(multi.length).toBeGreaterThanOrEqual(1);
    const [gone, ...rest] = a.events.filter((e) => e !== multi[0]);
    const host = multi[0]!;
    const market = (k: string) => a.markets.find((m) => m.key === k)!;
    const removedMarket = market(host.marketKeys[0]!);
    const detached = market(host.marketKeys[1]!);
    const goneMarkets = gone!.marketKeys.map(market);
    const series = a.series[0]!;
    const tag = a.tags.find((x) => x.parentSlug !== null && a.tags.some((p) => p.slug === x.parentSlug))!;
    expect(rest.length).toBeGreaterThan(0);
    const restore = withdraw(() => {
      drop(a.events, gone!);
      for (const m of goneMarkets) drop(a.markets, m);
      drop(a.markets, removedMarket);
      drop(host.marketKeys, removedMarket.key);
      // Still listed by /markets, no longer nested in its event.
      drop(host.marketKeys, detached.key);
      drop(a.series, series);
      drop(a.tags, tag);
    });
    try {
      const relationsBefore = (await stored('alpha_tag_relations')).length;
      const summary = await syncer().run('full');
      expect(summary.removalSkipped).toEqual([]);
      expect(summary.events.deleted).toBe(1);
      expect(summary.markets.deleted).toBe(goneMarkets.length + 1);
      expect(summary.series.deleted).toBe(1);
      expect(summary.tags.deleted).toBe(1);
      // The tag's own relations and the one its parent held to it (the parent's others renumbered).
      expect(summary.tagRelations.deleted).toBeGreaterThanOrEqual(2);
      expect((await stored('alpha_tag_relations')).length).toBe(groundTruth(sim).alpha_tag_relations.length);
      expect(relationsBefore).toBeGreaterThan(groundTruth(sim).alpha_tag_relations.length);
      const ids = await storedIds();
      expect(ids.alpha_events).not.toContain(gone!.id);
      expect(ids.alpha_markets).not.toContain(removedMarket.id);
      for (const m of goneMarkets) expect(ids.alpha_markets).not.toContain(m.id);
      expect(ids.alpha_markets).toContain(detached.id);
      expect(ids.alpha_series).not.toContain(series.id);
      expect(ids.alpha_tags).not.toContain(tag.id);
      await expectGroundTruth();
      // Nothing more to delete or write.
      const again = await syncer().run('full');
      for (const c of [again.events, again.markets, again.series, again.tags, again.tagRelations]) {
        expect([c.written, c.deleted]).toEqual([0, 0]);
      }
    } finally {
      restore();
    }
    // Back upstream, back in the tables.
    await syncer().run('full');
    await expectGroundTruth();
  });

  it('deletes nothing after a failed sweep, an empty events listing or a failed record without an id', async () => {
    await reset();
    await syncer().run('full');
    const before = await storedIds();
    const a = sim.catalog.venues.alpha;
    const [event] = a.events;
    const [tag] = [...a.tags].sort((p, q) => Number(p.id) - Number(q.id));
    const restore = withdraw(() => {
      drop(a.events, event!);
      for (const k of event!.marketKeys) drop(a.markets, a.markets.find((m) => m.key === k)!);
      drop(a.tags, tag!);
    });
    try {
      // The events read fails after tags and series were read: no deletion.
      sim.replicas!.faults.set('alpha_metadata', { rate5xx: 1, path: '/events' });
      await expect(syncer().run('full')).rejects.toBeInstanceOf(HttpRetryableError);
      sim.replicas!.faults.clear();
      expect(await storedIds()).toEqual(before);

      // The first tag's id comes back corrupted once (then clean on the re-read): tags are left alone.
      sim.replicas!.faults.enqueue('alpha_metadata', { kind: 'malformed', path: '/tags' });
      const malformed = await syncer().run('full');
      expect(malformed.removalSkipped).toEqual(['alpha_tags: a failed record without an id']);
      expect(malformed.tags.deleted).toBe(0);
      expect(malformed.events.deleted).toBe(1);
      expect(malformed.markets.deleted).toBe(event!.marketKeys.length);
      expect((await storedIds()).alpha_tags).toEqual(before.alpha_tags);
    } finally {
      restore();
    }
    await syncer().run('full');
    await expectGroundTruth();

    // No events at all upstream: taken as a fault, nothing deleted.
    const restoreEmpty = withdraw(() => {
      a.events.splice(0, Infinity);
    });
    try {
      const empty = await syncer().run('full');
      expect(empty.events.read).toBe(0);
      expect(empty.removalSkipped).toEqual([
        'all: the upstream listed no events (taken as a fault; nothing deleted)',
      ]);
      expect(
        [empty.events, empty.markets, empty.series, empty.tags, empty.tagRelations].map((c) => c.deleted),
      ).toEqual([0, 0, 0, 0, 0]);
      expect(await storedIds()).toEqual(before);
    } finally {
      restoreEmpty();
    }
    await syncer().run('full');
    await expectGroundTruth();
  });

  const queued: [string, () => void][] = [
    [
      'rate_limit',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          { kind: 'rate_limit', retryAfterS: 1, path: '/tags' },
          { kind: 'rate_limit', retryAfterS: 1, path: '/events' },
        ),
    ],
    [
      'server_error',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          { kind: 'server_error', status: 502, path: '/series' },
          { kind: 'server_error', status: 503, path: '/events' },
          { kind: 'server_error', status: 500, path: '/tags' },
        ),
    ],
    [
      'hang',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          { kind: 'hang', path: '/events' },
          { kind: 'hang', path: '/tags' },
        ),
    ],
    [
      'malformed',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          { kind: 'malformed', path: '/tags' },
          { kind: 'malformed', path: '/series' },
          { kind: 'malformed', path: '/events' },
        ),
    ],
    [
      'duplicate_page',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          ...past('/tags'),
          { kind: 'duplicate_page', path: '/tags' },
          ...past('/events'),
          { kind: 'duplicate_page', path: '/events' },
        ),
    ],
    [
      'overlap_page',
      () =>
        sim.replicas!.faults.enqueue(
          'alpha_metadata',
          ...past('/tags'),
          { kind: 'overlap_page', path: '/tags' },
          ...past('/events'),
          { kind: 'overlap_page', path: '/events' },
        ),
    ],
  ];

  const pageSize = 4;

  for (const [kind, inject] of queued) {
    it(`ends with the fault-free tables under queued ${kind} faults`, async () => {
      await reset();
      const s = syncer({ pageSize, timeoutMs: 400 });
      const before = sim.replicas!.faults.injected('alpha_metadata');
      // Pages of 4, so that the paging faults hit pages after the first.
      inject();
      const summary = await s.run('full');
      const injected = injectedSince(before);
      expect(injected[kind as keyof typeof injected]).toBeGreaterThan(0);
      expect(expectRetryAfterHonoured(s.log)).toBe(injected.rate_limit);
      await expectGroundTruth();
      const q = await quarantined();
      if (kind === 'malformed') {
        const a = sim.catalog.venues.alpha;
        const byId = <T extends { id: string }>(xs: T[]) =>
          [...xs].sort((p, r) => Number(p.id) - Number(r.id));
        const openEvents = byId(a.events).filter((e) =>
          e.marketKeys.some((k) => sim.state.status('alpha', k).status === 'open'),
        );
        // The corrupted field is each first record's `id`: quarantined under its slug.
        expect(q).toEqual([
          { kind: 'event', record_id: `slug:${openEvents[0]!.slug}` },
          { kind: 'series', record_id: `slug:${byId(a.series)[0]!.slug}` },
          { kind: 'tag', record_id: `slug:${byId(a.tags)[0]!.slug}` },
        ]);
        expect(summary.quarantined).toBe(3);
      } else {
        expect(q).toEqual([]);
      }
      if (kind === 'duplicate_page' || kind === 'overlap_page') expect(summary.rereads).toBeGreaterThan(0);
    }, 60_000);
  }

  const rates: [string, FaultRates][] = [
    ['rate_limit', { rate429: 0.2, retryAfterS: 1 }],
    ['server_error', { rate5xx: 0.2, status: 503 }],
    ['hang', { rateHang: 0.2 }],
    ['malformed', { rateMalformed: 0.2 }],
    ['duplicate_page', { rateDuplicatePage: 0.2 }],
    ['overlap_page', { rateOverlapPage: 0.2 }],
  ];

  for (const [kind, r] of rates) {
    it(`ends with the fault-free tables under ${kind} faults at a 20 % rate`, async () => {
      await reset();
      const s = syncer({ pageSize, timeoutMs: 400 });
      const before = sim.replicas!.faults.injected('alpha_metadata');
      sim.replicas!.faults.set('alpha_metadata', r);
      const summary = await s.run('full');
      const injected = injectedSince(before);
      expect(injected[kind as keyof typeof injected]).toBeGreaterThan(0);
      expect(expectRetryAfterHonoured(s.log)).toBe(kind === 'rate_limit' ? injected.rate_limit : 0);
      await expectGroundTruth();
      const q = await quarantined();
      if (kind === 'malformed') {
        expect(q.length).toBeGreaterThan(0);
        expect(summary.quarantined).toBe(q.length);
        const a = sim.catalog.venues.alpha;
        const known = new Set([
          ...a.events.map((e) => `event:slug:${e.slug}`),
          ...a.series.map((x) => `series:slug:${x.slug}`),
          ...a.tags.map((x) => `tag:slug:${x.slug}`),
          ...groundTruth(sim).alpha_tag_relations.map((x) => `tag_relation:${x.tag_id}->${x.related_tag_id}`),
        ]);
        for (const x of q) expect(known).toContain(`${x.kind}:${x.record_id}`);
      } else {
        expect(q).toEqual([]);
      }
    }, 120_000);
  }
});

describe('alpha catalog sync of the medium world', () => {
  let medium: World;
  let startupMs = 0;

  beforeAll(async () => {
    const t0 = performance.now();
    // The catalog sync reads the metadata replica only, which serves the catalog and the world state:
    // the medium world without its chain (alpha traded and resolved by the state itself, as the
    // replicas-only worlds of test/api-venue-markets-sim.test.ts), at the end of its horizon.
    const catalog = generateCatalog({
      seed: 'alpha-catalog-medium',
      size: 'medium',
      startTime: DEFAULT_START_TIME,
    });
    const state = createWorldState(catalog, { alpha: 'self' });
    state.tick(catalog.endTime);
    const replicas = await startReplicas({ catalog, state });
    startupMs = performance.now() - t0;
    // One embedded engine per process serves one database: the small world's, emptied first.
    medium = { sim: { catalog, state, replicas, replicaUrls: replicas.urls }, deps };
  }, 360_000);

  afterAll(async () => {
    await medium?.sim.replicas?.close();
  });

  it('stores every event, market, series, tag and relation as the replica serves them; a re-sync changes nothing', async () => {
    const a = medium.sim.catalog.venues.alpha;
    // The medium catalog: ≈ 200 markets (several pages of the replica's default 20, one of 500).
    expect(a.markets.length).toBeGreaterThan(100);
    await reset();
    const t0 = performance.now();
    const summary = await syncer({}, medium).run('full');
    const syncMs = performance.now() - t0;
    expect(summary.events.read).toBe(a.events.length);
    expect(summary.markets.read).toBe(a.markets.length);
    expect(summary.series.read).toBe(a.series.length);
    expect(summary.tags.read).toBe(a.tags.length);
    expect(summary.quarantined).toBe(0);
    await expectGroundTruth(medium);

    const before = await counts(medium);
    const again = await syncer({}, medium).run('full');
    for (const c of [again.events, again.markets, again.series, again.tags, again.tagRelations]) {
      expect([c.written, c.deleted]).toEqual([0, 0]);
    }
    expect(await counts(medium)).toEqual(before);
    await expectGroundTruth(medium);
    console.info(
      `medium world: startup ${Math.round(startupMs)} ms, sync ${Math.round(syncMs)} ms, ` +
        `${a.events.length} events, ${a.markets.length} markets, ${a.series.length} series, ${a.tags.length} tags`,
    );
  }, 60_000);
});
