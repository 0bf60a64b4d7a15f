/**
 * `GET /v2/alpha/positions` (interface-shapes §12): every (wallet, token) position of venue alpha,
 * closed ones included, ordered by its last update (`alpha_positions.last_at` / `last_block`). The
 * keyset is total: the last update's (block, log index, batch index), then wallet and token id (one row
 * per pair), so each position is served exactly once across pages; `order_by=timestamp` puts the update
 * time first. Two statements: the page from `alpha_positions` FINAL (deleted and superseded versions
 * never served; filters apply to the current version), then the page's prices and market information
 * (position-rows.ts).
 */

import type {
  AllUsersPosition,
  PositionsQuery,
  PositionsResponse,
} from '../../../schemas/api/alpha-positions.ts';
import type { RouteContext } from '../../context.ts';
import { filtersDigest, rejectOffset } from '../../pagination.ts';
import { type SortColumn, tablePage } from '../../read/keyset.ts';
import { createWhere } from '../../read/where.ts';
import { parseHash } from '../filters.ts';
import {
  checkBounds,
  figuresOf,
  infoOf,
  POSITION_SELECTION,
  type PositionRow,
  pairsOf,
  parseWallet,
  positionItem,
  type TokenInfo,
  tokenInfo,
} from './position-rows.ts';

const NAME = 'alpha.positions';

/** The sort key of each order_by (ascending form; `order` sets every column's direction). */
const CHAIN_ORDER = [
  { expr: 'last_block', type: 'UInt64' },
  { expr: 'toUInt64(last_log_index)', type: 'UInt64' },
  { expr: 'toUInt64(last_batch_index)', type: 'UInt64' },
  { expr: 'wallet', type: 'String' },
  { expr: 'token_id', type: 'String' },
] as const;
const KEYS: Record<'block' | 'timestamp', readonly Omit<SortColumn, 'dir'>[]> = {
  block: CHAIN_ORDER,
  timestamp: [{ expr: 'toUnixTimestamp64Milli(last_at)', type: 'Int64' }, ...CHAIN_ORDER],
};

export async function listPositions(ctx: RouteContext, q: PositionsQuery): Promise<PositionsResponse> {
  rejectOffset(q.offset);
  const wallet = q.wallet === undefined ? undefined : parseWallet(q.wallet, 'wallet');
  const conditionId = parseHash(q.condition_id, 'condition_id');
  checkBounds('min_block', q.min_block, 'max_block', q.max_block);
  checkBounds('min_timestamp', q.min_timestamp, 'max_timestamp', q.max_timestamp);
  const orderBy = q.order_by ?? 'timestamp';
  const order = q.order ?? 'desc';
  const limit = q.limit ?? 100;
  const digest = filtersDigest(NAME, {
    order_by: orderBy,
    order,
    min_block: q.min_block,
    max_block: q.max_block,
    min_timestamp: q.min_timestamp,
    max_timestamp: q.max_timestamp,
    wallet,
    token_id: q.token_id,
    condition_id: conditionId,
  });
  const keys: SortColumn[] = KEYS[orderBy].map((k) => ({ ...k, dir: order }));

  const where = createWhere();
  if (wallet !== undefined) where.add({ sql: 'wallet = {wallet:String}', params: { wallet } });
  if (q.token_id !== undefined) {
    where.add({ sql: 'token_id = {token_id:String}', params: { token_id: q.token_id } });
  }
  if (conditionId !== undefined) {
    where.add({ sql: 'condition_id = {condition_id:String}', params: { condition_id: conditionId } });
  }
  if (q.min_block !== undefined) {
    where.add({ sql: 'last_block >= {min_block:UInt64}', params: { min_block: q.min_block } });
  }
  if (q.max_block !== undefined) {
    where.add({ sql: 'last_block <= {max_block:UInt64}', params: { max_block: q.max_block } });
  }
  // Whole seconds, both inclusive: [min, max + 1) in milliseconds.
  if (q.min_timestamp !== undefined) {
    where.add({
      sql: "last_at >= fromUnixTimestamp64Milli({min_ms:Int64}, 'UTC')",
      params: { min_ms: q.min_timestamp * 1000 },
    });
  }
  if (q.max_timestamp !== undefined) {
    where.add({
      sql: "last_at < fromUnixTimestamp64Milli({max_ms:Int64}, 'UTC')",
      params: { max_ms: (q.max_timestamp + 1) * 1000 },
    });
  }
  const { rows, pagination } = await tablePage(ctx, {
    label: `api.${NAME}`,
    table: 'alpha_positions FINAL',
    select: POSITION_SELECTION,
    keys,
    where,
    digest,
    token: q.pagination_key,
    limit,
  });
  const info = await tokenInfo(ctx, `api.${NAME}.info`, pairsOf(rows));
  return { positions: rows.map((r) => toPosition(r, infoOf(info, r.token_id))), pagination };
}

/** A position and its token's price and market → the item of `GET /v2/alpha/positions`. */
export function toPosition(r: PositionRow, i: TokenInfo): AllUsersPosition {
  return {
    user: r.wallet,
    ...positionItem(r, figuresOf(r, i), i),
    last_updated_at: Number(r.last_at),
    last_updated_block: Number(r.last_block),
  };
}
