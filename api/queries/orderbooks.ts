/**
 * The read every order book history endpoint shares (docs/orderbooks.md): one market's snapshots in a
 * required Unix-ms range, oldest first, one page on the keyset engine (api/read/keyset.ts `keysetPage`)
 * keyed on (book time, then the venue's tie-breakers: `sequence`, and `source` where both sources are
 * served), and the exact decimal arithmetic the answers need.
 *
 * Per request: `offset` ≠ 0 → 400; `start_time` > `end_time` → 400; the cursor (signed, bound to the
 * digest of the route, the market, the range and any `sources`: reused with another market it is a
 * 400); ONE read of `limit + 1` rows; only when the page is empty, the market's check (`known`: unknown →
 * 404), so a page with rows costs one statement. The time key is compared on the table's DateTime64
 * column itself (the cursor carries its Unix ms), so the read stays a range of the primary key.
 */
import { expression, fields, type RowOfSelection, type Selection } from '../../core/clickhouse/table.ts';
import { fromMicros, micros } from '../../core/decimal.ts';
import { type BookSource, ORDERBOOK_SNAPSHOTS } from '../../schemas/tables/orderbooks.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { filtersDigest, type PageInfo, rejectOffset, type SortKey } from '../pagination.ts';
import { keysetPage, type SortColumn } from '../read/keyset.ts';
import { type Condition, createWhere } from '../read/where.ts';
import { timeRangeMs } from './filters.ts';

/** The query every history endpoint takes besides its market (validated by its schema). */
export interface BookPageQuery {
  start_time: number;
  end_time: number;
  limit?: number;
  pagination_key?: string;
  offset?: number;
}

/** A key column after the time: a DateTime64 (its Unix ms in the cursor), a UInt64 or a short string. */
export interface TieKey {
  expr: string;
  kind: 'time' | 'UInt64' | 'String';
}

export interface BookPageRead<Row> {
  /** The route's name in the cursor digest and the query label (`api.<name>`). */
  name: string;
  /** The table read (no FINAL unless it says so). */
  table: string;
  select: Selection<Row>;
  /** The book-time column (DateTime64(3)). */
  time: string;
  /** The keys after the time, most significant first; together with it unique within the market. */
  ties: readonly TieKey[];
  /** The market's condition (and any other fixed one, e.g. the venue and sources). */
  where: readonly Condition[];
  /** What the cursor is bound to besides the range: the market, `sources`, ... */
  digest: Record<string, unknown>;
  /** A row's key values, in order: the time's Unix ms, then each tie's value as read. */
  keyOf(row: Row): readonly unknown[];
  /** Throws the 404 when the market is unknown (or has no order book); asked only for an empty page. */
  known(ctx: RouteContext): Promise<void>;
}

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

const placeholder = (kind: TieKey['kind'] | 'ms', name: string) =>
  kind === 'time' || kind === 'ms' ? `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')` : `{${name}:${kind}}`;

/** A cursor value of `kind`, checked: a Unix ms as a JSON number, a UInt64 as digits, a short string. */
function checkKey(kind: TieKey['kind'] | 'ms', v: unknown): boolean {
  if (kind === 'time' || kind === 'ms') return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (kind === 'UInt64') return typeof v === 'string' && /^\d{1,20}$/.test(v);
  return typeof v === 'string' && v.length <= 64;
}

/** Rows strictly after the cursor's key, ascending: `t > x OR (t = x AND s > y) OR ...` on the columns. */
function afterBookKey(
  columns: readonly { expr: string; kind: TieKey['kind'] | 'ms' }[],
  key: SortKey,
): Condition {
  if (key.length !== columns.length) throw invalidKey();
  const params: Record<string, unknown> = {};
  const at = columns.map((c, i) => {
    if (!checkKey(c.kind, key[i])) throw invalidKey();
    params[`cursor_${i}`] = key[i];
    return placeholder(c.kind, `cursor_${i}`);
  });
  const terms = columns.map((c, i) => {
    const eq = columns.slice(0, i).map((p, j) => `${p.expr} = ${at[j]}`);
    return [...eq, `${c.expr} > ${at[i]}`].join(' AND ');
  });
  return { sql: terms.map((t) => `(${t})`).join(' OR '), params };
}

