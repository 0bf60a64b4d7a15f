/**
 * beta's order book poll (the `orderbooks` stream, ingest/orderbooks/stream.ts): the open markets of
 * beta_markets, 100 tickers a `/markets/orderbooks` call, each market's `orderbook_fp` stored as its YES
 * book (docs/orderbooks.md):
 * - bids: the YES bids (`yes_dollars`), best (highest) first;
 * - asks: a NO bid at p for n contracts is a YES ask at 1 − p for n (exact decimals), best (lowest) first;
 * - sizes: the fixed-point counts (`_fp`) as served; prices the `*_dollars` strings (sub-cent levels of
 *   a `deci_cent` market keep their 4 decimals);
 * - `ts`: the answer's `Date` (the payload has no time of its own); `token_id` '' (beta has no tokens).
 */
import { BETA_MARKETS } from '../../../schemas/tables/beta.ts';
import { bestFirst, complement } from '../../orderbooks/levels.ts';
import type { BookSnapshot } from '../../orderbooks/store.ts';
import type { BookBatch, OrderbookContext } from '../../orderbooks/stream.ts';
import { type BetaClient, ORDERBOOKS_PER_CALL } from './client.ts';
import type { OrderbookPayload } from './payloads.ts';

/** A served book as the market's YES book at `ts`. */
export function betaBookSnapshot(p: OrderbookPayload, ts: number): BookSnapshot {
  const fp = p.orderbook_fp;
  return {
    market: p.ticker,
    token_id: '',
    ts,
    bids: bestFirst(
      fp.yes_dollars.map(([price, size]) => ({ price, size })),
      'bids',
    ),
    asks: bestFirst(
      fp.no_dollars.map(([price, size]) => ({ price: complement(price), size })),
      'asks',
    ),
  };
}

/** The open tickers of beta_markets, in order. */
export async function openTickers(ctx: OrderbookContext): Promise<string[]> {
  const rows = await ctx.clickhouse.query<{ ticker: string }>(
    'beta.orderbooks.open',
    `SELECT ticker FROM ${BETA_MARKETS.name} FINAL WHERE status = 'open' ORDER BY ticker`,
  );
  return rows.map((r) => r.ticker);
}

export async function* readOrderbooks(client: BetaClient, ctx: OrderbookContext): AsyncIterable<BookBatch> {
  const tickers = await openTickers(ctx);
  ctx.summary.markets = tickers.length;
  for (let i = 0; i < tickers.length; i += ORDERBOOKS_PER_CALL) {
    const r = await client.orderbooks(tickers.slice(i, i + ORDERBOOKS_PER_CALL));
    ctx.account(r);
    ctx.summary.read += r.books.length;
    yield { books: r.books.map((b) => betaBookSnapshot(b.book, b.date ?? ctx.now())) };
    ctx.step('books');
  }
}
