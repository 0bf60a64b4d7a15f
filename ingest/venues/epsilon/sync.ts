/**
 * Venue epsilon's ingestion (docs/venues.md): reads its API (client.ts), maps records to rows
 * (mappers.ts) and writes epsilon_markets, epsilon_events and epsilon_tags with `writeChanged`
 * (ingest/rest/store.ts: only new or changed rows, so an idle poll writes nothing).
 *
 * One sync, `poll` or `reconcile`:
 * 1. `/markets/` pages (`pagination.hasMore`): in `poll` the active markets, in `reconcile` every market
 *    (a full listing), read again while they hold fewer than `pagination.total`;
 * 2. `/events/` pages (`status` active in `poll`, all in `reconcile`) and `/tags/`; the markets nested in
 *    the events that the markets listing did not hold are checked and added (an active event's closed
 *    markets); an event a market names that the events pages did not hold is read by id;
 * 3. stored markets not resolved and not read above: read by id until a read finds them resolved; a 404
 *    leaves the stored row as it is (logged);
 * 4. books: the YES token's `/book` for every open market (best bid and ask per outcome, depths); a
 *    market not trading has an empty book, so none is read for it;
 * 5. rows written (markets, events, tags), failed records quarantined (source `epsilon`, by kind and id),
 *    the checkpoint (`markets` or `reconcile` = the sync's observation time) after the data, and
 *    `venue:epsilon` bumped when a row was written.
 * Upstream failures the HTTP client gives up on end the sync with that error (nothing written by it).
 */
import type { Config } from '../../../core/config.ts';
import { createDataVersions } from '../../../core/data-version.ts';
import type { Deps } from '../../../core/deps.ts';
import { EPSILON_EVENTS, EPSILON_MARKETS, EPSILON_TAGS } from '../../../schemas/tables/epsilon.ts';
import { createHttpClient } from '../../http/client.ts';
import { venuesConfig } from '../../rest/config.ts';
import { quarantineRecords, writeChanged, writeCheckpoint } from '../../rest/store.ts';
import { createEpsilonClient, type EpsilonClient, type ReadCounts } from './client.ts';
import { epsilonConfig } from './config.ts';
import {
  type BookSummary,
  bookSummary,
  type EpsilonMarketRow,
  eventRow,
  marketRow,
  type Status,
  statusOf,
  tagRow,
} from './mappers.ts';
import { CHECKERS, type EventPayload, type InvalidRecord, type MarketPayload } from './payloads.ts';

export const EPSILON_VENUE = 'epsilon';
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

export interface EpsilonSyncDeps extends Pick<Deps, 'clickhouse' | 'log'> {
  config?: Config;
  redis?: Deps['redis'];
  /** The upstream client (default: from the config's EPSILON_API_URL and VENUE_HTTP_TIMEOUT_MS). */
  client?: EpsilonClient;
  /** Observation clock (default: the upstream's clock, HttpClient.clock). */
  now?: () => number;
}

export interface EpsilonSyncOptions {
  mode: EpsilonSyncMode;
  /** Called after each step (the CLI's progress). */
  onProgress?: (step: string, summary: EpsilonSyncSummary) => void;
}

/** Concurrent `/book` reads. */
const BOOK_CONCURRENCY = 4;

/** The epsilon client for a configuration. */
export function createEpsilonClientFromConfig(config: Config): EpsilonClient {
  return createEpsilonClient({
    http: createHttpClient({
      baseUrl: epsilonConfig.of(config).apiUrl,
      timeoutMs: venuesConfig.of(config).httpTimeoutMs,
    }),
  });
}

