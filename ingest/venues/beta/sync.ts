/**
 * Venue beta's ingestion (docs/venues.md): reads its API (client.ts), maps records to rows (mappers.ts)
 * and writes beta_markets, beta_events and beta_series with `writeChanged` (ingest/rest/store.ts: only new
 * or changed rows, so an idle poll writes nothing) and beta_trades with only the trade ids not yet stored.
 *
 * `syncBeta(deps, {mode})`:
 * - `poll`: `/series`; `/markets?min_updated_ts=` the checkpoint (every market when there is none);
 *   the events of those markets that are not stored, by ticker (all of `/events` when there is no
 *   checkpoint); the other markets of an event that gained a market (`/markets?event_ticker=`: their
 *   group label depends on the event's market count);
 * - `reconcile`: `/series`, every market (all statuses) and every event, rewriting what differs; then
 *   beta's trades per ticker: a market whose stored Σ count differs from its `volume_fp` has its trades
 *   rescanned (`/markets/trades?ticker=`) and the missing ids inserted (`reconcileBetaTrades`).
 * Markets are written before events (an event's status, tickers and volume come from its stored markets),
 * failed records quarantined (source `beta`, by kind and id), then the checkpoint: `markets` = the newest
 * `updated_time` served minus `MARKETS_MARGIN_MS` (Unix s), and `venue:beta` bumped when a row was written.
 *
 * `pollBetaTrades(deps, {from, mode})`: `/markets/trades` newest first down to the newest stored trade's
 * time minus `TRADES_OVERLAP_MS` (to `from` when nothing is stored or in `backfill` mode; to the end when
 * `from` is null), trade ids not yet stored inserted; checkpoint `trades` = the newest stored trade's time
 * (Unix ms). The trades of one call are held in memory until they are inserted.
 * Upstream failures the HTTP client gives up on end the sync with that error (nothing written by it).
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import type { Config } from '../../../core/config.ts';
import { createDataVersions } from '../../../core/data-version.ts';
import type { Deps } from '../../../core/deps.ts';
import { BETA_EVENTS, BETA_MARKETS, BETA_SERIES, BETA_TRADES } from '../../../schemas/tables/beta.ts';
import { createHttpClient } from '../../http/client.ts';
import { venuesConfig } from '../../rest/config.ts';
import {
  chTime,
  countWritten,
  quarantineRecords,
  readCheckpoint,
  writeChanged,
  writeCheckpoint,
} from '../../rest/store.ts';
import { type BetaClient, createBetaClient, type ReadCounts } from './client.ts';
import { betaConfig } from './config.ts';
import {
  type BetaMarketRow,
  type BetaTradeRow,
  type EventInfo,
  eventInfo,
  eventRow,
  isMultivariate,
  marketRow,
  seriesRow,
  timeOf,
  tradeRow,
} from './mappers.ts';
import type { EventPayload, InvalidRecord, MarketPayload } from './payloads.ts';

export const BETA_VENUE = 'beta';
export type BetaSyncMode = 'poll' | 'reconcile';

/** The incremental checkpoint trails the newest `updated_time` served by this much (late visibility). */
export const MARKETS_MARGIN_MS = 120_000;
/** A trades poll reads down to this much before the newest stored trade. */
export const TRADES_OVERLAP_MS = 60_000;

export interface BetaSyncSummary {
  mode: BetaSyncMode;
  /** Market records read (after deduplication), and rows written (new or changed). */
  read: number;
  written: number;
  events: { read: number; written: number };
  series: { read: number; written: number };
  /** Records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages read again (repeats, failed records, the last page's check). */
  rereads: number;
  /** `min_updated_ts` of a poll (Unix s); null for a full listing. */
  since: number | null;
  /** Reconcile only: tickers whose trades were rescanned, and the trades that inserted. */
  trades: BetaTradesReconcileSummary | null;
  ms: number;
}

export interface BetaTradesSummary {
  read: number;
  written: number;
  quarantined: number;
  requests: number;
  rereads: number;
  /** The time the poll read down to (Unix ms); null: to the end. */
  stopBefore: number | null;
  ms: number;
}

export interface BetaTradesReconcileSummary {
  /** Markets compared, and those whose Σ count differed from their volume. */
  compared: number;
  mismatched: number;
  /** Tickers still differing after their rescan (trades moving meanwhile, or served late). */
  stillMismatched: string[];
  read: number;
  written: number;
  quarantined: number;
  requests: number;
}

