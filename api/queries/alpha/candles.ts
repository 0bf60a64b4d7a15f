/**
 * `GET /v2/alpha/candlesticks/{condition_id}` and `/candlesticks/token/{token_id}` (interface-shapes §8):
 * candles of a condition (alpha_condition_candles_*: YES terms, both tokens' volume) or of one token
 * (alpha_token_candles_*: its raw prices and volume), read with FINAL.
 *
 * Range: a period is in the answer when it overlaps [start, end]: its start lies in
 * [start floored to the width, end]. Widths 1, 60 and 1440 read the 1m, 1h and 1d tables; 5 and 15 roll
 * the 1m rows up on read (open of the earliest child, close of the latest, high max, low min, sums).
 * `previous` of the first candle: the close of the latest candle before the range's first period
 * (1m rows of that day, else 1d rows before it), else its own open.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { columnOf, expression, fields, type RowOfSelection } from '../../../core/clickhouse/table.ts';
import { alphaNowSeconds } from '../../../core/now.ts';
import type {
  CandleInterval,
  CandlesQuery,
  CandlesResponse,
  Candlestick,
  PriceData,
} from '../../../schemas/api/alpha-market-data.ts';
import { ALPHA_TOKEN_CANDLES_1M } from '../../../schemas/tables/alpha-analytics.ts';
import { ApiError } from '../../errors.ts';
import {
  at,
  checkStartBeforeEnd,
  clampSeconds,
  DAY,
  ID_COLUMN,
  type MarketRef,
  MINUTE,
  roundPrice,
  tradeSpan,
} from './market-data.ts';

type Width = Exclude<CandleInterval, 0>;

/** Longest range (end − start, seconds) per width; 1440 has none. */
export const MAX_RANGE: Record<Width, number> = {
  1: 7 * DAY,
  5: 14 * DAY,
  15: 30 * DAY,
  60: 90 * DAY,
  1440: Number.POSITIVE_INFINITY,
};
const WIDTHS: readonly Width[] = [1, 5, 15, 60, 1440];

/** The table a width reads and, for 5 and 15, the rollup of its 1m rows. */
const SOURCE: Record<Width, '1m' | '1h' | '1d'> = { 1: '1m', 5: '1m', 15: '1m', 60: '1h', 1440: '1d' };

const tableOf = (level: MarketRef['level'], res: '1m' | '1h' | '1d') => `alpha_${level}_candles_${res}`;

/** Auto: the smallest width whose maximum range covers the span. */
export function autoWidth(span: number): Width {
  return WIDTHS.find((w) => span <= MAX_RANGE[w])!;
}

const days = (s: number) => `${s / DAY} days`;

export interface ResolvedRange {
  width: Width;
  start: number;
  end: number;
}

/**
 * The range and width of a request (SPEC and issue 34's rules): start ≥ end (both given) → 400; a range
 * over the width's maximum (start given, end given or the last trade) → 400; omitted end → the last
 * trade (now if none); omitted start → the first trade (auto, 1440), else the later of the first trade
 * and end − the maximum range; auto → the smallest width whose maximum covers end − start.
 */
export function resolveRange(
  q: CandlesQuery,
  span: { first: number | null; last: number | null },
  now: number,
): ResolvedRange {
  checkStartBeforeEnd(q.start_time, q.end_time);
  const interval = q.interval ?? 0;
  const end = q.end_time ?? span.last ?? now;
  const first = span.first ?? end;
  if (interval === 0) {
    const start = q.start_time ?? first;
    return { width: autoWidth(Math.max(0, end - start)), start, end };
  }
  const max = MAX_RANGE[interval];
  if (q.start_time !== undefined) {
    if (end - q.start_time > max) {
      const until =
        q.end_time !== undefined
          ? `end_time (${end})`
          : span.last !== null
            ? `the last trade (${end})`
            : `now (${end})`;
      throw new ApiError(
        400,
        `start_time (${q.start_time}) to ${until} spans more than interval=${interval} allows ` +
          `(${days(max)}); narrow start_time and end_time, or choose a wider interval or 0 (auto)`,
      );
    }
    return { width: interval, start: q.start_time, end };
  }
  return { width: interval, start: Number.isFinite(max) ? Math.max(first, end - max) : first, end };
}

const MEAN = 'if(shares > 0, value / shares, close)';
const VOLUME = 'usd / 1000000';

/** Prices are Float64 in every candle table, token's and condition's alike (and so are their rollups). */
const price = (name: 'open' | 'high' | 'low' | 'close') => columnOf(ALPHA_TOKEN_CANDLES_1M, name);

/**
 * One candle as read: period start, open, high, low, close, mean (Σ price × shares ÷ Σ shares; close
 * without shares), volume (USD), trades. Mean and volume are divided in the engine (the same IEEE
 * division as here, amounts being below 2^53): fewer and unquoted columns to parse per row. A stored
 * candle's start and trades are UInt32 (numbers); a rollup's are UInt64 (quoted: decimal strings).
 */
const candleFields = <P extends number | string>(period: string) =>
  fields({
    period: expression<P>(period),
    open: price('open'),
    high: price('high'),
    low: price('low'),
    close: price('close'),
    mean: expression<number>(MEAN),
    volume: expression<number>(VOLUME),
    trades: expression<P>('trades'),
  });

