/**
 * delta's order book poll (the `orderbooks` stream, ingest/orderbooks/stream.ts): the open markets of
 * delta_markets with a YES token, one `/token/orderbook` of that token each, stored as the market's YES
 * book (docs/orderbooks.md): bids and asks best first, prices and sizes as served (exact decimals),
 * `ts` the payload's `timestamp` (Unix ms; the answer's `Date` when it has none).
 */
import { DELTA_MARKETS } from '../../../schemas/tables/delta.ts';
import { bookBatches } from '../../orderbooks/batches.ts';
import { bestFirst } from '../../orderbooks/levels.ts';
import type { BookSnapshot } from '../../orderbooks/store.ts';
import type { BookBatch, OrderbookContext } from '../../orderbooks/stream.ts';
import type { DeltaClient } from './client.ts';
import type { OrderbookPayload } from './payloads.ts';

/** A served book as market `marketId`'s YES book; `date` is the answer's time (used without a timestamp). */
export function deltaBookSnapshot(marketId: string, p: OrderbookPayload, date: number): BookSnapshot {
  return {
    market: marketId,
    token_id: p.tokenId,
    ts: p.timestamp ?? date,
    bids: bestFirst(p.bids, 'bids'),
    asks: bestFirst(p.asks, 'asks'),
  };
}

export async function* readOrderbooks(client: DeltaClient, ctx: OrderbookContext): AsyncIterable<BookBatch> {
  const markets = await ctx.clickhouse.query<{ market: string; token: string }>(
    'delta.orderbooks.open',
    `SELECT toString(market_id) AS market, token_ids[1] AS token FROM ${DELTA_MARKETS.name} FINAL
     WHERE status = 'open' AND token_ids[1] != '' ORDER BY market_id`,
  );
  yield* bookBatches(markets, ctx, async (m) => {
    const r = await client.orderbook(m.token);
    return { ...r, snapshot: r.book ? deltaBookSnapshot(m.market, r.book, r.date ?? ctx.now()) : null };
  });
}
