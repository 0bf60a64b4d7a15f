/**
 * Venue gamma's ingestion (docs/venues.md): reads its API (client.ts), maps entries to rows
 * (mappers.ts) and writes gamma_markets and gamma_events with `writeChanged` (ingest/rest/store.ts: only
 * new or changed rows, so an idle poll writes nothing).
 *
 * One sync, `poll` or `reconcile`:
 * 1. every page of `/markets/active` (single markets, and groups with their markets);
 * 2. entries the listing missed: in `reconcile` always, in `poll` when it held fewer entries than its
 *    `totalMarketsCount` (a page served late skips records), `/markets/active/slugs` is read and every
 *    entry it names that the pages did not hold is read by slug;
 * 3. markets that left the active list: every stored market not resolved and not in this listing is read
 *    again by slug (a group's market through its group's slug), until a read finds it resolved; a 404
 *    leaves the stored row as it is (logged);
 * 4. rows written (markets before events), failed records quarantined (source `gamma`, by kind and
 *    slug), the checkpoint (`markets` or `reconcile` = the sync's observation time) after the data, and
 *    `venue:gamma` bumped when a row was written.
 * Upstream failures the HTTP client gives up on end the sync with that error (nothing written by it).
 */
import type { Config } from '../../../core/config.ts';
import { createDataVersions } from '../../../core/data-version.ts';
import type { Deps } from '../../../core/deps.ts';
import { GAMMA_EVENTS, GAMMA_MARKETS } from '../../../schemas/tables/gamma.ts';
import { createHttpClient } from '../../http/client.ts';
import { venuesConfig } from '../../rest/config.ts';
import { quarantineRecords, writeChanged, writeCheckpoint } from '../../rest/store.ts';
import { createGammaClient, type GammaClient, type GammaEntry, type ReadCounts } from './client.ts';
import { gammaConfig } from './config.ts';
import { entryRows, type GammaEventRow, type GammaMarketRow } from './mappers.ts';
import type { InvalidRecord } from './payloads.ts';

export const GAMMA_VENUE = 'gamma';
export type GammaSyncMode = 'poll' | 'reconcile';

export interface GammaSyncSummary {
  mode: GammaSyncMode;
  /** Market records read (after deduplication), and rows written (new or changed). */
  read: number;
  written: number;
  events: { read: number; written: number };
  /** Entries of the active list read by slug because the pages missed them. */
  filled: number;
  /** Stored markets not resolved and no longer listed, read again by slug (entries read). */
  reread: number;
  /** By-slug reads the upstream answered 404. */
  gone: number;
  /** Records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages or entries read again after a repeat or a failed record. */
  rereads: number;
  ms: number;
}

export interface GammaSyncDeps extends Pick<Deps, 'clickhouse' | 'log'> {
  config?: Config;
  redis?: Deps['redis'];
  /** The upstream client (default: from the config's GAMMA_API_URL and VENUE_HTTP_TIMEOUT_MS). */
  client?: GammaClient;
  /** Observation clock (default: the upstream's clock, HttpClient.clock). */
  now?: () => number;
}

export interface GammaSyncOptions {
  mode: GammaSyncMode;
  /** Called after each step (the CLI's progress). */
  onProgress?: (step: string, summary: GammaSyncSummary) => void;
}

/** The gamma client for a configuration. */
export function createGammaClientFromConfig(config: Config): GammaClient {
  return createGammaClient({
    http: createHttpClient({
      baseUrl: gammaConfig.of(config).apiUrl,
      timeoutMs: venuesConfig.of(config).httpTimeoutMs,
    }),
  });
}