export interface BetaSyncDeps extends Pick<Deps, 'clickhouse' | 'log'> {
  config?: Config;
  redis?: Deps['redis'];
  /** The upstream client (default: from the config's BETA_API_URL and VENUE_HTTP_TIMEOUT_MS). */
  client?: BetaClient;
  /** Observation clock (default: the upstream's clock, HttpClient.clock). */
  now?: () => number;
}

export interface BetaSyncOptions {
  mode: BetaSyncMode;
  /** `reconcile`: also compare beta's trades per ticker (default true; the CLI's listing without --trades: false). */
  trades?: boolean;
  /** Called after each step (the CLI's progress). */
  onProgress?: (step: string, summary: BetaSyncSummary) => void;
}

/** The beta client for a configuration. */
export function createBetaClientFromConfig(config: Config): BetaClient {
  return createBetaClient({
    http: createHttpClient({
      baseUrl: betaConfig.of(config).apiUrl,
      timeoutMs: venuesConfig.of(config).httpTimeoutMs,
    }),
  });
}

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;

/** Most listings of one reconciliation, and most rescans of one ticker's trades. */
export const RECONCILE_PASSES = 3;

/**
 * Up to `passes` listings, the records of all by key (a later read replacing an earlier one); ends after a
 * listing that brings no key the earlier ones lacked (beyond the first).
 */
async function unionOfPasses<T>(
  passes: number,
  keyOf: (r: T) => string,
  list: () => Promise<T[]>,
): Promise<T[]> {
  const out = new Map<string, T>();
  for (let pass = 0; pass < passes; pass++) {
    const before = out.size;
    for (const r of await list()) out.set(keyOf(r), r);
    if (pass > 0 && out.size === before) break;
  }
  return [...out.values()];
}

function clientOf(deps: BetaSyncDeps): BetaClient {
  if (deps.client) return deps.client;
  if (!deps.config) throw new Error('The beta sync needs deps.client or deps.config');
  return createBetaClientFromConfig(deps.config);
}

async function bump(deps: BetaSyncDeps): Promise<void> {
  if (deps.redis) await createDataVersions({ redis: deps.redis }).bump(`venue:${BETA_VENUE}`);
}

