/**
 * `GET /v2/alpha/orderbooks` (docs/orderbooks.md): one token's books as the book sync observed them
 * (alpha_book_quotes, read with FINAL: one row per token and observation), keyed on (book_time,
 * observed_at): `timestamp` is the book's own time, `indexedAt` when it was observed. Prices and sizes
 * are the table's Float64s (the upstream decimals), which JSON writes back as their shortest text. A
 * token neither alpha_book_quotes nor alpha_markets holds: 404.
 */
import { expression, fields, type RowOfSelection } from '../../../core/clickhouse/table.ts';
import type {
  AlphaOrderbooksQuery,
  AlphaOrderbooksResponse,
  AlphaSnapshot,
} from '../../../schemas/api/alpha-orderbooks.ts';
import { ALPHA_BOOK_QUOTES } from '../../../schemas/tables/alpha-book.ts';
import type { RouteContext } from '../../context.ts';
import { bookPage, exists, msOf, notFound } from '../orderbooks.ts';

const QUOTE_SELECTION = fields({
  book_ms: expression<string>(msOf('book_time')),
  observed_ms: expression<string>(msOf('observed_at')),
  condition_id: expression<string>('condition_id'),
  hash: expression<string>('hash'),
  tick_size: expression<string>('tick_size'),
  bid_prices: expression<number[]>('bid_prices'),
  bid_sizes: expression<number[]>('bid_sizes'),
  ask_prices: expression<number[]>('ask_prices'),
  ask_sizes: expression<number[]>('ask_sizes'),
});
type QuoteRow = RowOfSelection<typeof QUOTE_SELECTION>;

const side = (prices: readonly number[], sizes: readonly number[]) =>
  prices.map((price, i) => ({ size: sizes[i] ?? 0, price }));

export function toAlphaSnapshot(tokenId: string, r: QuoteRow): AlphaSnapshot {
  return {
    asks: side(r.ask_prices, r.ask_sizes),
    bids: side(r.bid_prices, r.bid_sizes),
    hash: r.hash,
    assetId: tokenId,
    timestamp: Number(r.book_ms),
    tickSize: r.tick_size,
    indexedAt: Number(r.observed_ms),
    market: r.condition_id,
  };
}

async function knownToken(ctx: RouteContext, tokenId: string): Promise<void> {
  const found = await exists(
    ctx,
    'api.alpha.orderbooks.token',
    `SELECT 1 AS found FROM (
       (SELECT 1 FROM alpha_book_quotes WHERE token_id = {token_id:String} LIMIT 1)
       UNION ALL
       (SELECT 1 FROM alpha_markets WHERE has(clob_token_ids, {token_id:String}) LIMIT 1)
     ) LIMIT 1`,
    { token_id: tokenId },
  );
  if (!found) throw notFound(`Unknown token_id: ${tokenId}`);
}

export async function alphaOrderbooks(
  ctx: RouteContext,
  q: AlphaOrderbooksQuery,
): Promise<AlphaOrderbooksResponse> {
  const { rows, pagination } = await bookPage(ctx, q, {
    name: 'alpha.orderbooks',
    table: `${ALPHA_BOOK_QUOTES.name} FINAL`,
    select: QUOTE_SELECTION,
    time: 'book_time',
    ties: [{ expr: 'observed_at', kind: 'time' }],
    where: [{ sql: 'token_id = {token_id:String}', params: { token_id: q.token_id } }],
    digest: { token_id: q.token_id },
    keyOf: (r) => [Number(r.book_ms), Number(r.observed_ms)],
    known: (c) => knownToken(c, q.token_id),
  });
  return { snapshots: rows.map((r) => toAlphaSnapshot(q.token_id, r)), pagination };
}
