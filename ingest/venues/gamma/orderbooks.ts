/**
 * gamma's order book poll (the `orderbooks` stream, ingest/orderbooks/stream.ts): the open order-book
 * (`clob`) markets of gamma_markets, one `/markets/{slug}/orderbook` each (a pool market, `amm`, has no
 * book: not asked for; one that answers 400 as such is skipped), stored as the market's YES book
 * (docs/orderbooks.md): bids and asks best first, prices and sizes as the JSON numbers' exact decimals,
 * `midpoint` and `adjusted_midpoint` as served, `token_id` the payload's `tokenId` (else the stored YES
 * token), `ts` the answer's `Date` (the payload has no time of its own).
 */

import { decimal } from '../../../core/decimal.ts';
import { GAMMA_MARKETS } from '../../../schemas/tables/gamma.ts';
import { bookBatches } from '../../orderbooks/batches.ts';
import { bestFirst } from '../../orderbooks/levels.ts';
import type { BookSnapshot } from '../../orderbooks/store.ts';
import type { BookBatch, OrderbookContext } from '../../orderbooks/stream.ts';
import type { GammaClient } from './client.ts';
import type { OrderbookPayload } from './payloads.ts';

/** A served book as the market's YES book at `ts`. */
export function gammaBookSnapshot(
  slug: string,
  tokenId: string,
  p: OrderbookPayload,
  ts: number,
): BookSnapshot {
  return {
    market: slug,
    token_id: p.tokenId ?? tokenId,
    ts,
    bids: bestFirst(p.bids, 'bids'),
    asks: bestFirst(p.asks, 'asks'),
    midpoint: p.midpoint == null ? null : decimal(p.midpoint),
    adjusted_midpoint: p.adjustedMidpoint == null ? null : decimal(p.adjustedMidpoint),
  };
}

export async function* readOrderbooks(client: GammaClient, ctx: OrderbookContext): AsyncIterable<BookBatch> {
  const markets = await ctx.clickhouse.query<{ slug: string; token: string }>(
    'gamma.orderbooks.open',
    `SELECT slug, token_ids[1] AS token FROM ${GAMMA_MARKETS.name} FINAL
     WHERE status = 'open' AND trade_type = 'clob' ORDER BY slug`,
  );
  yield* bookBatches(markets, ctx, async (m) => {
    const r = await client.orderbook(m.slug);
    const snapshot = r.book ? gammaBookSnapshot(m.slug, m.token, r.book, r.date ?? ctx.now()) : null;
    return { ...r, snapshot };
  });
}
