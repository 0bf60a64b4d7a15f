/**
 * `GET /v2/alpha/wallet/positions/{wallet}` (interface-shapes §13): one wallet's positions, a page in
 * the requested sort, and the summary of every matching position (not only the page's).
 *
 * The sorts on computed values (value, unrealized P&L) need each position's current price, and the
 * summary needs every matching position: a wallet holds few positions (hundreds to a few thousand), so
 * one statement reads all of the wallet's matching rows (`alpha_positions` FINAL by its primary key
 * prefix) with their current prices, and the sort, the keyset page and the summary are done here, on
 * base-unit integers; a second statement reads the catalog's slug, title and outcome labels of the
 * page's markets only (position-rows.ts). The cursor carries the last row's (sort value, token id) and
 * is bound, like every cursor, to the digest of the wallet, filters and sort.
 */
import { expression, fields } from '../../../core/clickhouse/table.ts';
import type {
  PositionsSummary,
  WalletPositionSort,
  WalletPositionsQuery,
  WalletPositionsResponse,
} from '../../../schemas/api/alpha-positions.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, rejectOffset, type SortKey } from '../../pagination.ts';
import { cutPage } from '../../read/keyset.ts';
import { createWhere } from '../../read/where.ts';
import { parseHash } from '../filters.ts';
import {
  catalogInfo,
  figuresOf,
  marketOf,
  POSITION_FIELDS,
  POSITION_SELECTION,
  type PositionFigures,
  type PositionRow,
  parseWallet,
  positionItem,
  pricesOf,
  units,
} from './position-rows.ts';

const NAME = 'alpha.wallet_positions';

/**
 * A position beside its token's current price: the statement's `p.*` is the subquery's columns
 * (POSITION_SELECTION, in order), then `tp.price, tp.source` (no price row: null and '').
 */
const PRICED_POSITION = fields({
  ...POSITION_FIELDS,
  price: expression<number | null>('tp.price'),
  source: expression<string>('tp.source'),
});

interface Matched {
  row: PositionRow;
  f: PositionFigures;
  tokenId: string;
  /** Unix ms of the position's first change (entry_date). */
  firstAtMs: bigint;
}

/** The sort value of each sort_by: an exact integer (bigint) or the price (a float). */
const SORT_VALUE: Record<WalletPositionSort, (m: Matched) => bigint | number> = {
  value: (m) => m.f.value,
  unrealized_pnl: (m) => m.f.unrealized,
  realized_pnl: (m) => m.f.realized,
  cost: (m) => m.f.cost,
  avg_price: (m) => m.f.avgPrice,
  current_price: (m) => m.f.price,
  entry_date: (m) => m.firstAtMs,
};

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

/** A cursor's sort value back to its type: a decimal string for integers, a JSON number for the price. */
function keyValue(sort: WalletPositionSort, v: unknown): bigint | number {
  if (sort === 'current_price') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidKey();
    return v;
  }
  if (typeof v !== 'string' || !/^-?\d{1,20}$/.test(v)) throw invalidKey();
  return BigInt(v);
}

