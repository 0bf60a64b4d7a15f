/**
 * What the catalog build reads: the catalog tables FINAL, the chain's resolutions, the condition-level
 * market analytics (alpha_market_totals, alpha_market_rolling FINAL, deleted = 0) and the newest book of
 * each first-outcome token. Whole tables, a few statements: the build rebuilds every row. Times come back
 * as Unix ms (null when unknown), amounts of the analytics in base units converted to USD.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { MarketRollingMetrics } from '../../schemas/api/alpha-market-data.ts';
import { ROLLING_FIELDS } from './rules.ts';

const num = (v: string | number | null) => (v === null ? null : Number(v));
const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
const usdOf = (v: string | number) => Number(v) / 1e6;

export interface EventSource {
  id: string;
  ticker: string;
  slug: string;
  title: string;
  description: string;
  resolution_source: string;
  category: string;
  image: string;
  icon: string;
  start_date: number | null;
  creation_date: number | null;
  end_date: number | null;
  created_at: number | null;
  neg_risk: boolean;
  neg_risk_market_id: string | null;
  series_ids: string[];
  tag_ids: string[];
}

export interface MarketSource {
  id: string;
  event_id: string;
  condition_id: string;
  question_id: string;
  slug: string;
  question: string;
  description: string;
  image: string;
  outcomes: string[];
  short_outcomes: string[];
  clob_token_ids: string[];
  group_item_title: string;
  start_date: number | null;
  end_date: number | null;
  closed_time: number | null;
  created_at: number | null;
  closed: boolean;
  enable_order_book: boolean;
  neg_risk: boolean;
  sports_market_type: string;
  game_start_time: number | null;
  team_a_id: string;
  team_b_id: string;
}

export interface SeriesSource {
  id: string;
  ticker: string;
  slug: string;
  title: string;
  series_type: string;
  recurrence: string;
  image: string;
  icon: string;
  created_at: number | null;
  event_ids: string[];
}

export interface TagSource {
  id: string;
  label: string;
  slug: string;
}

export interface MarketAnalytics {
  volumeUsd: number;
  trades: number;
  openInterestUsd: number;
}

/** The columns the build reads of each catalog table; `times` are read as Unix ms (null: unknown). */
const EVENT_COLUMNS = [
  'id',
  'ticker',
  'slug',
  'title',
  'description',
  'resolution_source',
  'category',
  'image',
  'icon',
  'start_date',
  'creation_date',
  'end_date',
  'created_at',
  'neg_risk',
  'neg_risk_market_id',
  'series_ids',
  'tag_ids',
] as const satisfies readonly (keyof EventSource)[];
const MARKET_COLUMNS = [
  'id',
  'event_id',
  'condition_id',
  'question_id',
  'slug',
  'question',
  'description',
  'image',
  'outcomes',
  'short_outcomes',
  'clob_token_ids',
  'group_item_title',
  'start_date',
  'end_date',
  'closed_time',
  'created_at',
  'closed',
  'enable_order_book',
  'neg_risk',
  'sports_market_type',
  'game_start_time',
  'team_a_id',
  'team_b_id',
] as const satisfies readonly (keyof MarketSource)[];
const SERIES_COLUMNS = [
  'id',
  'ticker',
  'slug',
  'title',
  'series_type',
  'recurrence',
  'image',
  'icon',
  'created_at',
  'event_ids',
] as const satisfies readonly (keyof SeriesSource)[];
const TIMES = new Set([
  'start_date',
  'creation_date',
  'end_date',
  'closed_time',
  'created_at',
  'game_start_time',
]);

/**
 * Every row of a catalog table (FINAL) as objects of `columns`, read as arrays (JSONCompactEachRow: no
 * key names per row, which for 100,000 markets is a good part of the bytes).
 */
async function readTable<T>(ch: ClickHouse, table: string, columns: readonly string[]): Promise<T[]> {
  const select = columns.map((c) => (TIMES.has(c) ? `toUnixTimestamp64Milli(${c})` : c)).join(', ');
  const rows = await ch.read<unknown[]>(`analytics.catalog.${table}`, `SELECT ${select} FROM ${table} FINAL`);
  return rows.map((row) => {
    const o: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      o[c] = TIMES.has(c) ? num(row[i] as string | null) : row[i];
    });
    return o as T;
  });
}

