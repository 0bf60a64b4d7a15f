/**
 * `GET /v2/alpha/position/{token_id}/top-holders` (interface-shapes §15): the wallets holding one outcome
 * token (shares > 0), largest first, ties by address; `rank` is 1-based and continues across pages (the
 * cursor carries the last row's shares, address and rank). A token not in `alpha_tokens` is a 404.
 *
 * Statements: the token (its condition and outcome index, and with include_count the number of holders),
 * then the page from `alpha_positions` FINAL (by the token's bloom filter index) beside the token's price
 * and market information (position-rows.ts).
 */

import { columnOf, expression, fields, type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type {
  TopHolderEntry,
  TopHoldersQuery,
  TopHoldersResponse,
} from '../../../schemas/api/alpha-positions.ts';
import { ALPHA_TOKENS } from '../../../schemas/tables/alpha-chain.ts';
import { ALPHA_POSITIONS } from '../../../schemas/tables/alpha-positions.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, rejectOffset } from '../../pagination.ts';
import { afterKey, cutPage, orderBy, type SortColumn } from '../../read/keyset.ts';
import { createWhere } from '../../read/where.ts';
import { infoOf, outcomeLabel, positionFigures, type TokenInfo, tokenInfo, units } from './position-rows.ts';

const NAME = 'alpha.top_holders';

const KEYS: SortColumn[] = [
  { expr: 'shares', type: 'UInt64', dir: 'desc' },
  { expr: 'wallet', type: 'String', dir: 'asc' },
];

/** A holder's position; times of its first and last fill as Unix seconds. */
const HOLDER_SELECTION = select(ALPHA_POSITIONS, [
  'wallet',
  'shares',
  'avg_price',
  'realized_pnl',
  'net_fees',
  'fills',
  expression<number | null>('toUnixTimestamp(first_fill_at)').as('first_fill_at'),
  expression<number | null>('toUnixTimestamp(last_fill_at)').as('last_fill_at'),
]);

type HolderRow = RowOfSelection<typeof HOLDER_SELECTION>;

/** The token's market and outcome (no row: not a token seen on chain). */
const TOKEN_FIELDS = {
  condition_id: columnOf(ALPHA_TOKENS, 'condition_id', 'max(condition_id)'),
  outcome_index: columnOf(ALPHA_TOKENS, 'outcome_index', 'max(outcome_index)'),
};
const TOKEN = fields(TOKEN_FIELDS);
/** With include_count: the number of holders too. */
const TOKEN_COUNTED = fields({
  ...TOKEN_FIELDS,
  total: expression<string>(
    '(SELECT count() FROM alpha_positions FINAL WHERE token_id = {token:String} AND shares > 0)',
  ),
});

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
    where.add(afterKey(KEYS, cursor.slice(0, 2)));
  }

  const tokenRead = includeCount ? TOKEN_COUNTED : TOKEN;
  const tokens = (
    await ctx.deps.clickhouse.read(
      `api.${NAME}.token`,
      `SELECT ${tokenRead.sql} FROM alpha_tokens
     WHERE token_id = {token:String} HAVING count() > 0`,
      { token: tokenId },
    )
  ).map(tokenRead.zip);
  if (tokens.length === 0) throw new ApiError(404, `Unknown token_id ${tokenId}: not seen on chain`);
  const token = tokens[0]!;

  const [info, rows] = await Promise.all([
    tokenInfo(ctx, `api.${NAME}.info`, [{ tokenId, conditionId: token.condition_id }]),
    ctx.deps.clickhouse
      .read(
        `api.${NAME}`,
        `SELECT ${HOLDER_SELECTION.sql}
       FROM alpha_positions FINAL ${where.sql()}
       ORDER BY ${orderBy(KEYS)} LIMIT {page_rows:UInt32}`,
        { ...where.params, page_rows: limit + 1 },
      )
      .then((raw) => raw.map(HOLDER_SELECTION.zip)),
  ]);
  const i = infoOf(info, tokenId);
  const held: HeldToken = {
    tokenId,
    outcomeIndex: token.outcome_index,
    side: outcomeLabel(i, token.outcome_index),
    info: i,
  };
  // The next cursor is made only for a full page: its last row's rank is rankBefore + limit.
  const cut = cutPage(ctx, { digest, limit }, rows, (last) => [last.shares, last.wallet, rankBefore + limit]);
  return {
    condition_id: token.condition_id,
    title: i.title,
    market_slug: i.slug,
    side: null,
    total_count: 'total' in token ? Number(token.total) : null,
    entries: cut.items.map((r, n) => toHolderEntry(r, rankBefore + n + 1, held)),
    pagination: cut.pagination,
  };
}

/** The token whose holders a page lists: what each of its entries shares. */
interface HeldToken {
  tokenId: string;
  outcomeIndex: number;
  /** The outcome's label. */
  side: string;
  /** The token's price and market. */
  info: TokenInfo;
}

/** A holder's position and its rank → an entry of `GET /v2/alpha/position/{token_id}/top-holders`. */
export function toHolderEntry(r: HolderRow, rank: number, t: HeldToken): TopHolderEntry {
  const f = positionFigures(
    { shares: r.shares, avgPrice: r.avg_price, realized: r.realized_pnl, netFees: r.net_fees },
    t.info,
  );
  return {
    rank,
    user: r.wallet,
    token_id: t.tokenId,
    position_shares: units(f.shares),
    position_value_usd: units(f.value),
    side: t.side,
    outcome_index: t.outcomeIndex,
    avg_price: units(f.avgPrice),
    realized_pnl: units(f.realized),
    unrealized_pnl: units(f.unrealized),
    total_pnl: units(f.realized + f.unrealized),
    trade_count: Number(r.fills),
    first_trade_at: r.first_fill_at === null ? null : Number(r.first_fill_at),
    last_trade_at: r.last_fill_at === null ? null : Number(r.last_fill_at),
  };
}
