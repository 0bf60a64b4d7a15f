/**
 * Venue delta (docs/venues.md), declared for the stream runner (ingest/rest/runner.ts): its API
 * (client.ts), its records' rows (mappers.ts) and two streams: `markets`, written to delta_markets and
 * delta_events (markets before events) with `writeChanged`, and `orderbooks` (job `delta.orderbooks`,
 * every ORDERBOOK_POLL_S, lease `delta:orderbooks:lease`): the open markets' YES books into
 * orderbook_snapshots (orderbooks.ts, ingest/orderbooks/stream.ts; bumps `books:delta`).
 *
 * One run of `markets`, `poll` (every VENUE_MARKETS_POLL_S) or `reconcile` (every VENUE_RECONCILE_S):
 * 1. the listing `/market?marketType=2`: in `poll` the activated markets, in `reconcile` every status
 *    (a full listing); read again while it holds fewer entries than its `total`;
 * 2. stored markets not resolved and not in this listing (they stopped trading, or a page skipped them):
 *    read by id (a categorical market's child through its parent, `/market/categorical/{id}`) until a read
 *    finds them resolved; a 404 leaves the stored row as it is (logged);
 * 3. prices: the listing serves none, so the YES token's `/token/latest-price` is read for each market
 *    not resolved whose volume differs from the stored row's (or that has no stored price); an unchanged
 *    volume means no trade since, so the stored prices stand (an idle poll reads no price);
 * 4. one batch of the entries and their YES prices, written by the runner; the watermark `markets`
 *    (poll) or `reconcile` = the run's observation time after the data.
 * Both modes take the lease `delta:markets:lease` (a poll finding it held is skipped, a reconciliation
 * retries). Upstream failures the HTTP client gives up on (and `code` ≠ 0 answers the client gives up
 * on) end the run (nothing written).
 */
import { DELTA_EVENTS, DELTA_MARKETS } from '../../../schemas/tables/delta.ts';
import { orderbookStream } from '../../orderbooks/stream.ts';
import { listingStream, venueClient } from '../../rest/listing.ts';
import { defineVenue, type StreamContext } from '../../rest/runner.ts';
import { createDeltaClient, type DeltaClient, type DeltaEntry } from './client.ts';
import { deltaConfig } from './config.ts';
import { type DeltaEventRow, type DeltaMarketRow, entryRows, marketsOf, settled, usd } from './mappers.ts';
import { readOrderbooks } from './orderbooks.ts';

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

/** Concurrent `/token/latest-price` reads. */
const PRICE_CONCURRENCY = 4;

interface Stored {
  market_id: string;
  event_key: string;
  status: string;
  volume_usd: number;
  prices: (number | null)[];
}

interface Batch {
  entries: DeltaEntry[];
  /** The YES price of each market (by marketId). */
  yes: Map<number, number | null>;
}

type Ctx = StreamContext<DeltaSyncMode, unknown, DeltaSyncSummary>;

async function* readMarkets(client: DeltaClient, ctx: Ctx): AsyncIterable<Batch> {
  const { summary: s } = ctx;
  /** Entries by marketId (a later read replaces an earlier one). */
  const entries = new Map<string, DeltaEntry>();
  const listing = await client.list(ctx.mode === 'poll' ? 'activated' : null);
  ctx.account(listing);
  for (const e of listing.entries) entries.set(String(e.market.marketId), e);
  ctx.step('listing');

  const stored = new Map<string, Stored>();
  for (const r of await ctx.clickhouse.query<Stored>(
    'delta.stored',
    `SELECT toString(market_id) AS market_id, event_key, status, volume_usd, prices FROM ${DELTA_MARKETS.name} FINAL`,
  )) {
    stored.set(r.market_id, r);
  }

  // Markets not resolved that the listing did not hold: read by id (a child through its parent).
  const listed = new Set<string>();
  for (const e of entries.values()) for (const m of marketsOf(e)) listed.add(String(m.marketId));
  const toRead = new Map<string, boolean>();
  for (const st of stored.values()) {
    if (st.status === 'resolved' || listed.has(st.market_id)) continue;
    if (st.event_key) toRead.set(st.event_key, true);
    else toRead.set(st.market_id, false);
  }
  for (const [id, categorical] of toRead) {
    if (entries.has(id)) continue;
    const r = await client.market(id, categorical);
    ctx.account(r);
    if (r.entry) {
      entries.set(String(r.entry.market.marketId), r.entry);
      s.reread++;
    } else if (r.gone) {
      s.gone++;
      ctx.log.warn({ venue: 'delta', id, categorical }, 'A stored delta market is gone upstream (404)');
    }
  }
  if (toRead.size > 0) ctx.step('not listed, read by id');

  // Prices: the YES token's latest trade price where the volume moved (or no price is stored).
  const yes = new Map<number, number | null>();
  const needed: { id: number; token: string }[] = [];
  for (const e of entries.values()) {
    for (const m of marketsOf(e)) {
      if (settled(m)) continue;
      const st = stored.get(String(m.marketId));
      if (st && st.volume_usd === usd(m.volume) && st.prices[0] !== null && st.prices[0] !== undefined) {
        yes.set(m.marketId, st.prices[0]);
      } else if (m.yesTokenId) needed.push({ id: m.marketId, token: m.yesTokenId });
    }
  }
  for (let i = 0; i < needed.length; i += PRICE_CONCURRENCY) {
    const batch = needed.slice(i, i + PRICE_CONCURRENCY);
    const read = await Promise.all(batch.map((x) => client.latestPrice(x.token)));
    read.forEach((r, j) => {
      ctx.account(r);
      s.prices++;
      yes.set(batch[j]!.id, r.price);
    });
  }
  if (needed.length > 0) ctx.step('prices');
  yield { entries: [...entries.values()], yes };
}

function rows({ entries, yes }: Batch) {
  const markets: DeltaMarketRow[] = [];
  const events: DeltaEventRow[] = [];
  for (const e of entries) {
    const r = entryRows(e, (id) => yes.get(id) ?? null);
    markets.push(...r.markets);
    if (r.event) events.push(r.event);
  }
  return { [DELTA_MARKETS.name]: markets, [DELTA_EVENTS.name]: events };
}

export const delta = defineVenue({
  code: 'delta',
  source: 'delta',
  config: deltaConfig,
  client: venueClient(deltaConfig, createDeltaClient),
  streams: [
    listingStream('delta', {
      summary: (mode: DeltaSyncMode): DeltaSyncSummary => ({
        mode,
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
      }),
      read: readMarkets,
      rows,
      tables: [
        { table: DELTA_MARKETS, key: 'market_id', counts: (s) => s },
        { table: DELTA_EVENTS, key: 'event_id', counts: (s) => s.events },
      ],
      log: 'Synced delta',
    }),
    orderbookStream('delta', readOrderbooks),
  ],
});
