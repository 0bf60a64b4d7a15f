/**
 * Venue beta (docs/venues.md), declared for the stream runner (ingest/rest/runner.ts): its API
 * (client.ts), its records' rows (mappers.ts), its read strategies (read.ts) and three streams:
 * - `markets` (job `beta.markets`): `poll` every VENUE_MARKETS_POLL_S (series, the markets changed since
 *   the `markets` mark, their events not stored yet), `reconcile` every VENUE_RECONCILE_S (every series,
 *   market and event, then beta's trades per ticker against the markets' volume); beta_markets,
 *   beta_series and beta_events with `writeChanged`, the rescans' trades with `insertNew`. Lease
 *   `beta:markets:lease`, and `beta:trades:lease` too when it rescans trades; a reconciliation finding
 *   either held retries, a poll is skipped.
 * - `trades` (job `beta.trades`): `poll` every BETA_TRADES_POLL_S (trades newest first down to the newest
 *   stored one, minus an overlap), `backfill` (the CLI: down to `options.from`); beta_trades with
 *   `insertNew` (ids not stored). Lease `beta:trades:lease`.
 * - `orderbooks` (job `beta.orderbooks`): `poll` every ORDERBOOK_POLL_S, the open markets' books
 *   (orderbooks.ts) recorded in orderbook_snapshots (ingest/orderbooks/stream.ts; bumps `books:beta`).
 *   Lease `beta:orderbooks:lease`.
 * A run of `markets` or `trades` that wrote a row bumps `venue:beta`; a markets run that wrote markets or events enqueues beta's
 * canonical ids (jobs/processors/venue-streams.ts).
 */
import { BETA_EVENTS, BETA_MARKETS, BETA_SERIES, BETA_TRADES } from '../../../schemas/tables/beta.ts';
import { orderbookStream } from '../../orderbooks/stream.ts';
import { listingSchedules, venueClient } from '../../rest/listing.ts';
import { defineStream, defineVenue, type RowsByTable } from '../../rest/runner.ts';
import { createBetaClient } from './client.ts';
import { betaConfig } from './config.ts';
import { betaFeed } from './feed.ts';
import { readOrderbooks } from './orderbooks.ts';
import {
  type BetaSyncMode,
  type BetaSyncOptions,
  type BetaSyncSummary,
  type BetaTradesMode,
  type BetaTradesOptions,
  type BetaTradesSummary,
  readMarkets,
  readTrades,
} from './read.ts';

export type {
  BetaSyncMode,
  BetaSyncOptions,
  BetaSyncSummary,
  BetaTradesMode,
  BetaTradesOptions,
  BetaTradesSummary,
} from './read.ts';

export const BETA_MARKETS_LEASE = 'beta:markets:lease';
export const BETA_TRADES_LEASE = 'beta:trades:lease';

const asRows = (batch: RowsByTable) => batch;

export const beta = defineVenue({
  code: 'beta',
  source: 'beta',
  config: betaConfig,
  client: venueClient(betaConfig, createBetaClient),
  // The book feed (feed.ts): job `beta.feed`, a WebSocket read without end under `beta:feed:lease`.
  feeds: [betaFeed],
  streams: [
    defineStream({
      name: 'markets',
      modes: ['poll', 'reconcile'],
      // The reconciliation inserts trades too: it holds the trades lease as well.
      leases: (mode: BetaSyncMode, o: BetaSyncOptions) =>
        mode === 'reconcile' && o.trades !== false
          ? [BETA_MARKETS_LEASE, BETA_TRADES_LEASE]
          : [BETA_MARKETS_LEASE],
      whenHeld: { reconcile: 'retry' },
      every: listingSchedules('beta'),
      summary: (mode: BetaSyncMode, _o: BetaSyncOptions): BetaSyncSummary => ({
        mode,
        read: 0,
        written: 0,
        events: { read: 0, written: 0 },
        series: { read: 0, written: 0 },
        quarantined: 0,
        requests: 0,
        rereads: 0,
        since: null,
        trades: null,
        ms: 0,
      }),
      read: readMarkets,
      rows: asRows,
      tables: [
        { table: BETA_MARKETS, key: 'ticker', counts: (s) => s },
        { table: BETA_SERIES, key: 'ticker', counts: (s) => s.series },
        // Events read now count as read (the stored events rewritten with them do not): read.ts counts them.
        { table: BETA_EVENTS, key: 'event_ticker', counts: (s) => s.events, read: 'none' },
        // The reconciliation's rescans: counted in `summary.trades` by read.ts.
        { table: BETA_TRADES, key: 'trade_id', write: 'new', scope: 'ticker' },
      ],
      canonical: (s) => s.written + s.events.written,
      finalStep: null,
      log: { message: 'Synced beta' },
    }),
    defineStream({
      name: 'trades',
      attempts: 3,
      modes: ['poll', 'backfill'],
      leases: () => [BETA_TRADES_LEASE],
      every: [
        {
          id: 'beta:trades-poll',
          mode: 'poll',
          everyMs: (c) => betaConfig.of(c).tradesPollS * 1000,
          payload: {},
        },
      ],
      summary: (_mode: BetaTradesMode, _o: BetaTradesOptions): BetaTradesSummary => ({
        read: 0,
        written: 0,
        quarantined: 0,
        requests: 0,
        rereads: 0,
        stopBefore: null,
        ms: 0,
      }),
      read: readTrades,
      rows: asRows,
      tables: [
        {
          table: BETA_TRADES,
          key: 'trade_id',
          write: 'new',
          scope: 'ticker',
          counts: (s) => s,
          read: 'rows',
        },
      ],
      finalStep: null,
      log: { message: 'Polled beta trades', level: 'debug' },
    }),
    orderbookStream('beta', readOrderbooks),
  ],
});
