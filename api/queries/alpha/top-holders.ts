/**
 * `GET /v2/alpha/position/{token_id}/top-holders` (interface-shapes §15): the wallets holding one outcome
 * token (shares > 0), largest first, ties by address; `rank` is 1-based and continues across pages (the
 * cursor carries the last row's shares, address and rank). A token not in `alpha_tokens` is a 404.
 *
 * Statements: the token (its condition and outcome index, and with include_count the number of holders),
 * then the page from `alpha_positions` FINAL (by the token's bloom filter index) beside the token's price
 * and market information (position-rows.ts).
 */

import type { SortColumn } from '../../../core/clickhouse/sort-keys.ts';
import type {
  TopHolderEntry,
  TopHoldersQuery,
  TopHoldersResponse,
} from '../../../schemas/api/alpha-positions.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, paginate, rejectOffset } from '../../pagination.ts';
import { createWhere } from '../list.ts';
import { afterSortKey } from '../sorted-page.ts';
import { infoOf, outcomeLabel, positionFigures, tokenInfo, units } from './position-rows.ts';

const NAME = 'alpha.top_holders';

const KEYS: SortColumn[] = [
  { expr: 'shares', type: 'UInt64', dir: 'desc' },
  { expr: 'wallet', type: 'String', dir: 'asc' },
];

type HolderRow = [
  wallet: string,
  shares: string,
  avgPrice: string,
  realized: string,
  netFees: string,
  fills: number,
  firstFillAt: number | null,
  lastFillAt: number | null,
];

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

export async function topHolders(
  ctx: RouteContext,
  tokenId: string,
  q: TopHoldersQuery,
): Promise<TopHoldersResponse> {
  rejectOffset(q.offset);
  const includeCount = q.include_count ?? false;
  const limit = q.limit ?? 100;
  // include_count changes no row of the list: cursors work with and without it.
  const digest = filtersDigest(NAME, { token_id: tokenId });
  const cursor = q.pagination_key === undefined ? undefined : ctx.cursors.decode(q.pagination_key, digest);
  let rankBefore = 0;
  const where = createWhere();
  where.add({ sql: 'token_id = {token:String} AND shares > 0', params: { token: tokenId } });
  if (cursor !== undefined) {
    const rank = cursor[2];
    if (cursor.length !== 3 || typeof rank !== 'number' || !Number.isSafeInteger(rank) || rank < 1) {
      throw invalidKey();
    }
    rankBefore = rank;
    where.add(afterSortKey(KEYS, cursor.slice(0, 2)));
  }

  const count = includeCount
    ? ', (SELECT count() FROM alpha_positions FINAL WHERE token_id = {token:String} AND shares > 0)'
    : '';
  const tokens = await ctx.deps.clickhouse.read<[string, number, string?]>(
    `api.${NAME}.token`,
    `SELECT max(condition_id), max(outcome_index)${count} FROM alpha_tokens
     WHERE token_id = {token:String} HAVING count() > 0`,
    { token: tokenId },
  );
  if (tokens.length === 0) throw new ApiError(404, `Unknown token_id ${tokenId}: not seen on chain`);
  const [conditionId, outcomeIndex, total] = tokens[0]!;

  const [info, rows] = await Promise.all([
    tokenInfo(ctx, `api.${NAME}.info`, [{ tokenId, conditionId }]),
    ctx.deps.clickhouse.read<HolderRow>(
      `api.${NAME}`,
      `SELECT wallet, shares, avg_price, realized_pnl, net_fees, fills, toUnixTimestamp(first_fill_at),
              toUnixTimestamp(last_fill_at)
       FROM alpha_positions FINAL ${where.sql()}
       ORDER BY shares DESC, wallet ASC LIMIT {page_rows:UInt32}`,
      { ...where.params, page_rows: limit + 1 },
    ),
  ]);
  const i = infoOf(info, tokenId);
  const side = outcomeLabel(i, outcomeIndex);
  // The next cursor is made only for a full page: its last row's rank is rankBefore + limit.
  const cut = paginate(rows, limit, (last) =>
    ctx.cursors.encode(digest, [last[1], last[0], rankBefore + limit]),
  );
  const entries = cut.items.map(
    ([wallet, shares, avgPrice, realized, netFees, fills, first, last], n): TopHolderEntry => {
      const f = positionFigures({ shares, avgPrice, realized, netFees }, i);
      return {
        rank: rankBefore + n + 1,
        user: wallet,
        token_id: tokenId,
        position_shares: units(f.shares),
        position_value_usd: units(f.value),
        side,
        outcome_index: outcomeIndex,
        avg_price: units(f.avgPrice),
        realized_pnl: units(f.realized),
        unrealized_pnl: units(f.unrealized),
        total_pnl: units(f.realized + f.unrealized),
        trade_count: Number(fills),
        first_trade_at: first === null ? null : Number(first),
        last_trade_at: last === null ? null : Number(last),
      };
    },
  );
  return {
    condition_id: conditionId,
    title: i.title,
    market_slug: i.slug,
    side: null,
    total_count: includeCount ? Number(total) : null,
    entries,
    pagination: cut.pagination,
  };
}
