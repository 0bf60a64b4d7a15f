/**
 * Venue delta's ingestion (docs/venues.md): reads its API (client.ts), maps entries to rows (mappers.ts)
 * and writes delta_markets and delta_events with `writeChanged` (ingest/rest/store.ts: only new or
 * changed rows, so an idle poll writes nothing).
 *
 * One sync, `poll` or `reconcile`:
 * 1. the listing `/market?marketType=2`: in `poll` the activated markets, in `reconcile` every status
 *    (a full listing); read again while it holds fewer entries than its `total`;
 * 2. stored markets not resolved and not in this listing (they stopped trading, or a page skipped them):
 *    read by id (a categorical market's child through its parent, `/market/categorical/{id}`) until a read
 *    finds them resolved; a 404 leaves the stored row as it is (logged);
 * 3. prices: the listing serves none, so the YES token's `/token/latest-price` is read for each market
 *    not resolved whose volume differs from the stored row's (or that has no stored price); an unchanged
 *    volume means no trade since, so the stored prices stand (an idle poll reads no price);
 * 4. rows written (markets before events), failed records quarantined (source `delta`, by kind and id),
 *    the checkpoint (`markets` or `reconcile` = the sync's observation time) after the data, and
 *    `venue:delta` bumped when a row was written.
 * Upstream failures the HTTP client gives up on (and `code` ≠ 0 answers the client gives up on) end the
 * sync with that error (nothing written by it).
 */
import type { Config } from '../../../core/config.ts';
import { createDataVersions } from '../../../core/data-version.ts';
import type { Deps } from '../../../core/deps.ts';
import { DELTA_EVENTS, DELTA_MARKETS } from '../../../schemas/tables/delta.ts';
import { createHttpClient } from '../../http/client.ts';
import { venuesConfig } from '../../rest/config.ts';
import { quarantineRecords, writeChanged, writeCheckpoint } from '../../rest/store.ts';
import { createDeltaClient, type DeltaClient, type DeltaEntry, type ReadCounts } from './client.ts';
import { deltaConfig } from './config.ts';
import { type DeltaEventRow, type DeltaMarketRow, entryRows, marketsOf, settled, usd } from './mappers.ts';
import type { InvalidRecord } from './payloads.ts';

export const DELTA_VENUE = 'delta';
export type DeltaSyncMode = 'poll' | 'reconcile';

export interface DeltaSyncSummary {
  mode: DeltaSyncMode;
  /** Market records read (after deduplication), and rows written (new or changed). */
  read: number;
  written: number;
  events: { read: number; written: number };
  /** Stored markets not resolved and not listed, read again by id (entries read). */
  reread: number;
  /** By-id reads the upstream answered 404. */
  gone: number;
  /** `/token/latest-price` reads. */
  prices: number;
  /** Records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages or entries read again after a repeat, a failed record, a `code` ≠ 0 or a short listing. */
  rereads: number;
  ms: number;
}

export interface DeltaSyncDeps extends Pick<Deps, 'clickhouse' | 'log'> {
  config?: Config;
  redis?: Deps['redis'];
  /** The upstream client (default: from the config's DELTA_API_URL and VENUE_HTTP_TIMEOUT_MS). */
  client?: DeltaClient;
  /** Observation clock (default: the upstream's clock, HttpClient.clock). */
  now?: () => number;
}

export interface DeltaSyncOptions {
  mode: DeltaSyncMode;
  /** Called after each step (the CLI's progress). */
  onProgress?: (step: string, summary: DeltaSyncSummary) => void;
}

/** Concurrent `/token/latest-price` reads. */
const PRICE_CONCURRENCY = 4;

/** The delta client for a configuration. */
export function createDeltaClientFromConfig(config: Config): DeltaClient {
  return createDeltaClient({
    http: createHttpClient({
      baseUrl: deltaConfig.of(config).apiUrl,
      timeoutMs: venuesConfig.of(config).httpTimeoutMs,
    }),
  });
}

interface Stored {
  market_id: string;
  event_key: string;
  status: string;
  volume_usd: number;
  prices: (number | null)[];
}

