/**
 * Venue beta's read strategies for the stream runner (ingest/rest/runner.ts; the definition: index.ts).
 *
 * `readMarkets` (stream `markets`):
 * - `poll`: `/series`; `/markets?min_updated_ts=` the `markets` mark (every market when there is none);
 *   the events of those markets that are not stored, by ticker (all of `/events` when there is no mark);
 *   the other markets of an event that gained a market (`/markets?event_ticker=`: their group label
 *   depends on the event's market count);
 * - `reconcile`: `/series`, every market (all statuses) and every event, rewriting what differs; then
 *   (unless `options.trades` is false) beta's trades per ticker: a market whose stored Σ count differs
 *   from its `volume_fp` has its trades rescanned (`/markets/trades?ticker=`) and the missing ids inserted.
 * Batches: markets and series first, then events (an event's status, tickers and volume come from its
 *   stored markets), then each rescan's trades. Marks: `markets` = the newest `updated_time` served minus
 *   `MARKETS_MARGIN_MS` (moved only forward; a listing with none leaves it), `reconcile` (reconcile) and
 *   `poll` (every good run) = the observation time.
 *
 * `readTrades` (stream `trades`): `/markets/trades` newest first down to the newest stored trade's time
 * minus `TRADES_OVERLAP_MS` (to `options.from` when nothing is stored or in `backfill` mode; to the end
 * when `from` is null), one batch whose trade ids not yet stored are inserted; mark `trades` = the newest
 * stored trade's time. The trades of one run are held in memory until they are inserted.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { BETA_EVENTS, BETA_MARKETS, BETA_SERIES, BETA_TRADES } from '../../../schemas/tables/beta.ts';
import type { RowsByTable, StreamContext } from '../../rest/runner.ts';
import type { BetaClient } from './client.ts';
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
import type { EventPayload, MarketPayload } from './payloads.ts';

export type BetaSyncMode = 'poll' | 'reconcile';

/** The incremental mark trails the newest `updated_time` served by this much (late visibility). */
export const MARKETS_MARGIN_MS = 120_000;
/** A trades poll reads down to this much before the newest stored trade. */
export const TRADES_OVERLAP_MS = 60_000;
/** Most listings of one reconciliation, and most rescans of one ticker's trades. */
export const RECONCILE_PASSES = 3;

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

