/**
 * alpha's market-data endpoints (candles, volume chart, volume and open-interest series, market price)
 * and the catalog's rolling metrics: parameters and responses. One definition for validation, OpenAPI
 * and types. Shapes: SPEC "Candlestick response", MarketRollingMetrics; interface-shapes §7–§11.
 */
import { type Static, type TUnsafe, Type } from '@sinclair/typebox';
import { ErrorBody, keyedErrorResponses, StringEnum } from './common.ts';

/** An integer enum as one JSON Schema `enum` (one violation, one 422 detail entry). */
function IntegerEnum<const T extends readonly number[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'integer', enum: [...values], ...options });
}

const unixSeconds = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 99_999_999_999, description });

/** Path parameters: a condition id is checked by the handler (400), a token id by its pattern (422). */
export const ConditionParams = Type.Object({
  condition_id: Type.String({ maxLength: 200, description: 'Condition id, 0x + 64 hex' }),
});
export const TokenParams = Type.Object({
  token_id: Type.String({ pattern: '^[0-9]{1,78}$', description: 'Outcome token id (decimal uint256)' }),
});

/** The error responses of the market-data routes, for OpenAPI. */
export const marketDataErrorResponses = {
  ...keyedErrorResponses,
  400: Type.Object(ErrorBody.properties, {
    description:
      'Bad Request: a malformed condition id, start_time not before end_time, or a range over the maximum',
  }),
  404: Type.Object(ErrorBody.properties, {
    description: 'Not Found: the id was never seen on chain (market-price: or has no trade at that time)',
  }),
} as const;

// ---- candlesticks (§8) ----

export const CANDLE_INTERVALS = [0, 1, 5, 15, 60, 1440] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

export const CandlesQuery = Type.Object({
  start_time: Type.Optional(
    unixSeconds(
      'Range start, Unix seconds. Default: the first trade (interval 0 or 1440), else the later of the ' +
        'first trade and end_time minus the interval’s maximum range',
    ),
  ),
  end_time: Type.Optional(unixSeconds('Range end, Unix seconds. Default: the last trade')),
  interval: Type.Optional(
    IntegerEnum(CANDLE_INTERVALS, {
      default: 0,
      description:
        'Candle width in minutes: 0 = auto (the smallest width whose maximum range covers the span), 1 ' +
        '(range up to 7 days), 5 (14 days), 15 (30 days), 60 (90 days), 1440 (no limit)',
    }),
  ),
});
export type CandlesQuery = Static<typeof CandlesQuery>;

const price = (what: string) => Type.Number({ description: what });
const dollars = (what: string) => Type.String({ description: `${what}, 4 decimals` });

export const PriceData = Type.Object({
  open: price('Price of the first trade of the period'),
  high: price('Highest trade price'),
  low: price('Lowest trade price'),
  close: price('Price of the last trade of the period'),
  mean: price('Share-weighted mean price'),
  previous: price(
    'Close of the last trade before the period (the first candle with none before it: its own open)',
  ),
  open_dollars: dollars('open'),
  high_dollars: dollars('high'),
  low_dollars: dollars('low'),
  close_dollars: dollars('close'),
  mean_dollars: dollars('mean'),
  previous_dollars: dollars('previous'),
});
export type PriceData = Static<typeof PriceData>;

export const Candlestick = Type.Object({
  end_period_ts: Type.Integer({ description: 'End of the period (its start + width), Unix seconds' }),
  price: PriceData,
  volume: Type.Number({ description: 'USD traded in the period' }),
  trades_count: Type.Integer(),
});
export type Candlestick = Static<typeof Candlestick>;

const nullableId = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const nullableTs = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const CandlesResponse = Type.Object(
  {
    condition_id: nullableId('Set for condition-level candles'),
    token_id: nullableId('Set for token-level candles'),
    first_trade_ts: nullableTs('First trade of the market (or token), Unix seconds'),
    last_trade_ts: nullableTs('Last trade of the market (or token), Unix seconds'),
    interval: Type.Integer({ description: 'Resolved width in minutes (1, 5, 15, 60 or 1440)' }),
    interval_seconds: Type.Integer(),
    candlesticks: Type.Array(Candlestick, { description: 'Ascending; periods without trades omitted' }),
  },
  { description: 'Candles of the range' },
);
export type CandlesResponse = Static<typeof CandlesResponse>;

// ---- volume chart (§9) ----

export const VOLUME_CHART_GRANULARITIES = ['hour', 'day', 'week'] as const;
export type VolumeChartGranularity = (typeof VOLUME_CHART_GRANULARITIES)[number];

export const VolumeChartQuery = Type.Object({
  granularity: Type.Optional(
    StringEnum(VOLUME_CHART_GRANULARITIES, {
      default: 'hour',
      description:
        'Period: hour (range up to 90 days), day (1 year), week (3 years; weeks start Monday 00:00 UTC)',
    }),
  ),
  start_time: unixSeconds('Range start, Unix seconds'),
  end_time: unixSeconds('Range end, Unix seconds'),
});
export type VolumeChartQuery = Static<typeof VolumeChartQuery>;

export const VolumeChartPoint = Type.Object({
  timestamp: Type.Integer({ description: 'Start of the period, Unix seconds' }),
  total_volume: Type.Number({ description: 'USD traded in the period, both tokens' }),
  yes_volume: Type.Number({ description: 'USD traded in the YES token' }),
  no_volume: Type.Number({ description: 'USD traded in the NO token' }),
  trades_count: Type.Integer(),
});

