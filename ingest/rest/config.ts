/**
 * Settings every REST venue ingestor shares (beta, gamma, delta, epsilon; docs/venues.md): how often the
 * market lists are polled, the HTTP timeout of one attempt and how often a full listing reconciles the
 * tables, and how their order books are recorded (docs/orderbooks.md). Each venue's own section (ingest/venues/<code>/config.ts) holds its upstream URL and anything
 * particular to it. Read with `venuesConfig.of(config)`.
 */
import { defineConfigSection, integer } from '../../core/config.ts';

export const venuesConfig = defineConfigSection('venues', {
  /** Seconds between two polls of a venue's markets (and events, series). */
  marketsPollS: {
    env: 'VENUE_MARKETS_POLL_S',
    default: '60',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** Timeout of one HTTP attempt to a venue's upstream, headers and body. */
  httpTimeoutMs: {
    env: 'VENUE_HTTP_TIMEOUT_MS',
    default: '10000',
    form: 'an integer 100..600000 (milliseconds)',
    parse: integer(100, 600_000),
  },
  /** Seconds between two reconciliations (a full listing; beta trades per ticker against volume). */
  reconcileS: {
    env: 'VENUE_RECONCILE_S',
    default: '3600',
    form: 'an integer 10..604800 (seconds)',
    parse: integer(10, 604_800),
  },
  /** Seconds between two polls of the open markets' order books (beta, gamma, delta; epsilon's with its markets). */
  orderbookPollS: {
    env: 'ORDERBOOK_POLL_S',
    default: '60',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** An unchanged book is recorded again once this many seconds passed since its last snapshot. */
  orderbookKeepaliveS: {
    env: 'ORDERBOOK_KEEPALIVE_S',
    default: '900',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** Days order book snapshots are kept (orderbook_snapshots, alpha_book_quotes); 0 keeps them. */
  orderbookTtlDays: {
    env: 'ORDERBOOK_TTL_DAYS',
    default: '0',
    form: 'an integer 0..36500 (days; 0 = keep)',
    parse: integer(0, 36_500),
  },
});