export interface BetaSyncOptions {
  /** `reconcile`: also compare beta's trades per ticker (default true; the CLI's listing without --trades: false). */
  trades?: boolean;
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

export interface BetaTradesOptions {
  /** With nothing stored (or `backfill`): read down to this time (Unix ms); null reads every trade. */
  from?: number | null;
}

export type BetaTradesMode = 'poll' | 'backfill';

type MarketsCtx = StreamContext<BetaSyncMode, BetaSyncOptions, BetaSyncSummary>;
type TradesCtx = StreamContext<BetaTradesMode, BetaTradesOptions, BetaTradesSummary>;

/** A batch of beta's rows: already rows by table (the mapping needs the stored tables, read here). */
export type BetaBatch = RowsByTable;

export async function* readMarkets(client: BetaClient, ctx: MarketsCtx): AsyncIterable<BetaBatch> {
  const { summary, clickhouse: ch } = ctx;
  const mark = ctx.mode === 'poll' ? await ctx.position('markets') : null;
  summary.since = mark === null ? null : mark / 1000;
  const full = summary.since === null;

  const series = await client.series();
  ctx.account(series);
  ctx.step('series');

  // A reconciliation lists again while a listing brings a record the earlier ones missed.
  const passes = ctx.mode === 'reconcile' ? RECONCILE_PASSES : 1;
  const listed = await unionOfPasses(
    passes,
    (m) => m.ticker,
    async () => {
      const r = await client.markets(full ? {} : { minUpdatedTs: summary.since ?? undefined });
      ctx.account(r);
      return r.records;
    },
  );
  const markets: MarketPayload[] = listed.filter((m) => !isMultivariate(m));
  ctx.step('markets');

  // Events: all of them on a full listing; else the listed markets' events not stored yet.
  const events = new Map<string, EventPayload>();
  if (full) {
    const all = await unionOfPasses(
      passes,
      (e) => e.event_ticker,
      async () => {
        const r = await client.events();
        ctx.account(r);
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
    ctx.account(r);
    if (r.event) events.set(t, r.event);
    else if (r.gone)
      ctx.log.warn({ venue: 'beta', event: t }, 'A beta market names an event the upstream does not have');
  }
  ctx.step('events');

  // Each event's market count: its stored markets and the listed ones.
  const tickersOf = await storedEventTickers(ch, marketEvents);
  // An event that gained a market: its other markets' group label may change, so they are read too.
  if (!full) {
    const listedTickers = new Set(markets.map((m) => m.ticker));
    for (const [event, storedTickers] of tickersOf) {
      const grew = markets.some((m) => m.event_ticker === event && !storedTickers.has(m.ticker));
      if (!grew || [...storedTickers].every((t) => listedTickers.has(t))) continue;
      const r = await client.markets({ eventTicker: event });
      ctx.account(r);
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
  yield { [BETA_MARKETS.name]: marketRows, [BETA_SERIES.name]: series.records.map(seriesRow) };

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
  yield { [BETA_EVENTS.name]: eventRows };
  ctx.step('written');

  if (ctx.mode === 'reconcile' && ctx.options.trades !== false) {
    yield* reconcileTrades(client, ctx, markets);
    ctx.step('trades reconciled');
  }

  // The markets mark trails the newest change served; a listing with none leaves it as it was.
  let newest = Number.NEGATIVE_INFINITY;
  for (const m of listed) newest = Math.max(newest, timeOf(m.updated_time) ?? newest);
  if (Number.isFinite(newest)) {
    const next = Math.floor((newest - MARKETS_MARGIN_MS) / 1000);
    const prev = ctx.mode === 'poll' ? summary.since : ((await ctx.position('markets')) ?? 0) / 1000;
    if (prev === null || next > prev) ctx.markAfter({ stream: 'markets', time: next * 1000 });
  }
  // The markets mark moves only with a newer change: 'poll' records every good run (the status page's
  // lag: `at` on the wall clock, `time` the observation's time).
  if (ctx.mode === 'reconcile') ctx.markAfter({ stream: 'reconcile', time: ctx.observedAt() });
  ctx.markAfter({ stream: 'poll', time: ctx.observedAt() });
}

const differs = (a: number, b: number) => Math.abs(a - b) >= 0.005;

/**
 * Beta's trades per ticker against the markets' `volume_fp` (the listing just read): every market whose
 * stored Σ count differs has its trades rescanned and the missing ids inserted (`summary.trades`; its
 * requests and quarantined records are its own, not the listing's).
 */
async function* reconcileTrades(
  client: BetaClient,
  ctx: MarketsCtx,
  markets: readonly MarketPayload[],
): AsyncIterable<BetaBatch> {
  const ch = ctx.clickhouse;
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
  ctx.summary.trades = out;
  const rescanned: MarketPayload[] = [];
  for (const m of markets) {
    const volume = Number(m.volume_fp);
    if (!differs(volume, counts.get(m.ticker) ?? 0)) continue;
    out.mismatched++;
    // Rescanned again while it still differs and the last rescan found trades (up to RECONCILE_PASSES).
    for (let pass = 0; pass < RECONCILE_PASSES; pass++) {
      const r = await client.trades({ ticker: m.ticker });
      out.requests += r.requests;
      ctx.quarantine(r.invalid);
      out.quarantined += r.invalid.length;
      const rows = r.records.filter((t) => t.ticker === m.ticker).map(tradeRow);
      out.read += rows.length;
      yield { [BETA_TRADES.name]: rows };
      const added = ctx.written[BETA_TRADES.name] ?? 0;
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
      ctx.log.warn(
        { venue: 'beta', tickers: out.stillMismatched.slice(0, 20), count: out.stillMismatched.length },
        'Beta trades still differ from the market volume after a rescan',
      );
    }
  }
}

export async function* readTrades(client: BetaClient, ctx: TradesCtx): AsyncIterable<BetaBatch> {
  const ch = ctx.clickhouse;
  const backfill = ctx.mode === 'backfill';
  const newest = await newestStoredTrade(ch);
  const stopBefore = newest === null || backfill ? (ctx.options.from ?? null) : newest - TRADES_OVERLAP_MS;
  ctx.summary.stopBefore = stopBefore;
  const read = await client.trades({ stopBefore });
  ctx.account(read);
  // A backfill from a time keeps the trades from then on (the last page read reaches past it).
  const from = backfill ? (ctx.options.from ?? null) : null;
  const rows: BetaTradeRow[] = read.records
    .map(tradeRow)
    .filter((t) => from === null || t.created_time >= from);
  yield { [BETA_TRADES.name]: rows };
  if (rows.length > 0) {
    const top = await newestStoredTrade(ch);
    if (top !== null) ctx.markAfter({ stream: 'trades', time: top });
  }
}

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

/** The newest stored trade's time (Unix ms), or null when none is stored. */
export async function newestStoredTrade(ch: ClickHouse): Promise<number | null> {
  const rows = await ch.query<{ n: string; ms: string }>(
    'beta.trades.newest',
    `SELECT count() AS n, toUnixTimestamp64Milli(max(created_time)) AS ms FROM ${BETA_TRADES.name}`,
  );
  const r = rows[0];
  return r && Number(r.n) > 0 ? Number(r.ms) : null;
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