/** One page of one market's snapshots, oldest first. */
export async function bookPage<Row>(
  ctx: RouteContext,
  q: BookPageQuery,
  r: BookPageRead<Row>,
): Promise<{ rows: Row[]; pagination: PageInfo }> {
  rejectOffset(q.offset);
  const [start, end] = timeRangeMs(r.time);
  start.parse(q as unknown as Record<string, unknown>);
  const digest = filtersDigest(r.name, { ...r.digest, start_time: q.start_time, end_time: q.end_time });
  const token = q.pagination_key;
  // The cursor first: a key of another market or range is a 400 before anything is read.
  const key = token === undefined ? undefined : ctx.cursors.decode(token, digest);
  const where = createWhere();
  for (const c of r.where) where.add(c);
  where.add(start.where!(q.start_time)!);
  where.add(end.where!(q.end_time)!);
  const columns = [{ expr: r.time, kind: 'ms' as const }, ...r.ties];
  const keys: SortColumn[] = columns.map((c) => ({
    expr: c.expr,
    // The type fixes the cursor value's form only (Unix ms as a number; UInt64 and strings as text).
    type: c.kind === 'ms' || c.kind === 'time' ? 'Float64' : c.kind,
    dir: 'asc',
  }));
  const page = await keysetPage(ctx, {
    label: `api.${r.name}`,
    keys,
    where,
    digest,
    token,
    key,
    after: (k) => afterBookKey(columns, k),
    limit: q.limit ?? 100,
    sql: (w, order) => `SELECT ${r.select.sql} FROM ${r.table} ${w.sql()}
     ORDER BY ${order}
     LIMIT {page_rows:UInt32}`,
    rows: (raw) =>
      raw.map((v) => {
        const row = r.select.zip(v);
        return { row, key: r.keyOf(row) };
      }),
  });
  if (page.rows.length === 0) await r.known(ctx);
  return page;
}

/** Unix ms of a DateTime64(3) column, read as a number (`toUnixTimestamp64Milli`). */
export const msOf = (column: string) => `toUnixTimestamp64Milli(${column})`;

/** An Array(Decimal) column read as the exact decimal texts of its items. */
export const decimalTexts = (column: string) => `arrayMap(x -> toString(x), ${column})`;

// ---- Exact decimals: the texts the engine gave (core/decimal.ts).

/**
 * A decimal text as the JSON number it reads as: exact for every value of ≤ 15 significant digits (a
 * price 0–1 of ≤ 6 decimals, a size below 10⁹ with 6 decimals), which JSON writes back as the same text.
 */
export const decimalNumber = (text: string): number => Number(text);

/** The exact sum of decimal texts, as a number. */
export const decimalSum = (texts: readonly string[]): number =>
  decimalNumber(fromMicros(texts.reduce((s, t) => s + micros(t), 0n)));

/** Parallel price and size texts → `{price, size}` levels, as numbers from the texts. */
export function levels(
  prices: readonly string[],
  sizes: readonly string[],
): { price: number; size: number }[] {
  return prices.map((p, i) => ({ price: decimalNumber(p), size: decimalNumber(sizes[i] ?? '0') }));
}

// ---- orderbook_snapshots (every venue but alpha, whose history is alpha_book_quotes).

/** What a snapshot reads: its key, its token, its levels and midpoints as exact decimal texts. */
export const SNAPSHOT_SELECTION = fields({
  ts_ms: expression<string>(msOf('ts')),
  sequence: expression<string>('sequence'),
  source: expression<BookSource>('source'),
  token_id: expression<string>('token_id'),
  bid_prices: expression<string[]>(decimalTexts('bid_prices')),
  bid_sizes: expression<string[]>(decimalTexts('bid_sizes')),
  ask_prices: expression<string[]>(decimalTexts('ask_prices')),
  ask_sizes: expression<string[]>(decimalTexts('ask_sizes')),
  midpoint: expression<string | null>('toString(midpoint)'),
  adjusted_midpoint: expression<string | null>('toString(adjusted_midpoint)'),
});
export type SnapshotRow = RowOfSelection<typeof SNAPSHOT_SELECTION>;

