/**
 * `GET /v2/gamma/orderbooks` (docs/orderbooks.md): one market slug's polled snapshots (orderbook_snapshots,
 * venue gamma: the YES book, its token and the venue's midpoints) as stored. An AMM market has no order
 * book: 404 saying so (gamma_markets' `trade_type`), as for a slug never seen.
 */
import type {
  GammaOrderbooksQuery,
  GammaOrderbooksResponse,
  GammaSnapshot,
} from '../../../schemas/api/gamma-orderbooks.ts';
import type { RouteContext } from '../../context.ts';
import { decimalNumber, levels, notFound, type SnapshotRow, snapshotPage } from '../orderbooks.ts';

const VENUE = 'gamma';

/** 404 for a slug neither gamma_markets nor the recorded books hold, and for an AMM market. */
async function knownClobMarket(ctx: RouteContext, slug: string): Promise<void> {
  const [row] = await ctx.deps.clickhouse.query<{ trade_type: string; recorded: string }>(
    'api.gamma.orderbooks.market',
    `SELECT
       (SELECT argMax(trade_type, observed_at) FROM gamma_markets WHERE slug = {slug:String}) AS trade_type,
       (SELECT count() FROM (SELECT 1 FROM orderbook_snapshots
          WHERE venue = {venue:String} AND market = {slug:String} LIMIT 1)) AS recorded`,
    { slug, venue: VENUE },
  );
  const tradeType = row?.trade_type ?? '';
  const recorded = Number(row?.recorded ?? 0);
  if (tradeType === 'amm') {
    throw notFound(`Market ${slug.slice(0, 200)} is an AMM market: it has no order book`);
  }
  if (tradeType === '' && recorded === 0) throw notFound(`Unknown market slug: ${slug.slice(0, 200)}`);
}

export function toGammaSnapshot(slug: string, r: SnapshotRow): GammaSnapshot {
  return {
    market_slug: slug,
    token_id: r.token_id,
    timestamp: Number(r.ts_ms),
    bids: levels(r.bid_prices, r.bid_sizes),
    asks: levels(r.ask_prices, r.ask_sizes),
    midpoint: r.midpoint === null ? null : decimalNumber(r.midpoint),
    adjusted_midpoint: r.adjusted_midpoint === null ? null : decimalNumber(r.adjusted_midpoint),
  };
}

export async function gammaOrderbooks(
  ctx: RouteContext,
  q: GammaOrderbooksQuery,
): Promise<GammaOrderbooksResponse> {
  const { rows, pagination } = await snapshotPage(ctx, q, {
    name: 'gamma.orderbooks',
    venue: VENUE,
    market: q.market_slug,
    sources: ['rest'],
    digest: { market_slug: q.market_slug },
    known: (c) => knownClobMarket(c, q.market_slug),
  });
  return { snapshots: rows.map((r) => toGammaSnapshot(q.market_slug, r)), pagination };
}
