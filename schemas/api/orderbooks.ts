/**
 * What every order book history endpoint shares (interface-shapes §17, docs/orderbooks.md): the
 * required Unix-ms time range, the cursor parameters, a price level. Each venue's own query and snapshot
 * are in schemas/api/<venue>-orderbooks.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { cursorQuery, keyedErrorResponses, Pagination } from './common.ts';

const UNIX_MS = { minimum: 0, maximum: 99_999_999_999_999 };

/** `start_time`, `end_time` (required, Unix ms, inclusive), `limit`, `pagination_key`, `offset` (only 0). */
export function orderbookQuery(limit: { max: number }) {
  return {
    start_time: Type.Integer({
      ...UNIX_MS,
      description: 'Earliest book time, Unix milliseconds (inclusive)',
    }),
    end_time: Type.Integer({
      ...UNIX_MS,
      description: 'Latest book time, Unix milliseconds (inclusive); start_time after end_time is a 400',
    }),
    ...cursorQuery({ min: 1, max: limit.max, default: 100 }),
  };
}

/** A price level of a decimal book: price 0–1, size in contracts or shares. */
export const BookLevel = Type.Object({
  price: Type.Number({ description: 'Price of YES, 0–1' }),
  size: Type.Number({ description: 'Size resting at this price' }),
});
export type BookLevel = Static<typeof BookLevel>;

/** The `{snapshots, pagination}` page of a snapshot schema. */
export const snapshotPage = <T extends ReturnType<typeof Type.Object>>(snapshot: T, description: string) =>
  Type.Object({ snapshots: Type.Array(snapshot), pagination: Pagination }, { description });

export const orderbookErrorResponses = {
  ...keyedErrorResponses,
  404: Type.Object(
    {
      error: Type.String({ description: 'HTTP reason phrase, e.g. "Not Found"' }),
      message: Type.String({ description: 'What went wrong' }),
    },
    { description: 'Not Found: the market is unknown (or has no order book)' },
  ),
} as const;
