/**
 * Canonical ids over ingested replicas: a small world's venues synced from their replicas (alpha's
 * catalog, and beta, gamma, delta and epsilon through their syncs where they exist), `assignCanonical`
 * for each. Against the world's topics (read only here, as truth): every outcome has an id of the form;
 * outcomes of the same proposition share one id across venues (one on ≥ 3 venues) and no id spans two
 * propositions; every two-team beta game's home YES id is its away NO id; a second sync and assignment
 * change no id; alpha's market list serves exactly the stored alpha ids.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { CANONICAL_ID_PATTERN } from '../core/canonical-id.ts';
import { RetryableError } from '../core/errors.ts';
import { acquireLease } from '../core/lease.ts';
import { assignCanonical } from '../ingest/canonical/assign.ts';
import type { CanonicalVenue } from '../ingest/canonical/served.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { syncAlphaCatalog } from '../ingest/venues/alpha/metadata/sync.ts';
import type { JobContext } from '../jobs/define.ts';
import { type CanonicalPayload, canonicalJob, canonicalLease } from '../jobs/processors/canonical.ts';
import { proposition, storedMarketKey } from '../sim/world/canonical-truth.ts';
import type { VenueCode } from '../sim/world/catalog.ts';
import { startWorld, type World } from './sim-replicas-support.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
type SyncFn = (deps: object, opts: { mode: string }) => Promise<unknown>;

async function venueSync(venue: string): Promise<SyncFn | null> {
  const file = path.resolve(here, `../ingest/venues/${venue}/sync.ts`);
  if (!fs.existsSync(file)) return null;
  const fn = ((await import(file)) as Record<string, unknown>)[
    `sync${venue[0]!.toUpperCase()}${venue.slice(1)}`
  ];
  return typeof fn === 'function' ? (fn as SyncFn) : null;
}

let world: World;
let deps: TestDeps;
const venues: CanonicalVenue[] = [];

async function ingestAll() {
  const metadata = createAlphaMetadataClient({
    http: createHttpClient({ baseUrl: world.replicas.urls.alpha_metadata, timeoutMs: 10_000 }),
  });
  await syncAlphaCatalog({ ...deps, metadata }, { mode: 'full' });
  for (const v of venues) {
    if (v === 'alpha') continue;
    await (await venueSync(v))!(deps, { mode: 'reconcile' });
  }
  return Promise.all(venues.map((v) => assignCanonical(deps, v)));
}

const storedIds = async () =>
  new Map(
    (
      await deps.clickhouse.query<{ venue: string; market: string; outcome_index: number; id: string }>(
        'test.canonical.ids',
        'SELECT venue, market, outcome_index, id FROM canonical_outcomes FINAL',
      )
    ).map((r) => [`${r.venue}|${r.market}|${r.outcome_index}`, r.id]),
  );

beforeAll(async () => {
  world = await startWorld('canonical-venues');
  const u = world.replicas.urls;
  deps = await createTestDeps('canonical-venues', {
    env: { BETA_API_URL: u.beta, GAMMA_API_URL: u.gamma, DELTA_API_URL: u.delta, EPSILON_API_URL: u.epsilon },
  });
  venues.push('alpha');
  for (const v of ['beta', 'gamma', 'delta', 'epsilon'] as const) {
    if ((await venueSync(v)) !== null) venues.push(v);
  }
  await ingestAll();
}, 120_000);

afterAll(async () => {
  await world?.replicas.close();
  await deps?.close();
});

describe('canonical ids over ingested replicas', () => {
  it('ingests at least alpha and two other venues', () => {
    console.log(`canonical ids over ${venues.join(', ')}`);
    expect(venues.length).toBeGreaterThanOrEqual(3);
  });

  it('gives every outcome one id of the form; one proposition, one id, on ≥ 3 venues for some', async () => {
    const ids = await storedIds();
    const idsOfTruth = new Map<string, Set<string>>();
    const venuesOfTruth = new Map<string, Set<string>>();
    const truthsOfId = new Map<string, Set<string>>();
    for (const v of venues) {
      for (const m of world.catalog.venues[v as VenueCode].markets) {
        m.outcomes.forEach((_, i) => {
          const id = ids.get(`${v}|${storedMarketKey(m)}|${i}`);
          expect(id, `${v} ${m.key}#${i}`).toMatch(CANONICAL_ID_PATTERN);
          const truth = proposition(world.catalog, m, i);
          idsOfTruth.set(truth, (idsOfTruth.get(truth) ?? new Set()).add(id!));
          venuesOfTruth.set(truth, (venuesOfTruth.get(truth) ?? new Set()).add(v));
          truthsOfId.set(id!, (truthsOfId.get(id!) ?? new Set()).add(truth));
        });
      }
    }
    for (const [truth, set] of idsOfTruth) expect([...set], truth).toHaveLength(1);
    for (const [id, set] of truthsOfId) expect([...set], id).toHaveLength(1);
    const wide = [...venuesOfTruth.values()].filter((s) => s.size >= 3).length;
    console.log(`${idsOfTruth.size} propositions, ${wide} listed on ≥ 3 venues`);
    expect(wide).toBeGreaterThan(0);
  });

  it("gives every two-team beta game's home YES the id of its away NO", async () => {
    if (!venues.includes('beta')) return;
    const ids = await storedIds();
    let games = 0;
    for (const e of world.catalog.venues.beta.events) {
      if (!e.sports || e.marketKeys.length !== 2) continue;
      const markets = e.marketKeys.map((k) => world.catalog.venues.beta.markets.find((m) => m.key === k)!);
      const home = markets.find((m) => m.groupItemTitle === e.sports!.homeTeam.name)!;
      const away = markets.find((m) => m.groupItemTitle === e.sports!.awayTeam.name)!;
      expect(ids.get(`beta|${home.key}|0`)).toBe(ids.get(`beta|${away.key}|1`));
      expect(ids.get(`beta|${away.key}|0`)).toBe(ids.get(`beta|${home.key}|1`));
      games++;
    }
    expect(games).toBeGreaterThan(0);
  });

  it('changes no id on a second sync and assignment, and writes nothing', async () => {
    const before = await storedIds();
    const summaries = await ingestAll();
    for (const s of summaries) expect(s, s.venue).toMatchObject({ written: 0, created: 0, changedKeys: 0 });
    expect(await storedIds()).toEqual(before);
  });

  it("serves alpha's stored ids in alpha's market list", async () => {
    await buildAlphaCatalogLists(deps);
    const ids = await storedIds();
    const rows = await deps.clickhouse.query<{ market_id: string; canonical_ids: string[] }>(
      'test.canonical.alpha-list',
      'SELECT market_id, canonical_ids FROM alpha_market_list',
    );
    expect(rows.length).toBe(world.catalog.venues.alpha.markets.length);
    for (const r of rows) {
      expect(r.canonical_ids).toEqual(r.canonical_ids.map((_, i) => ids.get(`alpha|${r.market_id}|${i}`)));
    }
  });

  it("runs venues.canonical under the venue's lease, retrying while another run holds it", async () => {
    const run = (venue: CanonicalVenue) => {
      const ctx = {
        deps,
        job: { data: { venue } } as Job<CanonicalPayload>,
        log: deps.log,
        signal: new AbortController().signal,
        enqueue: async () => undefined,
      } satisfies JobContext<CanonicalPayload>;
      return canonicalJob.process(ctx);
    };
    const lease = await acquireLease(deps.redis, canonicalLease('gamma'), 30_000);
    try {
      await expect(run('gamma')).rejects.toBeInstanceOf(RetryableError);
    } finally {
      await lease.release();
    }
    await deps.clickhouse.command(
      'test.canonical.forget',
      "DELETE FROM canonical_outcomes WHERE venue = 'gamma'",
    );
    const s = await run('gamma');
    expect(s).toMatchObject({
      venue: 'gamma',
      markets: world.catalog.venues.gamma.markets.length,
      changedKeys: 0,
    });
    expect(s.created).toBe(s.outcomes);
  });
});