export interface CatalogSources {
  events: EventSource[];
  markets: MarketSource[];
  series: SeriesSource[];
  tags: TagSource[];
  /** [tag_id, related_tag_id] of every relation. */
  relations: [string, string][];
}

export async function readCatalog(ch: ClickHouse): Promise<CatalogSources> {
  const [events, markets, series, tags, relations] = await Promise.all([
    readTable<EventSource>(ch, 'alpha_events', EVENT_COLUMNS),
    readTable<MarketSource>(ch, 'alpha_markets', MARKET_COLUMNS),
    readTable<SeriesSource>(ch, 'alpha_series', SERIES_COLUMNS),
    readTable<TagSource>(ch, 'alpha_tags', ['id', 'label', 'slug']),
    ch.read<[string, string]>(
      'analytics.catalog.relations',
      'SELECT tag_id, related_tag_id FROM alpha_tag_relations FINAL',
    ),
  ]);
  return { events, markets, series, tags, relations };
}

/** Condition → payout numerators of its resolution at or before now (the newest, by block and log). */
export async function readResolutions(ch: ClickHouse, now: number): Promise<Map<string, string[]>> {
  const rows = await ch.read<[string, string[]]>(
    'analytics.catalog.resolutions',
    `SELECT condition_id, argMax(payout_numerators, (block_number, log_index))
     FROM alpha_lifecycle
     WHERE kind = 'condition_resolved' AND block_time <= ${at('now_ms')}
     GROUP BY condition_id`,
    { now_ms: now },
  );
  return new Map(rows);
}

/** Condition → all-time volume, trades and open interest (condition-level totals). */
export async function readTotals(ch: ClickHouse): Promise<Map<string, MarketAnalytics>> {
  const rows = await ch.read<[string, string, string, string]>(
    'analytics.catalog.totals',
    `SELECT id, volume, trades, open_interest FROM alpha_market_totals FINAL
     WHERE level = 'condition' AND deleted = 0`,
  );
  return new Map(
    rows.map(([id, volume, trades, oi]) => [
      id,
      { volumeUsd: usdOf(volume), trades: Number(trades), openInterestUsd: usdOf(oi) },
    ]),
  );
}

const USD_ROLLING = new Set<string>(
  ROLLING_FIELDS.filter((f) => f.includes('volume') || f.startsWith('oi_change')),
);

/** Condition → its rolling metrics (SPEC MarketRollingMetrics, USD). */
export async function readRolling(ch: ClickHouse): Promise<Map<string, MarketRollingMetrics>> {
  const rows = await ch.read<(string | number)[]>(
    'analytics.catalog.rolling',
    `SELECT id, ${ROLLING_FIELDS.join(', ')}, toUnixTimestamp64Milli(computed_at)
     FROM alpha_market_rolling FINAL WHERE level = 'condition' AND deleted = 0`,
  );
  const out = new Map<string, MarketRollingMetrics>();
  for (const row of rows) {
    const r = {} as Record<string, number | string | null>;
    ROLLING_FIELDS.forEach((f, i) => {
      const v = row[i + 1] as string | number;
      r[f] = USD_ROLLING.has(f) ? usdOf(v) : Number(v);
    });
    r.computed_at = new Date(Number(row[ROLLING_FIELDS.length + 1])).toISOString();
    out.set(String(row[0]), r as unknown as MarketRollingMetrics);
  }
  return out;
}

/**
 * Token → Σ price × size of both sides of its newest book observation, for the tokens asked (in one
 * statement per chunk of 10,000 tokens).
 */
export async function readBookLiquidity(
  ch: ClickHouse,
  tokens: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const CHUNK = 10_000;
  for (let i = 0; i < tokens.length; i += CHUNK) {
    const rows = await ch.read<[string, number]>(
      'analytics.catalog.books',
      `SELECT token_id, argMax(
         arraySum(arrayMap((p, s) -> p * s, bid_prices, bid_sizes))
           + arraySum(arrayMap((p, s) -> p * s, ask_prices, ask_sizes)),
         observed_at)
       FROM alpha_book_quotes WHERE token_id IN {tokens:Array(String)} GROUP BY token_id`,
      { tokens: tokens.slice(i, i + CHUNK) },
    );
    for (const [token, liquidity] of rows) out.set(token, Number(liquidity));
  }
  return out;
}
