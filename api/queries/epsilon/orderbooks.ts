/**
 * `GET /v2/epsilon/orderbooks` (docs/orderbooks.md): one market id's polled snapshots (orderbook_snapshots,
 * venue epsilon: the YES book) with best prices and depths. A market id neither epsilon_markets nor the
 * recorded books hold: 404.
 */
import type {
  EpsilonOrderbooksQuery,
  EpsilonOrderbooksResponse,
  EpsilonSnapshot,
} from '../../../schemas/api/epsilon-orderbooks.ts';
import type { RouteContext } from '../../context.ts';
import { bookSummary, knownMarketId, type SnapshotRow, snapshotPage } from '../orderbooks.ts';

const VENUE = 'epsilon';

export function toEpsilonSnapshot(marketId: number, r: SnapshotRow): EpsilonSnapshot {
  return { market_id: marketId, timestamp: Number(r.ts_ms), ...bookSummary(r) };
}

export async function epsilonOrderbooks(
  ctx: RouteContext,
  q: EpsilonOrderbooksQuery,
): Promise<EpsilonOrderbooksResponse> {
  const { rows, pagination } = await snapshotPage(ctx, q, {
    name: 'epsilon.orderbooks',
    venue: VENUE,
    market: String(q.market_id),
    sources: ['rest'],
    digest: { market_id: q.market_id },
    known: (c) => knownMarketId(c, { venue: VENUE, table: 'epsilon_markets', marketId: q.market_id }),
  });
  return { snapshots: rows.map((r) => toEpsilonSnapshot(q.market_id, r)), pagination };
}