export async function syncGamma(deps: GammaSyncDeps, opts: GammaSyncOptions): Promise<GammaSyncSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = deps.client ?? createGammaClientFromConfig(requireConfig(deps));
  const now = deps.now ?? client.clock;
  const summary: GammaSyncSummary = {
    mode: opts.mode,
    read: 0,
    written: 0,
    events: { read: 0, written: 0 },
    filled: 0,
    reread: 0,
    gone: 0,
    quarantined: 0,
    requests: 0,
    rereads: 0,
    ms: 0,
  };
  const invalid = new Map<string, InvalidRecord>();
  const account = (r: ReadCounts) => {
    summary.requests += r.requests;
    summary.rereads += r.rereads;
    for (const x of r.invalid) invalid.set(`${x.kind}\u0000${x.recordId}`, x);
  };
  const step = (name: string) => {
    summary.ms = Math.round(performance.now() - t0);
    opts.onProgress?.(name, summary);
  };

  /** Entries by slug (a later read of the same slug replaces an earlier one). */
  const entries = new Map<string, GammaEntry>();
  const listing = await client.active();
  account(listing);
  for (const e of listing.entries) entries.set(e.slug, e);
  step('active list');

  if (opts.mode === 'reconcile' || listing.entries.length < listing.total) {
    const slugs = await client.activeSlugs();
    account(slugs);
    for (const s of slugs.slugs) {
      if (entries.has(s.slug)) continue;
      const r = await client.entry(s.slug);
      account(r);
      if (r.entry) {
        entries.set(r.entry.slug, r.entry);
        summary.filled++;
      } else if (r.gone) summary.gone++;
    }
    step('active slugs');
  }

  // Markets that left the active list: read again (by their group's slug when in a group) until resolved.
  const listed = new Set<string>();
  for (const e of entries.values()) {
    if (e.kind === 'market') listed.add(e.slug);
    else for (const s of e.marketSlugs) listed.add(s);
  }
  const pending = await ch.query<{ slug: string; event_key: string }>(
    'gamma.unresolved',
    `SELECT slug, event_key FROM ${GAMMA_MARKETS.name} FINAL WHERE status != 'resolved'`,
  );
  const toRead = new Set<string>();
  for (const p of pending) if (!listed.has(p.slug)) toRead.add(p.event_key || p.slug);
  for (const slug of toRead) {
    if (entries.has(slug)) continue;
    const r = await client.entry(slug);
    account(r);
    if (r.entry) {
      entries.set(r.entry.slug, r.entry);
      summary.reread++;
    } else if (r.gone) {
      summary.gone++;
      deps.log.warn({ venue: GAMMA_VENUE, slug }, 'A stored gamma market or group is gone upstream (404)');
    }
  }
  if (toRead.size > 0) step('left the active list');

  const marketRows: GammaMarketRow[] = [];
  const eventRows: GammaEventRow[] = [];
  for (const e of entries.values()) {
    const r = entryRows(e);
    marketRows.push(...r.markets);
    if (r.event) eventRows.push(r.event);
  }
  const observedAt = now();
  const fresh = [...invalid.values()];
  await quarantineRecords(ch, GAMMA_VENUE, fresh);
  summary.quarantined = fresh.length;
  const markets = new Set(marketRows.map((r) => r.slug));
  summary.read = markets.size;
  summary.events.read = new Set(eventRows.map((r) => r.slug)).size;
  summary.written = await writeChanged(ch, GAMMA_MARKETS, marketRows, observedAt, {
    key: 'slug',
    label: 'gamma.markets',
  });
  summary.events.written = await writeChanged(ch, GAMMA_EVENTS, eventRows, observedAt, {
    key: 'slug',
    label: 'gamma.events',
  });
  await writeCheckpoint(ch, GAMMA_VENUE, opts.mode === 'poll' ? 'markets' : 'reconcile', observedAt);
  if (summary.written + summary.events.written > 0 && deps.redis) {
    await createDataVersions({ redis: deps.redis }).bump(`venue:${GAMMA_VENUE}`);
  }
  summary.ms = Math.round(performance.now() - t0);
  step('written');
  deps.log.info({ ...summary }, 'Synced gamma');
  return summary;
}

function requireConfig(deps: GammaSyncDeps): Config {
  if (!deps.config) throw new Error('The gamma sync needs deps.client or deps.config');
  return deps.config;
}
