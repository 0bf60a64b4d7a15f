/**
 * `GET /v2/beta/trades` (interface-shapes §19): beta's trades from `beta_trades` (one row per trade: the
 * ingestor stores only trade ids not yet stored, so the table is read without FINAL), newest first by
 * default, keyset-paginated on (created_time, trade_id).
 *
 * Access paths: the table is ordered by (ticker, created_time, trade_id), so `ticker` (exact) reads one
 * key range in time order, and `event_ticker` (a prefix of the tickers, `startsWith`) reads the key range
 * of the tickers it begins; the other filters narrow that range. At least one of the two is required.
 * The page is the keyset engine's (api/read/keyset.ts `keysetPage`); the cursor keeps its form (the last
 * row's Unix ms as a JSON number, then its trade id) and is compared on created_time itself (`afterTrade`,
 * the engine's `after`), so a `ticker` still reads its key range in order.
 */
import { expression, type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { BetaTrade, BetaTradesQuery, BetaTradesResponse } from '../../../schemas/api/beta-trades.ts';
import { BETA_TRADES } from '../../../schemas/tables/beta.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, rejectOffset, type SortKey } from '../../pagination.ts';
import { keysetPage, type SortColumn } from '../../read/keyset.ts';
import { type Condition, createWhere } from '../../read/where.ts';
import { checkTimeRange } from '../filters.ts';

export const BETA_TRADES_TABLE = BETA_TRADES.name;
const DIGEST_NAME = 'beta.trades';

/** What a trade reads: named, typed from the beta_trades description; its time as Unix ms. */
const TRADE_SELECTION = select(BETA_TRADES, [
  'trade_id',
  'ticker',
  'count',
  'yes_price',
  'no_price',
  'taker_side',
  expression<string>('toUnixTimestamp64Milli(created_time)').as('created_ms'),
]);
type TradeRow = RowOfSelection<typeof TRADE_SELECTION>;

/**
 * The order, both keys in the request's direction. The cursor carries (Unix ms, trade id): the ms as a
 * JSON number, which is what a Float64 key's cursor value is (the type fixes the cursor's form only: the
 * condition after the cursor is `afterTrade`'s, on created_time itself).
 */
const tradeKeys = (dir: SortColumn['dir']): SortColumn[] => [
  { expr: 'created_time', type: 'Float64', dir },
  { expr: 'trade_id', type: 'String', dir },
];

const time = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

/** The cursor's key: the last row's created_time (Unix ms) and trade id. */
function tradeCursor(key: SortKey): { ms: number; id: string } {
  const [ms, id] = key;
  if (key.length !== 2 || !Number.isSafeInteger(ms) || (ms as number) < 0) throw invalidKey();
  if (typeof id !== 'string' || id.length > 200) throw invalidKey();
  return { ms: ms as number, id };
}

/**
 * Trades strictly after the cursor's in `order`: compared on created_time itself (the table's key) with
 * the cursor's ms turned into a time, then on the trade id.
 */
function afterTrade(cursor: { ms: number; id: string }, order: 'asc' | 'desc'): Condition {
  const op = order === 'desc' ? '<' : '>';
  return {
    sql: `created_time ${op} ${time('cursor_ms')} OR (created_time = ${time('cursor_ms')} AND trade_id ${op} {cursor_id:String})`,
    params: { cursor_ms: cursor.ms, cursor_id: cursor.id },
  };
}

/** One row → its resource. */
export function toBetaTrade(r: TradeRow): BetaTrade {
  return {
    trade_id: r.trade_id,
    ticker: r.ticker,
    count: Number(r.count),
    yes_price: Number(r.yes_price),
    no_price: Number(r.no_price),
    taker_side: r.taker_side === 'no' ? 'no' : 'yes',
    created_time: Math.floor(Number(r.created_ms) / 1000),
  };
}

export async function betaTrades(ctx: RouteContext, q: BetaTradesQuery): Promise<BetaTradesResponse> {
  rejectOffset(q.offset);
  if (q.ticker === undefined && q.event_ticker === undefined) {
    throw new ApiError(400, 'At least one of ticker or event_ticker must be provided');
  }
  checkTimeRange(q.start_time, q.end_time);
  const order = q.order === 'asc' ? 'asc' : 'desc';
  const limit = q.limit ?? 100;
  const filters = {
    ticker: q.ticker ?? null,
    event_ticker: q.event_ticker ?? null,
    taker_side: q.taker_side ?? null,
    start_time: q.start_time ?? null,
    end_time: q.end_time ?? null,
    min_count: q.min_count ?? null,
    order,
  };
  const digest = filtersDigest(DIGEST_NAME, filters);

  const where = createWhere();
  if (q.ticker !== undefined) where.add({ sql: 'ticker = {ticker:String}', params: { ticker: q.ticker } });
  if (q.event_ticker !== undefined) {
    where.add({ sql: 'startsWith(ticker, {event_ticker:String})', params: { event_ticker: q.event_ticker } });
  }
  if (q.taker_side !== undefined) {
    where.add({ sql: 'taker_side = {taker_side:String}', params: { taker_side: q.taker_side } });
  }
  if (q.start_time !== undefined) {
    where.add({ sql: `created_time >= ${time('start_ms')}`, params: { start_ms: q.start_time * 1000 } });
  }
  if (q.end_time !== undefined) {
    // Inclusive of the whole end second (created_time keeps milliseconds; the response shows seconds).
    where.add({ sql: `created_time < ${time('end_ms')}`, params: { end_ms: (q.end_time + 1) * 1000 } });
  }
  if (q.min_count !== undefined) {
    where.add({ sql: 'count >= {min_count:Float64}', params: { min_count: q.min_count } });
  }
  const { rows, pagination } = await keysetPage(ctx, {
    label: `api.${DIGEST_NAME}`,
    keys: tradeKeys(order),
    where,
    digest,
    token: q.pagination_key,
    after: (key) => afterTrade(tradeCursor(key), order),
    limit,
    sql: (w, orderBy) => `SELECT ${TRADE_SELECTION.sql} FROM ${BETA_TRADES_TABLE} ${w.sql()}
     ORDER BY ${orderBy}
     LIMIT {page_rows:UInt32}`,
    rows: (raw) =>
      raw.map((v) => {
        const row = TRADE_SELECTION.zip(v);
        return { row, key: [row.created_ms, row.trade_id] };
      }),
  });
  return { trades: rows.map(toBetaTrade), pagination };
}