export async function syncDelta(deps: DeltaSyncDeps, opts: DeltaSyncOptions): Promise<DeltaSyncSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = deps.client ?? createDeltaClientFromConfig(requireConfig(deps));
  const now = deps.now ?? client.clock;
  const summary: DeltaSyncSummary = {
    mode: opts.mode,
    read: 0,
    written: 0,
    events: { read: 0, written: 0 },
    reread: 0,
    gone: 0,
    prices: 0,
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

  /** Entries by marketId (a later read replaces an earlier one). */
  const entries = new Map<string, DeltaEntry>();
  const listing = await client.list(opts.mode === 'poll' ? 'activated' : null);
  account(listing);
  for (const e of listing.entries) entries.set(String(e.market.marketId), e);
  step('listing');

  const stored = new Map<string, Stored>();
  for (const r of await ch.query<Stored>(
    'delta.stored',
    `SELECT toString(market_id) AS market_id, event_key, status, volume_usd, prices FROM ${DELTA_MARKETS.name} FINAL`,
  )) {
    stored.set(r.market_id, r);
  }

  // Markets not resolved that the listing did not hold: read by id (a child through its parent).
  const listed = new Set<string>();
  for (const e of entries.values()) for (const m of marketsOf(e)) listed.add(String(m.marketId));
  const toRead = new Map<string, boolean>();
  for (const s of stored.values()) {
    if (s.status === 'resolved' || listed.has(s.market_id)) continue;
    if (s.event_key) toRead.set(s.event_key, true);
    else toRead.set(s.market_id, false);
  }
  for (const [id, categorical] of toRead) {
    if (entries.has(id)) continue;
    const r = await client.market(id, categorical);
    account(r);
    if (r.entry) {
      entries.set(String(r.entry.market.marketId), r.entry);
      summary.reread++;
    } else if (r.gone) {
      summary.gone++;
      deps.log.warn({ venue: DELTA_VENUE, id, categorical }, 'A stored delta market is gone upstream (404)');
    }
  }
  if (toRead.size > 0) step('not listed, read by id');

  // Prices: the YES token's latest trade price where the volume moved (or no price is stored).
  const yes = new Map<number, number | null>();
  const needed: { id: number; token: string }[] = [];
  for (const e of entries.values()) {
    for (const m of marketsOf(e)) {
      if (settled(m)) continue;
      const s = stored.get(String(m.marketId));
      if (s && s.volume_usd === usd(m.volume) && s.prices[0] !== null && s.prices[0] !== undefined) {
        yes.set(m.marketId, s.prices[0]);
      } else if (m.yesTokenId) needed.push({ id: m.marketId, token: m.yesTokenId });
    }
  }
  for (let i = 0; i < needed.length; i += PRICE_CONCURRENCY) {
    const batch = needed.slice(i, i + PRICE_CONCURRENCY);
    const read = await Promise.all(batch.map((x) => client.latestPrice(x.token)));
    read.forEach((r, j) => {
      account(r);
      summary.prices++;
      yes.set(batch[j]!.id, r.price);
    });
  }
  if (needed.length > 0) step('prices');

  const marketRows: DeltaMarketRow[] = [];
  const eventRows: DeltaEventRow[] = [];
  for (const e of entries.values()) {
    const r = entryRows(e, (id) => yes.get(id) ?? null);
    marketRows.push(...r.markets);
    if (r.event) eventRows.push(r.event);
  }
  const observedAt = now();
  const fresh = [...invalid.values()];
  await quarantineRecords(ch, DELTA_VENUE, fresh);
  summary.quarantined = fresh.length;
  summary.read = new Set(marketRows.map((r) => r.market_id)).size;
  summary.events.read = new Set(eventRows.map((r) => r.event_id)).size;
  summary.written = await writeChanged(ch, DELTA_MARKETS, marketRows, observedAt, {
    key: 'market_id',
    label: 'delta.markets',
  });
  summary.events.written = await writeChanged(ch, DELTA_EVENTS, eventRows, observedAt, {
    key: 'event_id',
    label: 'delta.events',
  });
  await writeCheckpoint(ch, DELTA_VENUE, opts.mode === 'poll' ? 'markets' : 'reconcile', observedAt);
  if (summary.written + summary.events.written > 0 && deps.redis) {
    await createDataVersions({ redis: deps.redis }).bump(`venue:${DELTA_VENUE}`);
  }
  summary.ms = Math.round(performance.now() - t0);
  step('written');
  deps.log.info({ ...summary }, 'Synced delta');
  return summary;
}

function requireConfig(deps: DeltaSyncDeps): Config {
  if (!deps.config) throw new Error('The delta sync needs deps.client or deps.config');
  return deps.config;
}
