/**
 * `GET /v2/data/ticks` (products.md §6; docs/ticks.md): the tick datasets' signed Parquet part URLs for a
 * day or a range of final days, priced per GiB. One definition for validation, OpenAPI and types; the
 * datasets are the venues' (schemas/venues/index.ts `TICK_DATASETS`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { TICKS_MAX_IDS, TICKS_USD_PER_GIB } from '../ticks.ts';
import { TICK_DATASETS } from '../venues/index.ts';
import { ErrorBody, StringEnum } from './common.ts';

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const NAMES = TICK_DATASETS.map((d) => d.name);

const dateParam = (description: string) =>
  Type.Optional(Type.String({ pattern: DATE, description: `${description}, YYYY-MM-DD (UTC)` }));
const msParam = (description: string) =>
  Type.Optional(
    Type.Integer({ minimum: 0, maximum: 99_999_999_999_999, description: `${description}, Unix ms` }),
  );

export const DataTicksQuery = Type.Object({
  venue: StringEnum(NAMES, {
    description: `The dataset: ${TICK_DATASETS.map((d) => `${d.name} (${d.about})`).join('; ')}`,
  }),
  date: dateParam('One day'),
  start_date: dateParam('First day of a range (with end_date)'),
  end_date: dateParam('Last day of a range, inclusive (with start_date)'),
  start_time: msParam('Start of a time range (with end_time): the parts holding rows from it on'),
  end_time: msParam('End of a time range, inclusive (with start_time)'),
  market_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 5000,
      description: `Comma-separated tickers (up to ${TICKS_MAX_IDS}): only the parts whose ticker range holds one of them`,
    }),
  ),
});
export type DataTicksQuery = Static<typeof DataTicksQuery>;

export const TickPart = Type.Object({
  url: Type.String({ description: 'Signed URL of the Parquet file (no key needed), valid until expires_at' }),
  rows: Type.Integer(),
  bytes: Type.Integer(),
  expires_at: Type.String({ description: 'When the URL stops working, ISO 8601' }),
  id_min: Type.String({ description: 'The first ticker of the part' }),
  id_max: Type.String({ description: 'The last ticker of the part' }),
  ts_min: Type.Integer({ description: 'The oldest row time, Unix ms' }),
  ts_max: Type.Integer({ description: 'The newest row time, Unix ms' }),
});
export type TickPart = Static<typeof TickPart>;

export const DataTicksResponse = Type.Object({
  venue: Type.String({ description: 'The dataset' }),
  status: Type.Literal('final'),
  format: Type.Literal('parquet'),
  compression: Type.Literal('zstd'),
  schema: Type.Array(Type.Object({ name: Type.String(), type: Type.String() }), {
    description: "The files' columns and their Parquet types",
  }),
  sort_order: Type.Array(Type.String(), { description: 'The order of the rows within and across parts' }),
  start_date: Type.String({ description: 'The first day served, YYYY-MM-DD' }),
  end_date: Type.String({ description: 'The last day served, YYYY-MM-DD' }),
  parts: Type.Array(TickPart, { description: 'In order: by day, then part' }),
  total_rows: Type.Integer(),
  total_bytes: Type.Integer(),
  price_usd: Type.Number({
    description: `total_bytes at ${TICKS_USD_PER_GIB.toFixed(2)} USD per GiB, no minimum`,
  }),
  charged_usd: Type.Number({ description: 'What this request was charged: price_usd, or 0 when reused' }),
  reused: Type.Boolean({
    description: 'The same request by the same key within 24 h: the URLs are issued again, free',
  }),
});
export type DataTicksResponse = Static<typeof DataTicksResponse>;

/** 404: the days asked are not final yet, or before the dataset's first day. */
export const TicksNotFound = Type.Object(
  {
    ...ErrorBody.properties,
    code: Type.Optional(StringEnum(['not_final', 'not_available'])),
    latest_final_date: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'not_final: the newest final day (null: none yet)',
      }),
    ),
    first_date: Type.Optional(Type.String({ description: "not_available: the dataset's first day" })),
  },
  { description: 'Not Found: not_final (a day not final yet) or not_available (before the first day)' },
);