export async function syncEpsilon(
  deps: EpsilonSyncDeps,
  opts: EpsilonSyncOptions,
): Promise<EpsilonSyncSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = deps.client ?? createEpsilonClientFromConfig(requireConfig(deps));
  const now = deps.now ?? client.clock;
  const summary: EpsilonSyncSummary = {
    mode: opts.mode,
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
  const poll = opts.mode === 'poll';

  const markets = new Map<string, MarketPayload>();
  const listing = await client.markets(poll ? true : null);
  account(listing);
  for (const m of listing.markets) markets.set(m.id, m);
  step('markets');

  const events = new Map<string, EventPayload>();
  const ev = await client.events(poll ? 'active' : 'all');
  account(ev);
  for (const e of ev.events) events.set(e.id, e);
  const tags = await client.tags();
  account(tags);
  // An event's nested markets the listing did not hold (an active event's closed markets).
  for (const e of events.values()) {
    for (const raw of e.markets ?? []) {
      const c = CHECKERS.market.check(raw);
      if (!c.ok) invalid.set(`${c.invalid.kind}\u0000${c.invalid.recordId}`, c.invalid);
      else if (!markets.has(c.value.id)) markets.set(c.value.id, c.value);
    }
  }
  step('events and tags');

  const stored = new Map<string, Status>();
  for (const r of await ch.query<{ market_id: string; status: Status }>(
    'epsilon.stored',
    `SELECT toString(market_id) AS market_id, status FROM ${EPSILON_MARKETS.name} FINAL`,
  )) {
    stored.set(r.market_id, r.status);
  }
  let reread = 0;
  for (const [id, status] of stored) {
    if (status === 'resolved' || markets.has(id)) continue;
    const r = await client.market(id);
    account(r);
    reread++;
    if (r.market) {
      markets.set(r.market.id, r.market);
      summary.reread++;
    } else if (r.gone) {
      summary.gone++;
      deps.log.warn({ venue: EPSILON_VENUE, id }, 'A stored epsilon market is gone upstream (404)');
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
    account(r);
    reread++;
    if (r.event) {
      events.set(r.event.id, r.event);
      summary.reread++;
    } else if (r.gone) summary.gone++;
  }
  if (reread > 0) step('read by id');

  const books = new Map<string, BookSummary>();
  const open = [...markets.values()].filter((m) => statusOf(m) === 'open' && m.clobTokenIds?.[0]);
  for (let i = 0; i < open.length; i += BOOK_CONCURRENCY) {
    const batch = open.slice(i, i + BOOK_CONCURRENCY);
    const read = await Promise.all(batch.map((m) => client.book(m.clobTokenIds![0]!)));
    read.forEach((r, j) => {
      account(r);
      summary.books++;
      if (r.book) books.set(batch[j]!.id, bookSummary(r.book));
    });
  }
  if (open.length > 0) step('books');

  const marketRows: EpsilonMarketRow[] = [];
  for (const m of markets.values()) {
    const e =
      m.event_id === null || m.event_id === undefined ? null : (events.get(String(m.event_id)) ?? null);
    marketRows.push(marketRow(m, e, books.get(m.id) ?? null));
  }
  const statuses = new Map<string, Status>(stored);
  for (const r of marketRows) statuses.set(String(r.market_id), r.status);
  const eventRows = [...events.values()].map((e) => eventRow(e, statuses));
  const tagRows = tags.tags.map(tagRow);

  const observedAt = now();
  const fresh = [...invalid.values()];
  await quarantineRecords(ch, EPSILON_VENUE, fresh);
  summary.quarantined = fresh.length;
  summary.read = marketRows.length;
  summary.events.read = eventRows.length;
  summary.tags.read = tagRows.length;
  summary.written = await writeChanged(ch, EPSILON_MARKETS, marketRows, observedAt, {
    key: 'market_id',
    label: 'epsilon.markets',
  });
  summary.events.written = await writeChanged(ch, EPSILON_EVENTS, eventRows, observedAt, {
    key: 'event_id',
    label: 'epsilon.events',
  });
  summary.tags.written = await writeChanged(ch, EPSILON_TAGS, tagRows, observedAt, {
    key: 'tag_id',
    label: 'epsilon.tags',
  });
  await writeCheckpoint(ch, EPSILON_VENUE, poll ? 'markets' : 'reconcile', observedAt);
  if (summary.written + summary.events.written + summary.tags.written > 0 && deps.redis) {
    await createDataVersions({ redis: deps.redis }).bump(`venue:${EPSILON_VENUE}`);
  }
  summary.ms = Math.round(performance.now() - t0);
  step('written');
  deps.log.info({ ...summary }, 'Synced epsilon');
  return summary;
}

function requireConfig(deps: EpsilonSyncDeps): Config {
  if (!deps.config) throw new Error('The epsilon sync needs deps.client or deps.config');
  return deps.config;
}
