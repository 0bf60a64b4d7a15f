/**
 * `GET /v2/delta/orderbooks` (docs/orderbooks.md): one market id's polled snapshots (orderbook_snapshots,
 * venue delta: the YES book) with best prices and depths. A market id neither delta_markets nor the
 * recorded books hold: 404.
 */
import type {
  DeltaOrderbooksQuery,
  DeltaOrderbooksResponse,
  DeltaSnapshot,
} from '../../../schemas/api/delta-orderbooks.ts';
import type { RouteContext } from '../../context.ts';
import { bookSummary, knownMarketId, type SnapshotRow, snapshotPage } from '../orderbooks.ts';

const VENUE = 'delta';

export function toDeltaSnapshot(marketId: number, r: SnapshotRow): DeltaSnapshot {
  return { market_id: marketId, token_id: r.token_id, timestamp: Number(r.ts_ms), ...bookSummary(r) };
}

export async function deltaOrderbooks(
  ctx: RouteContext,
  q: DeltaOrderbooksQuery,
): Promise<DeltaOrderbooksResponse> {
  const { rows, pagination } = await snapshotPage(ctx, q, {
    name: 'delta.orderbooks',
    venue: VENUE,
    market: String(q.market_id),
    sources: ['rest'],
    digest: { market_id: q.market_id },
    known: (c) => knownMarketId(c, { venue: VENUE, table: 'delta_markets', marketId: q.market_id }),
  });
  return { snapshots: rows.map((r) => toDeltaSnapshot(q.market_id, r)), pagination };
}
