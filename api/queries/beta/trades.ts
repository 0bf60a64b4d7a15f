/**
 * `GET /v2/beta/trades` (interface-shapes §19): beta's trades from `beta_trades` (one row per trade: the
 * ingestor stores only trade ids not yet stored, so the table is read without FINAL), newest first by
 * default, keyset-paginated on (created_time, trade_id).
 *
 * Access paths: the table is ordered by (ticker, created_time, trade_id), so `ticker` (exact) reads one
 * key range in time order, and `event_ticker` (a prefix of the tickers, `startsWith`) reads the key range
 * of the tickers it begins; the other filters narrow that range. At least one of the two is required.
 * The list helper (api/queries/list.ts) carries integer keys only; this key holds the trade id (a
 * string), so the page is read here with the same pieces (filters digest, signed cursor, `limit + 1`).
 */
import type { BetaTrade, BetaTradesQuery, BetaTradesResponse } from '../../../schemas/api/beta-trades.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, paginate, rejectOffset } from '../../pagination.ts';
import { checkTimeRange } from '../filters.ts';
import { createWhere } from '../list.ts';

export const BETA_TRADES_TABLE = 'beta_trades';
const DIGEST_NAME = 'beta.trades';

type TradeRow = [
  tradeId: string,
  ticker: string,
  count: number,
  yesPrice: number,
  noPrice: number,
  takerSide: string,
  createdMs: string,
];

const COLUMNS = [
  'trade_id',
  'ticker',
  'count',
  'yes_price',
  'no_price',
  'taker_side',
  'toUnixTimestamp64Milli(created_time)',
] as const;

const time = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

/** The cursor's key: the last row's created_time (Unix ms) and trade id. */
function cursorKey(key: unknown[]): { ms: number; id: string } {
  const [ms, id] = key;
  if (key.length !== 2 || !Number.isSafeInteger(ms) || (ms as number) < 0) throw invalidKey();
  if (typeof id !== 'string' || id.length > 200) throw invalidKey();
  return { ms: ms as number, id };
}

function toTrade(r: TradeRow): BetaTrade {
  return {
    trade_id: r[0],
    ticker: r[1],
    count: Number(r[2]),
    yes_price: Number(r[3]),
    no_price: Number(r[4]),
    taker_side: r[5] === 'no' ? 'no' : 'yes',
    created_time: Math.floor(Number(r[6]) / 1000),
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
  const cursor = q.pagination_key ? cursorKey(ctx.cursors.decode(q.pagination_key, digest)) : undefined;

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
  if (cursor) {
    const op = order === 'desc' ? '<' : '>';
    where.add({
      sql: `created_time ${op} ${time('cursor_ms')} OR (created_time = ${time('cursor_ms')} AND trade_id ${op} {cursor_id:String})`,
      params: { cursor_ms: cursor.ms, cursor_id: cursor.id },
    });
  }
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const rows = await ctx.deps.clickhouse.read<TradeRow>(
    `api.${DIGEST_NAME}`,
    `SELECT ${COLUMNS.join(', ')} FROM ${BETA_TRADES_TABLE} ${where.sql()}
     ORDER BY created_time ${dir}, trade_id ${dir}
     LIMIT {page_rows:UInt32}`,
    { ...where.params, page_rows: limit + 1 },
  );
  const cut = paginate(rows, limit, (last) => ctx.cursors.encode(digest, [Number(last[6]), last[0]]));
  return { trades: cut.items.map(toTrade), pagination: cut.pagination };
}
