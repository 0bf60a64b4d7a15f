/**
 * Venue epsilon (docs/venues.md), declared for the stream runner (ingest/rest/runner.ts): its API
 * (client.ts), its records' rows (mappers.ts) and one stream, `markets`, written to epsilon_markets,
 * epsilon_events and epsilon_tags with `writeChanged`.
 *
 * One run of `markets`, `poll` (every VENUE_MARKETS_POLL_S) or `reconcile` (every VENUE_RECONCILE_S):
 * 1. `/markets/` pages (`pagination.hasMore`): in `poll` the active markets, in `reconcile` every market
 *    (a full listing), read again while they hold fewer than `pagination.total`;
 * 2. `/events/` pages (`status` active in `poll`, all in `reconcile`) and `/tags/`; the markets nested in
 *    the events that the markets listing did not hold are checked and added (an active event's closed
 *    markets); an event a market names that the events pages did not hold is read by id;
 * 3. stored markets not resolved and not read above: read by id until a read finds them resolved; a 404
 *    leaves the stored row as it is (logged);
 * 4. books: the YES token's `/book` for every open market (best bid and ask per outcome, depths); a
 *    market not trading has an empty book, so none is read for it; each book is also recorded as the
 *    market's YES book snapshot (orderbook_snapshots, source `rest`, ORDERBOOK_KEEPALIVE_S; bumps
 *    `books:epsilon`; docs/orderbooks.md): epsilon's book history comes with its markets poll, no poll
 *    of its own;
 * 5. one batch of it all, written by the runner (markets, events, tags); the watermark `markets` (poll)
 *    or `reconcile` = the run's observation time after the data.
 * Both modes take the lease `epsilon:markets:lease` (a poll finding it held is skipped, a reconciliation
 * retries). Upstream failures the HTTP client gives up on end the run (nothing written).
 */
import { EPSILON_EVENTS, EPSILON_MARKETS, EPSILON_TAGS } from '../../../schemas/tables/epsilon.ts';
import type { BookSnapshot } from '../../orderbooks/store.ts';
import { recordBooks } from '../../orderbooks/stream.ts';
import { listingStream, venueClient } from '../../rest/listing.ts';
import { defineVenue, type StreamContext } from '../../rest/runner.ts';
import { createEpsilonClient, type EpsilonClient } from './client.ts';
import { epsilonConfig } from './config.ts';
import {
  type BookSummary,
  bookSnapshot,
  bookSummary,
  type EpsilonMarketRow,
  eventRow,
  marketRow,
  type Status,
  statusOf,
  tagRow,
} from './mappers.ts';
import { CHECKERS, type EventPayload, type MarketPayload, type TagPayload } from './payloads.ts';

export type EpsilonSyncMode = 'poll' | 'reconcile';

export interface EpsilonSyncSummary {
  mode: EpsilonSyncMode;
  /** Market records read (after deduplication), and rows written (new or changed). */
  read: number;
  written: number;
  events: { read: number; written: number };
  tags: { read: number; written: number };
  /** Stored markets not resolved and not listed, read again by id; events read by id. */
  reread: number;
  /** By-id reads the upstream answered 404. */
  gone: number;
  /** `/book` reads. */
  books: number;
  /** Records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages or records read again after a repeat, a failed record or a short listing. */
  rereads: number;
  ms: number;
}

/** Concurrent `/book` reads. */
const BOOK_CONCURRENCY = 4;

interface Batch {
  markets: Map<string, MarketPayload>;
  events: Map<string, EventPayload>;
  tags: TagPayload[];
  books: Map<string, BookSummary>;
  /** The same books as YES book snapshots (recorded in orderbook_snapshots). */
  snapshots: BookSnapshot[];
  /** Stored markets' statuses (an event's status counts its markets not read now too). */
  stored: Map<string, Status>;
}

type Ctx = StreamContext<EpsilonSyncMode, unknown, EpsilonSyncSummary>;