export async function syncBeta(deps: BetaSyncDeps, opts: BetaSyncOptions): Promise<BetaSyncSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = clientOf(deps);
  const now = deps.now ?? client.clock;
  const summary: BetaSyncSummary = {
    mode: opts.mode,
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
  };
  const invalid = new Map<string, InvalidRecord>();
  const account = (r: ReadCounts) => {
    summary.requests += r.requests;
    summary.rereads += r.rereads;
    for (const x of r.invalid) invalid.set(invalidKey(x), x);
  };
  const step = (name: string) => {
    summary.ms = Math.round(performance.now() - t0);
    opts.onProgress?.(name, summary);
  };

  const checkpoint = opts.mode === 'poll' ? await readCheckpoint(ch, BETA_VENUE, 'markets') : null;
  summary.since = checkpoint === null ? null : Math.floor(checkpoint / 1000);
  const full = summary.since === null;

  const series = await client.series();
  account(series);
  step('series');

  // A reconciliation lists again while a listing brings a record the earlier ones missed.
  const passes = opts.mode === 'reconcile' ? RECONCILE_PASSES : 1;
  const listed = await unionOfPasses(
    passes,
    (m) => m.ticker,
    async () => {
      const r = await client.markets(full ? {} : { minUpdatedTs: summary.since ?? undefined });
      account(r);
      return r.records;
    },
  );
  const markets: MarketPayload[] = listed.filter((m) => !isMultivariate(m));
  step('markets');

  // Events: all of them on a full listing; else the listed markets' events not stored yet.
  const events = new Map<string, EventPayload>();
  if (full) {
    const all = await unionOfPasses(
      passes,
      (e) => e.event_ticker,
      async () => {
        const r = await client.events();
        account(r);
        return r.records;
      },
    );
    for (const e of all) events.set(e.event_ticker, e);
  }
  const marketEvents = [...new Set(markets.map((m) => m.event_ticker).filter((t) => t !== ''))];
  const stored = await storedEvents(ch, marketEvents);
  for (const t of marketEvents) {
    if (events.has(t) || stored.has(t)) continue;
    const r = await client.event(t);
    account(r);
    if (r.event) events.set(t, r.event);
    else if (r.gone)
      deps.log.warn(
        { venue: BETA_VENUE, event: t },
        'A beta market names an event the upstream does not have',
      );
  }
  step('events');

  // Each event's market count: its stored markets and the listed ones.
  const tickersOf = await storedEventTickers(ch, marketEvents);
  // An event that gained a market: its other markets' group label may change, so they are read too.
  if (!full) {
    const listedTickers = new Set(markets.map((m) => m.ticker));
    for (const [event, stored] of tickersOf) {
      const grew = markets.some((m) => m.event_ticker === event && !stored.has(m.ticker));
      if (!grew || [...stored].every((t) => listedTickers.has(t))) continue;
      const r = await client.markets({ eventTicker: event });
      account(r);
      for (const m of r.records) {
        if (listedTickers.has(m.ticker) || isMultivariate(m)) continue;
        listedTickers.add(m.ticker);
        markets.push(m);
      }
    }
  }
  for (const m of markets) {
    const set = tickersOf.get(m.event_ticker) ?? new Set<string>();
    set.add(m.ticker);
    tickersOf.set(m.event_ticker, set);
  }
  const infoOf = (t: string): EventInfo | null => {
    const e = events.get(t) ?? stored.get(t);
    return e ? eventInfo(e, tickersOf.get(t)?.size ?? 0) : null;
  };
  const tagsOf = new Map(series.records.map((s) => [s.ticker, s.tags ?? []]));
  const marketRows: BetaMarketRow[] = markets.map((m) => {
    const info = infoOf(m.event_ticker);
    return marketRow(m, info, (info && tagsOf.get(info.series_ticker)) ?? []);
  });

  const observedAt = now();
  const fresh = [...invalid.values()];
  await quarantineRecords(ch, BETA_VENUE, fresh);
  summary.quarantined = fresh.length;
  summary.read = marketRows.length;
  summary.series.read = series.records.length;
  summary.written = await writeChanged(ch, BETA_MARKETS, marketRows, observedAt, {
    key: 'ticker',
    label: 'beta.markets',
  });
  summary.series.written = await writeChanged(ch, BETA_SERIES, series.records.map(seriesRow), observedAt, {
    key: 'ticker',
    label: 'beta.series',
  });
  // Events read now, and the stored events of the listed markets (their status and volume move).
  const touched = new Map<string, EventPayload>(events);
  for (const t of marketEvents) {
    const e = stored.get(t);
    if (e && !touched.has(t)) touched.set(t, e);
  }
  const aggregates = await eventAggregates(ch, [...touched.keys()]);
  const eventRows = [...touched.values()].map((e) =>
    eventRow(e, aggregates.get(e.event_ticker) ?? { tickers: [], statuses: [], volume: 0, dollarVolume: 0 }),
  );
  summary.events.read = events.size;
  summary.events.written = await writeChanged(ch, BETA_EVENTS, eventRows, observedAt, {
    key: 'event_ticker',
    label: 'beta.events',
  });
  step('written');

  if (opts.mode === 'reconcile' && opts.trades !== false) {
    summary.trades = await reconcileBetaTrades({ ...deps, client }, markets);
    step('trades reconciled');
  }

  // The checkpoint trails the newest change served; a listing with none leaves it as it was.
  let newest = Number.NEGATIVE_INFINITY;
  for (const m of listed) newest = Math.max(newest, timeOf(m.updated_time) ?? newest);
  if (Number.isFinite(newest)) {
    const next = Math.floor((newest - MARKETS_MARGIN_MS) / 1000);
    const stored = opts.mode === 'poll' ? null : await readCheckpoint(ch, BETA_VENUE, 'markets');
    const prev = opts.mode === 'poll' ? summary.since : stored === null ? null : Math.floor(stored / 1000);
    if (prev === null || !Number.isFinite(prev) || next > prev) {
      await writeCheckpoint(ch, BETA_VENUE, 'markets', next * 1000);
    }
  }
  if (opts.mode === 'reconcile') await writeCheckpoint(ch, BETA_VENUE, 'reconcile', observedAt);
  // The markets checkpoint moves only with a newer change: 'poll' records every good poll (the status page's
  // lag: updated_at on the wall clock, the value the observation's time).
  await writeCheckpoint(ch, BETA_VENUE, 'poll', observedAt);
  if (summary.written + summary.events.written + summary.series.written > 0) await bump(deps);
  summary.ms = Math.round(performance.now() - t0);
  deps.log.info({ ...summary }, 'Synced beta');
  return summary;
}