/** Candles of a stored width (1, 60, 1440). */
const STORED_CANDLE = candleFields<number>('toUnixTimestamp(bucket)');
/** Candles of 5 and 15 minutes, rolled up from the 1m rows. */
const ROLLED_CANDLE = candleFields<string>('period');

type CandleRow = RowOfSelection<typeof STORED_CANDLE> | RowOfSelection<typeof ROLLED_CANDLE>;

const isRollup = (width: Width) => width === 5 || width === 15;

function candlesSql(m: MarketRef, width: Width): string {
  const id = ID_COLUMN[m.level];
  const table = tableOf(m.level, SOURCE[width]);
  // Σ price × shares in base units: a token's usd, a condition's YES-terms value.
  const value = m.level === 'token' ? 'usd' : 'yes_value';
  const rows = `SELECT bucket, open, high, low, close, usd, shares, ${value} AS value, trades
    FROM ${table} FINAL
    WHERE ${id} = {id:String} AND bucket >= ${at('from')} AND bucket < ${at('until')} AND deleted = 0`;
  if (!isRollup(width)) {
    return `SELECT ${STORED_CANDLE.sql}
      FROM (${rows}) ORDER BY bucket`;
  }
  return `SELECT ${ROLLED_CANDLE.sql} FROM (
      SELECT intDiv(toUnixTimestamp(bucket), {width_s:UInt32}) * {width_s:UInt32} AS period,
        argMin(open, bucket) AS open, max(high) AS high, min(low) AS low, argMax(close, bucket) AS close,
        sum(usd) AS usd, sum(shares) AS shares, sum(value) AS value, sum(trades) AS trades
      FROM (${rows}) GROUP BY period
    ) ORDER BY period`;
}

/** The close of the latest candle before the range. */
const PREVIOUS = fields({ close: price('close') });

/** The close of the latest candle before `from` (1m rows of from's day, else 1d rows before that day). */
function previousSql(m: MarketRef): string {
  const id = ID_COLUMN[m.level];
  return `SELECT ${PREVIOUS.sql} FROM (
      SELECT bucket, close FROM ${tableOf(m.level, '1m')} FINAL
      WHERE ${id} = {id:String} AND bucket >= ${at('day')} AND bucket < ${at('from')} AND deleted = 0
      UNION ALL
      SELECT bucket, close FROM ${tableOf(m.level, '1d')} FINAL
      WHERE ${id} = {id:String} AND bucket < ${at('day')} AND deleted = 0
    ) ORDER BY bucket DESC LIMIT 1`;
}

const dollars = (v: number) => v.toFixed(4);

function priceData(r: CandleRow, previousClose: number): PriceData {
  const open = roundPrice(r.open);
  const high = roundPrice(r.high);
  const low = roundPrice(r.low);
  const close = roundPrice(r.close);
  const mean = roundPrice(r.mean);
  const previous = roundPrice(previousClose);
  return {
    open,
    high,
    low,
    close,
    mean,
    previous,
    open_dollars: dollars(open),
    high_dollars: dollars(high),
    low_dollars: dollars(low),
    close_dollars: dollars(close),
    mean_dollars: dollars(mean),
    previous_dollars: dollars(previous),
  };
}

/** A candle as served: `previousClose` is the close of the candle before it (or its own open). */
export function toCandlestick(r: CandleRow, widthS: number, previousClose: number): Candlestick {
  return {
    end_period_ts: Number(r.period) + widthS,
    price: priceData(r, previousClose),
    volume: r.volume,
    trades_count: Number(r.trades),
  };
}

export async function alphaCandles(ch: ClickHouse, m: MarketRef, q: CandlesQuery): Promise<CandlesResponse> {
  // Parameter rules first: they need no query.
  checkStartBeforeEnd(q.start_time, q.end_time);
  if (q.start_time !== undefined && q.end_time !== undefined && (q.interval ?? 0) !== 0) {
    resolveRange(q, { first: null, last: null }, 0);
  }
  const span = await tradeSpan(ch, m);
  // Now is asked for only when it is the end (no end_time, no trade).
  const now = q.end_time === undefined && span.last === null ? await alphaNowSeconds(ch) : 0;
  const { width, start, end } = resolveRange(q, span, now);
  const widthS = width * MINUTE;
  const body: CandlesResponse = {
    condition_id: m.level === 'condition' ? m.id : null,
    token_id: m.level === 'token' ? m.id : null,
    first_trade_ts: span.first,
    last_trade_ts: span.last,
    interval: width,
    interval_seconds: widthS,
    candlesticks: [],
  };
  // A range that ends before it starts (a default did it) or a market without trades: no candle.
  if (start > end || span.first === null) return body;
  const from = clampSeconds(start - (start % widthS));
  const until = clampSeconds(end - (end % widthS) + widthS);
  const params = { id: m.id, from, until, width_s: widthS, day: from - (from % DAY) };
  const candle = isRollup(width) ? ROLLED_CANDLE : STORED_CANDLE;
  const [rows, before] = await Promise.all([
    ch.read(`api.alpha.candles.${SOURCE[width]}`, candlesSql(m, width), params),
    ch.read('api.alpha.candles.previous', previousSql(m), params),
  ]);
  let previous: number | undefined = before.map(PREVIOUS.zip)[0]?.close;
  body.candlesticks = rows.map((raw) => {
    const r: CandleRow = candle.zip(raw);
    const item = toCandlestick(r, widthS, previous ?? r.open);
    previous = r.close;
    return item;
  });
  return body;
}