export const VolumeChartResponse = Type.Object(
  {
    condition_id: Type.String(),
    granularity: StringEnum(VOLUME_CHART_GRANULARITIES),
    start_time: Type.Integer({ description: 'First data point (the requested start when there is none)' }),
    end_time: Type.Integer({ description: 'Last data point (the requested end when there is none)' }),
    data: Type.Array(VolumeChartPoint, { description: 'Ascending; periods without trades omitted' }),
  },
  { description: 'Volume per period' },
);
export type VolumeChartResponse = Static<typeof VolumeChartResponse>;

// ---- volume and open-interest series (§10, §11) ----

export const SERIES_GRANULARITIES = ['day', 'week', 'month', 'year', 'all'] as const;
export type SeriesGranularity = (typeof SERIES_GRANULARITIES)[number];

export const SeriesQuery = Type.Object({
  granularity: Type.Optional(
    StringEnum(SERIES_GRANULARITIES, {
      default: 'day',
      description:
        'Period (weeks start Monday 00:00 UTC); all: one point at end_time (default now) with the value then',
    }),
  ),
  start_time: Type.Optional(unixSeconds('Range start, Unix seconds (default: the first data)')),
  end_time: Type.Optional(unixSeconds('Range end, Unix seconds (default: now)')),
});
export type SeriesQuery = Static<typeof SeriesQuery>;

const seriesBounds = {
  start_time: Type.Integer({ description: 'First point (the requested start when there is none)' }),
  end_time: Type.Integer({ description: 'Last point (the requested end when there is none)' }),
};

export const VolumePoint = Type.Object({
  timestamp: Type.Integer({ description: 'Start of the period, Unix seconds (all: end_time)' }),
  volume: Type.Number({ description: 'Cumulative USD volume at the end of the period' }),
  buy_volume: Type.Number({ description: 'Cumulative USD volume of buys' }),
  sell_volume: Type.Number({ description: 'Cumulative USD volume of sells' }),
});

export const VolumeResponse = Type.Object(
  {
    token_id: Type.String(),
    granularity: StringEnum(SERIES_GRANULARITIES),
    ...seriesBounds,
    volume_over_time: Type.Array(VolumePoint, {
      description: 'Ascending, one point per period from the first trade',
    }),
  },
  { description: 'Cumulative volume of the token' },
);
export type VolumeResponse = Static<typeof VolumeResponse>;

export const OpenInterestPoint = Type.Object({
  timestamp: Type.Integer({ description: 'Start of the period, Unix seconds (all: end_time)' }),
  open_interest_usd: Type.Union([Type.Number(), Type.Null()], {
    description: 'Open interest (USD) at the end of the period',
  }),
});

export const OpenInterestResponse = Type.Object(
  {
    condition_id: Type.String(),
    market_id: Type.Union([Type.String(), Type.Null()], {
      description:
        "The condition's market id in alpha's catalog (alpha_markets); null when it does not know it",
    }),
    granularity: StringEnum(SERIES_GRANULARITIES),
    ...seriesBounds,
    open_interest_over_time: Type.Array(OpenInterestPoint, {
      description: 'Ascending, one point per period from the first change, carried forward',
    }),
  },
  { description: 'Open interest of the condition' },
);
export type OpenInterestResponse = Static<typeof OpenInterestResponse>;

// ---- market price (§7) ----

export const MarketPriceQuery = Type.Object({
  at_time: Type.Optional(unixSeconds('Price at this time, Unix seconds (default: now)')),
});
export type MarketPriceQuery = Static<typeof MarketPriceQuery>;

export const MarketPriceResponse = Type.Object(
  {
    price: Type.Number({ description: 'Price of the token, 0 to 1' }),
    at_time: Type.Integer({ description: 'at_time as requested, else now (Unix seconds)' }),
  },
  { description: 'Price of the token' },
);
export type MarketPriceResponse = Static<typeof MarketPriceResponse>;

// ---- rolling metrics (SPEC MarketRollingMetrics), embedded by the catalog ----

const usd = (d: string) => Type.Number({ default: 0, description: d });
const count = (d: string) => Type.Integer({ default: 0, description: d });

export const MarketRollingMetrics = Type.Object(
  {
    volume_1d: usd('USD volume over the last 24 h'),
    volume_7d: usd('USD volume over the last 7 days'),
    volume_30d: usd('USD volume over the last 30 days'),
    buy_volume_1d: usd('USD buy volume, 24 h'),
    buy_volume_7d: usd('USD buy volume, 7 days'),
    buy_volume_30d: usd('USD buy volume, 30 days'),
    sell_volume_1d: usd('USD sell volume, 24 h'),
    sell_volume_7d: usd('USD sell volume, 7 days'),
    sell_volume_30d: usd('USD sell volume, 30 days'),
    trades_1d: count('Trades, 24 h'),
    trades_7d: count('Trades, 7 days'),
    trades_30d: count('Trades, 30 days'),
    buys_1d: count('Buy trades, 24 h'),
    buys_7d: count('Buy trades, 7 days'),
    buys_30d: count('Buy trades, 30 days'),
    sells_1d: count('Sell trades, 24 h'),
    sells_7d: count('Sell trades, 7 days'),
    sells_30d: count('Sell trades, 30 days'),
    oi_change_1d: usd('Open-interest change, USD, 24 h'),
    oi_change_7d: usd('Open-interest change, USD, 7 days'),
    oi_change_30d: usd('Open-interest change, USD, 30 days'),
    computed_at: Type.Union([Type.String(), Type.Null()], {
      description: 'ISO 8601 time of the last computation (the newest ingested block time then)',
    }),
  },
  { title: 'MarketRollingMetrics' },
);
export type MarketRollingMetrics = Static<typeof MarketRollingMetrics>;