/** Stored events (as the upstream record they came from) by ticker. */
async function storedEvents(ch: ClickHouse, tickers: readonly string[]): Promise<Map<string, EventPayload>> {
  const out = new Map<string, EventPayload>();
  if (tickers.length === 0) return out;
  const rows = await ch.query<{
    event_ticker: string;
    series_ticker: string;
    title: string;
    subtitle: string;
    category: string;
    mutually_exclusive: boolean;
    collateral_return_type: string;
    strike_ms: string | number | null;
  }>(
    'beta.events.stored',
    `SELECT event_ticker, series_ticker, title, subtitle, category, mutually_exclusive, collateral_return_type,
            toUnixTimestamp64Milli(strike_date) AS strike_ms
     FROM ${BETA_EVENTS.name} FINAL WHERE event_ticker IN {tickers:Array(String)}`,
    { tickers },
  );
  for (const r of rows) {
    out.set(r.event_ticker, {
      event_ticker: r.event_ticker,
      series_ticker: r.series_ticker,
      title: r.title,
      sub_title: r.subtitle,
      category: r.category,
      mutually_exclusive: Boolean(r.mutually_exclusive),
      collateral_return_type: r.collateral_return_type,
      strike_date: r.strike_ms === null ? null : new Date(Number(r.strike_ms)).toISOString(),
    });
  }
  return out;
}

async function storedEventTickers(
  ch: ClickHouse,
  events: readonly string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (events.length === 0) return out;
  const rows = await ch.query<{ event_key: string; tickers: string[] }>(
    'beta.events.tickers',
    `SELECT event_key, groupArray(ticker) AS tickers FROM ${BETA_MARKETS.name} FINAL
     WHERE event_key IN {events:Array(String)} GROUP BY event_key`,
    { events },
  );
  for (const r of rows) out.set(r.event_key, new Set(r.tickers));
  return out;
}

async function eventAggregates(
  ch: ClickHouse,
  events: readonly string[],
): Promise<Map<string, { tickers: string[]; statuses: string[]; volume: number; dollarVolume: number }>> {
  const out = new Map<
    string,
    { tickers: string[]; statuses: string[]; volume: number; dollarVolume: number }
  >();
  if (events.length === 0) return out;
  const rows = await ch.query<{
    event_key: string;
    tickers: string[];
    statuses: string[];
    volume: number;
    dollar_volume: number;
  }>(
    'beta.events.aggregates',
    `SELECT event_key, groupArray(ticker) AS tickers, groupArray(toString(status)) AS statuses,
            sum(volume) AS volume, sum(dollar_volume) AS dollar_volume
     FROM ${BETA_MARKETS.name} FINAL WHERE event_key IN {events:Array(String)} GROUP BY event_key`,
    { events },
  );
  for (const r of rows) {
    out.set(r.event_key, {
      tickers: r.tickers,
      statuses: r.statuses,
      volume: Number(r.volume),
      dollarVolume: Number(r.dollar_volume),
    });
  }
  return out;
}

const ID_CHUNK = 5_000;

/** Inserts the trades whose ids are not stored yet (each id once); returns how many. */
export async function insertNewTrades(
  ch: ClickHouse,
  rows: readonly BetaTradeRow[],
  observedAt: number,
): Promise<number> {
  const byId = new Map<string, BetaTradeRow>();
  for (const r of rows) byId.set(r.trade_id, r);
  if (byId.size === 0) return 0;
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    const chunk = ids.slice(i, i + ID_CHUNK);
    const tickers = [...new Set(chunk.map((id) => (byId.get(id) as BetaTradeRow).ticker))];
    const found = await ch.query<{ trade_id: string }>(
      'beta.trades.stored',
      `SELECT trade_id FROM ${BETA_TRADES.name}
       WHERE ticker IN {tickers:Array(String)} AND trade_id IN {ids:Array(String)}`,
      { tickers, ids: chunk },
    );
    for (const f of found) byId.delete(f.trade_id);
  }
  if (byId.size === 0) return 0;
  const stamp = chTime(observedAt);
  await ch.insert(
    'beta.trades.write',
    BETA_TRADES.name,
    [...byId.values()].map((r) => ({ ...r, created_time: chTime(r.created_time), observed_at: stamp })),
  );
  countWritten(BETA_TRADES.name, byId.size);
  return byId.size;
}

/** The newest stored trade's time (Unix ms), or null when none is stored. */
export async function newestStoredTrade(ch: ClickHouse): Promise<number | null> {
  const rows = await ch.query<{ n: string; ms: string }>(
    'beta.trades.newest',
    `SELECT count() AS n, toUnixTimestamp64Milli(max(created_time)) AS ms FROM ${BETA_TRADES.name}`,
  );
  const r = rows[0];
  return r && Number(r.n) > 0 ? Number(r.ms) : null;
}

export interface BetaTradesOptions {
  /** With nothing stored (or `backfill`): read down to this time (Unix ms); null reads every trade. */
  from?: number | null;
  /** `backfill`: down to `from` whatever is stored (the CLI); default `poll`. */
  mode?: 'poll' | 'backfill';
}