const cmpValue = (a: bigint | number, b: bigint | number) => (a < b ? -1 : a > b ? 1 : 0);
const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function walletPositions(
  ctx: RouteContext,
  rawWallet: string,
  q: WalletPositionsQuery,
): Promise<WalletPositionsResponse> {
  rejectOffset(q.offset);
  const wallet = parseWallet(rawWallet, 'wallet');
  const conditionId = parseHash(q.condition_id, 'condition_id');
  const includeClosed = q.include_closed ?? false;
  const minShares = q.min_shares ?? 0;
  const sortBy = q.sort_by ?? 'value';
  const order = q.order ?? 'desc';
  const limit = q.limit ?? 100;
  const digest = filtersDigest(NAME, {
    wallet,
    include_closed: includeClosed,
    min_shares: minShares,
    market_slug: q.market_slug,
    condition_id: conditionId,
    sort_by: sortBy,
    order,
  });
  const after = q.pagination_key === undefined ? undefined : ctx.cursors.decode(q.pagination_key, digest);
  if (after !== undefined && (after.length !== 2 || typeof after[1] !== 'string')) throw invalidKey();
  const afterValue = after === undefined ? undefined : keyValue(sortBy, after[0]);

  const where = createWhere();
  where.add({ sql: 'wallet = {wallet:String}', params: { wallet } });
  if (!includeClosed) where.add({ sql: 'shares > 0', params: {} });
  if (minShares > 0) {
    // In base units, rounded up (a float's noise, 0.3 × 1e6 = 300000.00000000006, cut off first).
    const base = Math.ceil(Number((minShares * 1e6).toFixed(3)));
    where.add({ sql: 'shares >= {min_shares:UInt64}', params: { min_shares: base } });
  }
  if (conditionId !== undefined) {
    where.add({ sql: 'condition_id = {condition_id:String}', params: { condition_id: conditionId } });
  }
  if (q.market_slug !== undefined) {
    // The slug served is the catalog's (alpha_market_list): the filter matches the same value.
    where.add({
      sql: 'condition_id IN (SELECT lower(condition_id) FROM alpha_market_list WHERE slug = {market_slug:String})',
      params: { market_slug: q.market_slug },
    });
  }
  const rows = (
    await ctx.deps.clickhouse.read(
      `api.${NAME}`,
      `SELECT p.*, tp.price, tp.source
     FROM (SELECT ${POSITION_SELECTION.sql} FROM alpha_positions FINAL ${where.sql()}) AS p
     LEFT JOIN (${pricesOf('(SELECT token_id FROM alpha_positions WHERE wallet = {wallet:String})')}) AS tp
       ON tp.token_id = p.token_id`,
      where.params,
    )
  ).map(PRICED_POSITION.zip);
  const matched = rows.map(
    (row): Matched => ({
      row,
      f: figuresOf(row, { price: row.price, source: row.source }),
      tokenId: row.token_id,
      firstAtMs: BigInt(row.first_at_ms),
    }),
  );

  const value = SORT_VALUE[sortBy];
  const dir = order === 'asc' ? 1 : -1;
  const cmp = (a: Matched, b: Matched) =>
    dir * (cmpValue(value(a), value(b)) || cmpText(a.tokenId, b.tokenId));
  matched.sort(cmp);
  let start = 0;
  if (afterValue !== undefined) {
    const token = after![1] as string;
    const isAfter = (m: Matched) => dir * (cmpValue(value(m), afterValue) || cmpText(m.tokenId, token)) > 0;
    while (start < matched.length && !isAfter(matched[start]!)) start++;
  }
  const cut = cutPage(ctx, { digest, limit }, matched.slice(start, start + limit + 1), (last): SortKey => {
    const v = value(last);
    return [typeof v === 'bigint' ? v.toString() : v, last.tokenId];
  });

  const markets = await catalogInfo(
    ctx,
    `api.${NAME}.catalog`,
    cut.items.map((m) => m.row.condition_id),
  );
  return {
    wallet_address: wallet,
    positions: cut.items.map((m) => positionItem(m.row, m.f, marketOf(markets, m.row.condition_id))),
    summary: summarize(matched.map((m) => m.f)),
    pagination: cut.pagination,
  };
}

/**
 * The summary of every matching position: sums of the served base-unit figures; a position wins when
 * its realized + unrealized P&L is above 0 and loses when below; win_rate = wins ÷ (wins + losses), 0
 * when neither; fees_paid = net fees (refunds deducted), fees_refunded 0, net_fees = fees_paid.
 */
export function summarize(figures: readonly PositionFigures[]): PositionsSummary {
  let value = 0n;
  let cost = 0n;
  let unrealized = 0n;
  let realized = 0n;
  let fees = 0n;
  let wins = 0;
  let losses = 0;
  for (const f of figures) {
    value += f.value;
    cost += f.cost;
    unrealized += f.unrealized;
    realized += f.realized;
    fees += f.netFees;
    const total = f.realized + f.unrealized;
    if (total > 0n) wins++;
    else if (total < 0n) losses++;
  }
  return {
    total_positions: figures.length,
    total_value_usd: units(value),
    total_cost_usd: units(cost),
    total_unrealized_pnl_usd: units(unrealized),
    total_realized_pnl_usd: units(realized),
    win_rate: wins + losses === 0 ? 0 : wins / (wins + losses),
    winning_positions: wins,
    losing_positions: losses,
    fees_paid: units(fees),
    fees_refunded: 0,
    net_fees: units(fees),
  };
}