async function* readMarkets(client: EpsilonClient, ctx: Ctx): AsyncIterable<Batch> {
  const { summary: s } = ctx;
  const poll = ctx.mode === 'poll';
  const markets = new Map<string, MarketPayload>();
  const listing = await client.markets(poll ? true : null);
  ctx.account(listing);
  for (const m of listing.markets) markets.set(m.id, m);
  ctx.step('markets');

  const events = new Map<string, EventPayload>();
  const ev = await client.events(poll ? 'active' : 'all');
  ctx.account(ev);
  for (const e of ev.events) events.set(e.id, e);
  const tags = await client.tags();
  ctx.account(tags);
  // An event's nested markets the listing did not hold (an active event's closed markets).
  for (const e of events.values()) {
    for (const raw of e.markets ?? []) {
      const c = CHECKERS.market.check(raw);
      if (!c.ok) ctx.account({ invalid: [c.invalid], requests: 0, rereads: 0 });
      else if (!markets.has(c.value.id)) markets.set(c.value.id, c.value);
    }
  }
  ctx.step('events and tags');

  const stored = new Map<string, Status>();
  for (const r of await ctx.clickhouse.query<{ market_id: string; status: Status }>(
    'epsilon.stored',
    `SELECT toString(market_id) AS market_id, status FROM ${EPSILON_MARKETS.name} FINAL`,
  )) {
    stored.set(r.market_id, r.status);
  }
  let reread = 0;
  for (const [id, status] of stored) {
    if (status === 'resolved' || markets.has(id)) continue;
    const r = await client.market(id);
    ctx.account(r);
    reread++;
    if (r.market) {
      markets.set(r.market.id, r.market);
      s.reread++;
    } else if (r.gone) {
      s.gone++;
      ctx.log.warn({ venue: 'epsilon', id }, 'A stored epsilon market is gone upstream (404)');
    }
  }
  // Events named by markets that the events pages did not hold.
  const missing = new Set<string>();
  for (const m of markets.values()) {
    const id = m.event_id === null || m.event_id === undefined ? '' : String(m.event_id);
    if (id !== '' && !events.has(id)) missing.add(id);
  }
  for (const id of missing) {
    const r = await client.event(id);
    ctx.account(r);
    reread++;
    if (r.event) {
      events.set(r.event.id, r.event);
      s.reread++;
    } else if (r.gone) s.gone++;
  }
  if (reread > 0) ctx.step('read by id');

  const books = new Map<string, BookSummary>();
  const snapshots: BookSnapshot[] = [];
  const open = [...markets.values()].filter((m) => statusOf(m) === 'open' && m.clobTokenIds?.[0]);
  for (let i = 0; i < open.length; i += BOOK_CONCURRENCY) {
    const batch = open.slice(i, i + BOOK_CONCURRENCY);
    const read = await Promise.all(batch.map((m) => client.book(m.clobTokenIds![0]!)));
    read.forEach((r, j) => {
      ctx.account(r);
      s.books++;
      const m = batch[j]!;
      if (r.book) {
        books.set(m.id, bookSummary(r.book));
        snapshots.push(bookSnapshot(m.id, m.clobTokenIds![0]!, r.book, r.date ?? ctx.now()));
      }
    });
  }
  if (open.length > 0) ctx.step('books');
  yield { markets, events, tags: tags.tags, books, snapshots, stored };
}

function rows({ markets, events, tags, books, stored }: Batch) {
  const marketRows: EpsilonMarketRow[] = [];
  for (const m of markets.values()) {
    const e =
      m.event_id === null || m.event_id === undefined ? null : (events.get(String(m.event_id)) ?? null);
    marketRows.push(marketRow(m, e, books.get(m.id) ?? null));
  }
  const statuses = new Map<string, Status>(stored);
  for (const r of marketRows) statuses.set(String(r.market_id), r.status);
  return {
    [EPSILON_MARKETS.name]: marketRows,
    [EPSILON_EVENTS.name]: [...events.values()].map((e) => eventRow(e, statuses)),
    [EPSILON_TAGS.name]: tags.map(tagRow),
  };
}

export const epsilon = defineVenue({
  code: 'epsilon',
  source: 'epsilon',
  config: epsilonConfig,
  client: venueClient(epsilonConfig, createEpsilonClient),
  streams: [
    listingStream('epsilon', {
      summary: (mode: EpsilonSyncMode): EpsilonSyncSummary => ({
        mode,
        read: 0,
        written: 0,
        events: { read: 0, written: 0 },
        tags: { read: 0, written: 0 },
        reread: 0,
        gone: 0,
        books: 0,
        quarantined: 0,
        requests: 0,
        rereads: 0,
        ms: 0,
      }),
      read: readMarkets,
      rows,
      // The YES books read for the rows, kept as order book history (bumps `books:epsilon`, not counted
      // as rows of the venue's tables).
      write: async (batch, ctx) => {
        await recordBooks(ctx, 'epsilon', batch.snapshots);
        return 0;
      },
      tables: [
        { table: EPSILON_MARKETS, key: 'market_id', counts: (s) => s },
        { table: EPSILON_EVENTS, key: 'event_id', counts: (s) => s.events },
        { table: EPSILON_TAGS, key: 'tag_id', counts: (s) => s.tags },
      ],
      log: 'Synced epsilon',
    }),
  ],
});