export async function pollBetaTrades(
  deps: BetaSyncDeps,
  opts: BetaTradesOptions = {},
): Promise<BetaTradesSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = clientOf(deps);
  const now = deps.now ?? client.clock;
  const newest = await newestStoredTrade(ch);
  const stopBefore =
    newest === null || opts.mode === 'backfill' ? (opts.from ?? null) : newest - TRADES_OVERLAP_MS;
  const read = await client.trades({ stopBefore });
  // A backfill from a time keeps the trades from then on (the last page read reaches past it).
  const from = opts.mode === 'backfill' ? (opts.from ?? null) : null;
  const rows = read.records.map(tradeRow).filter((t) => from === null || t.created_time >= from);
  await quarantineRecords(ch, BETA_VENUE, read.invalid);
  const written = await insertNewTrades(ch, rows, now());
  if (rows.length > 0) {
    const top = await newestStoredTrade(ch);
    if (top !== null) await writeCheckpoint(ch, BETA_VENUE, 'trades', top);
  }
  if (written > 0) await bump(deps);
  const summary: BetaTradesSummary = {
    read: rows.length,
    written,
    quarantined: read.invalid.length,
    requests: read.requests,
    rereads: read.rereads,
    stopBefore,
    ms: Math.round(performance.now() - t0),
  };
  deps.log.debug({ ...summary }, 'Polled beta trades');
  return summary;
}

/** Stored Σ count per ticker, rounded to the counts' 2 decimals. */
async function storedCounts(ch: ClickHouse): Promise<Map<string, number>> {
  const rows = await ch.query<{ ticker: string; total: number }>(
    'beta.trades.sums',
    `SELECT ticker, round(sum(count), 2) AS total FROM ${BETA_TRADES.name} GROUP BY ticker`,
  );
  return new Map(rows.map((r) => [r.ticker, Number(r.total)]));
}

async function storedCount(ch: ClickHouse, ticker: string): Promise<number> {
  const rows = await ch.query<{ total: number }>(
    'beta.trades.sum',
    `SELECT round(sum(count), 2) AS total FROM ${BETA_TRADES.name} WHERE ticker = {ticker:String}`,
    { ticker },
  );
  return Number(rows[0]?.total ?? 0);
}

const differs = (a: number, b: number) => Math.abs(a - b) >= 0.005;

/**
 * Beta's trades per ticker against the markets' `volume_fp` (a listing read just before): every market
 * whose stored Σ count differs has its trades rescanned and the missing ids inserted.
 */
export async function reconcileBetaTrades(
  deps: BetaSyncDeps,
  markets: readonly MarketPayload[],
): Promise<BetaTradesReconcileSummary> {
  const ch = deps.clickhouse;
  const client = clientOf(deps);
  const now = deps.now ?? client.clock;
  const counts = await storedCounts(ch);
  const out: BetaTradesReconcileSummary = {
    compared: markets.length,
    mismatched: 0,
    stillMismatched: [],
    read: 0,
    written: 0,
    quarantined: 0,
    requests: 0,
  };
  const rescanned: MarketPayload[] = [];
  for (const m of markets) {
    const volume = Number(m.volume_fp);
    if (!differs(volume, counts.get(m.ticker) ?? 0)) continue;
    out.mismatched++;
    // Rescanned again while it still differs and the last rescan found trades (up to RECONCILE_PASSES).
    for (let pass = 0; pass < RECONCILE_PASSES; pass++) {
      const r = await client.trades({ ticker: m.ticker });
      out.requests += r.requests;
      await quarantineRecords(ch, BETA_VENUE, r.invalid);
      out.quarantined += r.invalid.length;
      const rows = r.records.filter((t) => t.ticker === m.ticker).map(tradeRow);
      out.read += rows.length;
      const added = await insertNewTrades(ch, rows, now());
      out.written += added;
      if (added === 0 && pass > 0) break;
      const sum = await storedCount(ch, m.ticker);
      if (!differs(Number(m.volume_fp), sum)) break;
    }
    rescanned.push(m);
  }
  if (rescanned.length > 0) {
    const after = await storedCounts(ch);
    for (const m of rescanned) {
      if (differs(Number(m.volume_fp), after.get(m.ticker) ?? 0)) out.stillMismatched.push(m.ticker);
    }
    if (out.stillMismatched.length > 0) {
      deps.log.warn(
        { venue: BETA_VENUE, tickers: out.stillMismatched.slice(0, 20), count: out.stillMismatched.length },
        'Beta trades still differ from the market volume after a rescan',
      );
    }
  }
  if (out.written > 0) await bump(deps);
  return out;
}