export interface SnapshotPageRead {
  /** The route's name (cursor digest, query label). */
  name: string;
  /** The venue's code in orderbook_snapshots. */
  venue: string;
  /** The venue's market key as stored (a ticker, a slug, a market id as text). */
  market: string;
  /** The sources served, sorted (one: the key is (ts, sequence); several: (ts, sequence, source)). */
  sources: readonly BookSource[];
  /** The cursor's binding besides the range (the market under its parameter's name, `sources`). */
  digest: Record<string, unknown>;
  known(ctx: RouteContext): Promise<void>;
}

/** One page of one market's stored snapshots of the given sources, oldest first. */
export function snapshotPage(
  ctx: RouteContext,
  q: BookPageQuery,
  r: SnapshotPageRead,
): Promise<{ rows: SnapshotRow[]; pagination: PageInfo }> {
  const bySource = r.sources.length > 1;
  return bookPage(ctx, q, {
    name: r.name,
    table: ORDERBOOK_SNAPSHOTS.name,
    select: SNAPSHOT_SELECTION,
    time: 'ts',
    ties: bySource
      ? [
          { expr: 'sequence', kind: 'UInt64' },
          { expr: 'source', kind: 'String' },
        ]
      : [{ expr: 'sequence', kind: 'UInt64' }],
    where: [
      {
        sql: 'venue = {venue:String} AND market = {market:String}',
        params: { venue: r.venue, market: r.market },
      },
      bySource
        ? { sql: 'source IN {sources:Array(String)}', params: { sources: [...r.sources] } }
        : { sql: 'source = {source:String}', params: { source: r.sources[0] } },
    ],
    digest: r.digest,
    keyOf: (row) =>
      bySource ? [Number(row.ts_ms), row.sequence, row.source] : [Number(row.ts_ms), row.sequence],
    known: r.known,
  });
}

/** Whether `sql` (a statement of one row or none) finds a row. */
export async function exists(
  ctx: RouteContext,
  label: string,
  sql: string,
  params: Record<string, unknown>,
): Promise<boolean> {
  return (await ctx.deps.clickhouse.query<{ found: number }>(label, sql, params)).length > 0;
}

export const notFound = (message: string) => new ApiError(404, message);

/** A stored book's levels as numbers, its best prices (null for an empty side) and depths (exact sums). */
export function bookSummary(r: SnapshotRow) {
  return {
    bids: levels(r.bid_prices, r.bid_sizes),
    asks: levels(r.ask_prices, r.ask_sizes),
    best_bid: r.bid_prices[0] === undefined ? null : decimalNumber(r.bid_prices[0]),
    best_ask: r.ask_prices[0] === undefined ? null : decimalNumber(r.ask_prices[0]),
    bid_depth: decimalSum(r.bid_sizes),
    ask_depth: decimalSum(r.ask_sizes),
  };
}

/** A market id's check: its markets table (ORDER BY market_id) or the recorded books hold it; 404 otherwise. */
export async function knownMarketId(
  ctx: RouteContext,
  o: { venue: string; table: string; marketId: number },
): Promise<void> {
  const found = await exists(
    ctx,
    `api.${o.venue}.orderbooks.market`,
    `SELECT 1 AS found FROM (
       (SELECT 1 FROM ${o.table} WHERE market_id = {market_id:UInt64} LIMIT 1)
       UNION ALL
       (SELECT 1 FROM orderbook_snapshots WHERE venue = {venue:String} AND market = {market:String} LIMIT 1)
     ) LIMIT 1`,
    { market_id: o.marketId, venue: o.venue, market: String(o.marketId) },
  );
  if (!found) throw notFound(`Unknown market_id: ${o.marketId}`);
}
