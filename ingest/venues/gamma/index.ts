/**
 * Venue gamma (docs/venues.md), declared for the stream runner (ingest/rest/runner.ts): its API
 * (client.ts), its records' rows (mappers.ts) and two streams: `markets`, written to gamma_markets and
 * gamma_events (markets before events) with `writeChanged`, and `orderbooks` (job `gamma.orderbooks`,
 * every ORDERBOOK_POLL_S, lease `gamma:orderbooks:lease`): the open clob markets' books into
 * orderbook_snapshots (orderbooks.ts, ingest/orderbooks/stream.ts; bumps `books:gamma`).
 *
 * One run of `markets`, `poll` (every VENUE_MARKETS_POLL_S) or `reconcile` (every VENUE_RECONCILE_S):
 * 1. every page of `/markets/active` (single markets, and groups with their markets);
 * 2. entries the listing missed: in `reconcile` always, in `poll` when it held fewer entries than its
 *    `totalMarketsCount` (a page served late skips records), `/markets/active/slugs` is read and every
 *    entry it names that the pages did not hold is read by slug;
 * 3. markets that left the active list: every stored market not resolved and not in this listing is read
 *    again by slug (a group's market through its group's slug), until a read finds it resolved; a 404
 *    leaves the stored row as it is (logged);
 * 4. one batch of every entry read, written by the runner; the watermark `markets` (poll) or `reconcile`
 *    = the run's observation time after the data.
 * Both modes take the lease `gamma:markets:lease`: a scheduled poll finding it held is skipped, a
 * reconciliation retries. Upstream failures the HTTP client gives up on end the run (nothing written).
 */
import { GAMMA_EVENTS, GAMMA_MARKETS } from '../../../schemas/tables/gamma.ts';
import { orderbookStream } from '../../orderbooks/stream.ts';
import { listingStream, venueClient } from '../../rest/listing.ts';
import { defineVenue, type StreamContext } from '../../rest/runner.ts';
import { createGammaClient, type GammaClient, type GammaEntry } from './client.ts';
import { gammaConfig } from './config.ts';
import { entryRows, type GammaEventRow, type GammaMarketRow } from './mappers.ts';
import { readOrderbooks } from './orderbooks.ts';

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

type Ctx = StreamContext<GammaSyncMode, unknown, GammaSyncSummary>;

/** The entries of one run (by slug, a later read replacing an earlier one), as one batch. */
async function* readMarkets(client: GammaClient, ctx: Ctx): AsyncIterable<GammaEntry[]> {
  const { summary: s } = ctx;
  const entries = new Map<string, GammaEntry>();
  const listing = await client.active();
  ctx.account(listing);
  for (const e of listing.entries) entries.set(e.slug, e);
  ctx.step('active list');

  if (ctx.mode === 'reconcile' || listing.entries.length < listing.total) {
    const slugs = await client.activeSlugs();
    ctx.account(slugs);
    for (const { slug } of slugs.slugs) {
      if (entries.has(slug)) continue;
      const r = await client.entry(slug);
      ctx.account(r);
      if (r.entry) {
        entries.set(r.entry.slug, r.entry);
        s.filled++;
      } else if (r.gone) s.gone++;
    }
    ctx.step('active slugs');
  }

  // Markets that left the active list: read again (by their group's slug when in a group) until resolved.
  const listed = new Set<string>();
  for (const e of entries.values()) {
    if (e.kind === 'market') listed.add(e.slug);
    else for (const m of e.marketSlugs) listed.add(m);
  }
  const pending = await ctx.clickhouse.query<{ slug: string; event_key: string }>(
    'gamma.unresolved',
    `SELECT slug, event_key FROM ${GAMMA_MARKETS.name} FINAL WHERE status != 'resolved'`,
  );
  const toRead = new Set<string>();
  for (const p of pending) if (!listed.has(p.slug)) toRead.add(p.event_key || p.slug);
  for (const slug of toRead) {
    if (entries.has(slug)) continue;
    const r = await client.entry(slug);
    ctx.account(r);
    if (r.entry) {
      entries.set(r.entry.slug, r.entry);
      s.reread++;
    } else if (r.gone) {
      s.gone++;
      ctx.log.warn({ venue: 'gamma', slug }, 'A stored gamma market or group is gone upstream (404)');
    }
  }
  if (toRead.size > 0) ctx.step('left the active list');
  yield [...entries.values()];
}

function rows(entries: readonly GammaEntry[]) {
  const markets: GammaMarketRow[] = [];
  const events: GammaEventRow[] = [];
  for (const e of entries) {
    const r = entryRows(e);
    markets.push(...r.markets);
    if (r.event) events.push(r.event);
  }
  return { [GAMMA_MARKETS.name]: markets, [GAMMA_EVENTS.name]: events };
}

export const gamma = defineVenue({
  code: 'gamma',
  source: 'gamma',
  config: gammaConfig,
  client: venueClient(gammaConfig, createGammaClient),
  streams: [
    listingStream('gamma', {
      summary: (mode: GammaSyncMode): GammaSyncSummary => ({
        mode,
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
      }),
      read: readMarkets,
      rows,
      tables: [
        { table: GAMMA_MARKETS, key: 'slug', counts: (s) => s },
        { table: GAMMA_EVENTS, key: 'slug', counts: (s) => s.events },
      ],
      log: 'Synced gamma',
    }),
    orderbookStream('gamma', readOrderbooks),
  ],
});
