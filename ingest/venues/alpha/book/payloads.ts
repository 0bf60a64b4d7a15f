/**
 * The book API's `POST /books` answer (schemas/upstream/alpha-book-api.yaml, `OrderBookSummary`), as TypeBox
 * schemas. The answer is an array checked record by record: a record that fails its schema is quarantined
 * and the others are kept. One difference from the upstream file, as the live API and the replica behave:
 * `timestamp` is Unix milliseconds as a decimal string, not a date-time. Prices and sizes are decimal
 * strings; a price outside [0, 1] is refused too (an outcome token's price is a probability).
 */
import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/** A non-negative decimal as the book API writes it ("0.48", "1200", "12.5"). */
const DECIMAL = '^[0-9]+(\\.[0-9]+)?$';

export const OrderLevel = Type.Object({
  price: Type.String({ pattern: DECIMAL }),
  size: Type.String({ pattern: DECIMAL }),
});

export const OrderBookSummary = Type.Object({
  market: Type.String(),
  asset_id: Type.String({ minLength: 1 }),
  timestamp: Type.String({ pattern: '^[0-9]{1,15}$' }),
  hash: Type.String(),
  bids: Type.Array(OrderLevel),
  asks: Type.Array(OrderLevel),
  min_order_size: Type.Optional(Type.String()),
  tick_size: Type.Optional(Type.String()),
  last_trade_price: Type.Optional(Type.String()),
  neg_risk: Type.Optional(Type.Boolean()),
});
export type OrderBookSummary = Static<typeof OrderBookSummary>;

/** The request body: one entry per token. */
export interface BookRequest {
  token_id: string;
}

const checker = TypeCompiler.Compile(OrderBookSummary);

export type BookCheck = { ok: true; book: OrderBookSummary } | { ok: false; reason: string };

/** A record of the answer as a book, or why it is not one (its first schema error or a price out of range). */
export function checkBook(record: unknown): BookCheck {
  if (!checker.Check(record)) {
    const e = checker.Errors(record).First();
    return { ok: false, reason: e ? `${e.path || '/'}: ${e.message}` : 'does not match OrderBookSummary' };
  }
  const outside = [...record.bids, ...record.asks].find((l) => Number(l.price) > 1);
  if (outside) return { ok: false, reason: `price ${outside.price} is above 1` };
  return { ok: true, book: record };
}

/** The token a record is about, if it says so (for a quarantined record's id). */
export function recordTokenId(record: unknown): string | null {
  const id = (record as { asset_id?: unknown } | null)?.asset_id;
  return typeof id === 'string' && id !== '' ? id : null;
}
