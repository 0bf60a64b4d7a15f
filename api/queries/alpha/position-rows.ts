/**
 * What venue alpha's position endpoints share (docs/api.md "Positions"): the columns of a position as
 * read from `alpha_positions` (FINAL), the market information of a page's tokens (current price from
 * `alpha_token_prices`, slug, title and outcome labels from the catalog's `alpha_market_list`) and the
 * one rule for each derived number:
 *   shares, avg price, realized, bought, fees = base units ÷ 1e6;
 *   total_cost = shares × avg_price (cost basis of the shares held);
 *   price = the token's current price, or the avg entry price when none is known (unrealized 0);
 *   value = shares × price; unrealized = shares × (price − avg); unrealized_pct = unrealized ÷ |total_cost|
 *   × 100 (0 when total_cost is 0; the sign of unrealized for every sign of the avg price: core/unrealized.ts);
 *   USD figures rounded to the base unit (6 dp), from integers where possible;
 *   side: outcome index 1 → NO, else YES; side_label: the catalog's outcome label, else Yes / No;
 *   status: payout price > 0 → resolved_win, payout price 0 → resolved_loss, else open.
 */

import { columnOf, expression, fields, type RowOfSelection } from '../../../core/clickhouse/table.ts';
import { unrealizedBase, unrealizedPct } from '../../../core/unrealized.ts';
import type { Position } from '../../../schemas/api/alpha-positions.ts';
import { ALPHA_MARKET_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import { ALPHA_POSITIONS, ALPHA_TOKEN_PRICES } from '../../../schemas/tables/alpha-positions.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';

/**
 * The fields of a position resource, read from `alpha_positions` (FINAL), in this order (the SELECT list
 * of the position reads; wallet-positions.ts reads them through a subquery, `p.*`). Times of the last fill
 * and update as Unix seconds, of the first change as Unix ms.
 */
export const POSITION_FIELDS = {
  wallet: columnOf(ALPHA_POSITIONS, 'wallet'),
  token_id: columnOf(ALPHA_POSITIONS, 'token_id'),
  condition_id: columnOf(ALPHA_POSITIONS, 'condition_id'),
  outcome_index: columnOf(ALPHA_POSITIONS, 'outcome_index'),
  shares: columnOf(ALPHA_POSITIONS, 'shares'),
  avg_price: columnOf(ALPHA_POSITIONS, 'avg_price'),
  realized_pnl: columnOf(ALPHA_POSITIONS, 'realized_pnl'),
  total_bought: columnOf(ALPHA_POSITIONS, 'total_bought'),
  total_bought_usd: columnOf(ALPHA_POSITIONS, 'total_bought_usd'),
  net_fees: columnOf(ALPHA_POSITIONS, 'net_fees'),
  fills: columnOf(ALPHA_POSITIONS, 'fills'),
  first_fill_at: expression<number | null>('toUnixTimestamp(first_fill_at)'),
  last_fill_at: expression<number | null>('toUnixTimestamp(last_fill_at)'),
  first_at_ms: expression<string>('toUnixTimestamp64Milli(first_at)'),
  last_block: columnOf(ALPHA_POSITIONS, 'last_block'),
  last_at: expression<number>('toUnixTimestamp(last_at)'),
};

/** The columns of a position resource as one selection. */
export const POSITION_SELECTION = fields(POSITION_FIELDS);

/** A position as read (64-bit integers arrive as decimal strings). */
export type PositionRow = RowOfSelection<typeof POSITION_SELECTION>;

/** A token's current price as `alpha_token_prices` holds it. */
export interface TokenPrice {
  /** Current price (0–1), null when no rule gives one. */
  price: number | null;
  /** 'payout' once the condition resolved on chain; '' when the token has no price row. */
  source: string;
}

/** What the catalog says about a market. */
export interface MarketInfo {
  slug: string;
  title: string;
  /** Outcome labels of the market in outcome order ([] when the catalog does not know the market). */
  labels: string[];
}

export type TokenInfo = TokenPrice & MarketInfo;

const NO_MARKET: MarketInfo = { slug: '', title: '', labels: [] };
const NO_INFO: TokenInfo = { price: null, source: '', ...NO_MARKET };

/** A market's catalog information: slug, title and outcome labels, by lowercase condition id. */
const CATALOG = fields({
  cid: expression<string>('lower(condition_id) AS cid'),
  slug: columnOf(ALPHA_MARKET_LIST, 'slug', 'any(slug) AS slug'),
  title: columnOf(ALPHA_MARKET_LIST, 'title', 'any(title) AS title'),
  labels: expression<string[]>(
    "any(arrayMap(o -> JSONExtractString(o, 'label'), JSONExtractArrayRaw(doc, 'outcomes'))) AS labels",
  ),
});

/** The catalog's market information by lowercase condition id (a bound array `info_conditions`). */
const CATALOG_SQL = `
  SELECT ${CATALOG.sql}
  FROM alpha_market_list WHERE lower(condition_id) IN {info_conditions:Array(String)}
  GROUP BY cid`;

/** A token's price row (FINAL), joined on `token_id`; `tokens` is an SQL set of the tokens concerned. */
export const pricesOf = (tokens: string) =>
  `SELECT token_id, price, source FROM alpha_token_prices FINAL WHERE token_id IN ${tokens}`;

/**
 * A token's price (none: price null, source '') and its market's catalog information (none: '' slug and
 * title, no labels), beside the token.
 */
const INFO = fields({
  token_id: expression<string>('t.token_id'),
  price: columnOf(ALPHA_TOKEN_PRICES, 'price', 'tp.price'),
  source: expression<string>('tp.source'),
  slug: expression<string>('m.slug'),
  title: expression<string>('m.title'),
  labels: expression<string[]>('m.labels'),
});

const INFO_SQL = `
  SELECT ${INFO.sql}
  FROM (
    SELECT pair.1 AS token_id, pair.2 AS condition_id
    FROM (SELECT arrayJoin(arrayZip({info_tokens:Array(String)}, {info_conditions:Array(String)})) AS pair)
  ) AS t
  LEFT JOIN (${pricesOf('{info_tokens:Array(String)}')}) AS tp ON tp.token_id = t.token_id
  LEFT JOIN (${CATALOG_SQL}) AS m ON m.cid = t.condition_id`;

/**
 * The price and catalog information of each (token, condition) pair, in one statement (none when there
 * is no pair). A token without a price row has price null; a condition the catalog does not list has
 * '' slug and title and no labels.
 */
export async function tokenInfo(
  ctx: RouteContext,
  label: string,
  pairs: readonly { tokenId: string; conditionId: string }[],
): Promise<Map<string, TokenInfo>> {
  const byToken = new Map<string, string>();
  for (const p of pairs) byToken.set(p.tokenId, p.conditionId);
  const out = new Map<string, TokenInfo>();
  if (byToken.size === 0) return out;
  const rows = (
    await ctx.deps.clickhouse.read(label, INFO_SQL, {
      info_tokens: [...byToken.keys()],
      info_conditions: [...byToken.values()],
    })
  ).map(INFO.zip);
  for (const r of rows) {
    out.set(r.token_id, { price: r.price, source: r.source, slug: r.slug, title: r.title, labels: r.labels });
  }
  return out;
}

export const infoOf = (info: Map<string, TokenInfo>, tokenId: string): TokenInfo =>
  info.get(tokenId) ?? NO_INFO;

/** The catalog's information of each condition, in one statement (none when there is none). */
export async function catalogInfo(
  ctx: RouteContext,
  label: string,
  conditionIds: Iterable<string>,
): Promise<Map<string, MarketInfo>> {
  const ids = [...new Set(conditionIds)];
  const out = new Map<string, MarketInfo>();
  if (ids.length === 0) return out;
  const rows = (await ctx.deps.clickhouse.read(label, CATALOG_SQL, { info_conditions: ids })).map(
    CATALOG.zip,
  );
  for (const r of rows) out.set(r.cid, { slug: r.slug, title: r.title, labels: r.labels });
  return out;
}

export const marketOf = (info: Map<string, MarketInfo>, conditionId: string): MarketInfo =>
  info.get(conditionId) ?? NO_MARKET;

// ---- derived numbers -------------------------------------------------------------------------------

const MICRO = 1_000_000n;

/** a ÷ b rounded to the nearest integer, halves away from zero (b > 0). */
export function roundDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (2n * (r < 0n ? -r : r) >= b) return a < 0n ? q - 1n : q + 1n;
  return q;
}

/** Base units (6 decimals) → a JSON number. */
export const units = (v: bigint | string): number => Number(v) / 1e6;

/** The numbers of one position, in base units where they are money (exact sums and comparisons). */
export interface PositionFigures {
  shares: bigint;
  avgPrice: bigint;
  realized: bigint;
  netFees: bigint;
  /** Cost basis of the shares held, base units. */
  cost: bigint;
  /** shares × price, base units. */
  value: bigint;
  /** shares × (price − avg), base units. */
  unrealized: bigint;
  /** The price served: the current price, or the avg entry price when none is known. */
  price: number;
  unrealizedPct: number;
  status: 'open' | 'resolved_win' | 'resolved_loss';
}

export function positionFigures(
  r: { shares: string; avgPrice: string; realized: string; netFees: string },
  info: TokenPrice,
): PositionFigures {
  const shares = BigInt(r.shares);
  const avgPrice = BigInt(r.avgPrice);
  const cost = roundDiv(shares * avgPrice, MICRO);
  const avg = Number(avgPrice) / 1e6;
  let price: number;
  let value: bigint;
  let unrealized: bigint;
  if (info.price === null || !Number.isFinite(info.price)) {
    price = avg;
    value = cost;
    unrealized = 0n;
  } else {
    price = info.price;
    const s = Number(shares);
    value = BigInt(Math.round(s * price));
    unrealized = BigInt(unrealizedBase(shares, avgPrice, price));
  }
  const status =
    info.source === 'payout' && info.price !== null
      ? info.price > 0
        ? 'resolved_win'
        : 'resolved_loss'
      : 'open';
  return {
    shares,
    avgPrice,
    realized: BigInt(r.realized),
    netFees: BigInt(r.netFees),
    cost,
    value,
    unrealized,
    price,
    unrealizedPct: unrealizedPct(unrealized, cost),
    status,
  };
}

/** The outcome label of `outcomeIndex`: the catalog's, else Yes (0) / No (1). */
export function outcomeLabel(info: MarketInfo, outcomeIndex: number): string {
  const label = info.labels[outcomeIndex];
  if (label !== undefined && label !== '') return label;
  return outcomeIndex === 1 ? 'No' : 'Yes';
}

/** The figures of one position row at `price`. */
export function figuresOf(r: PositionRow, price: TokenPrice): PositionFigures {
  return positionFigures(
    { shares: r.shares, avgPrice: r.avg_price, realized: r.realized_pnl, netFees: r.net_fees },
    price,
  );
}

/** One position row and its figures → the §13 Position resource. */
export function positionItem(r: PositionRow, f: PositionFigures, market: MarketInfo): Position {
  return {
    market: {
      condition_id: r.condition_id,
      market_slug: market.slug,
      title: market.title,
      side: r.outcome_index === 1 ? 'NO' : 'YES',
      side_label: outcomeLabel(market, r.outcome_index),
      token_id: r.token_id,
      status: f.status,
    },
    position: {
      shares: units(f.shares),
      total_shares_bought: units(r.total_bought),
      total_bought_usd: units(r.total_bought_usd),
      avg_entry_price: units(f.avgPrice),
      total_cost_usd: units(f.cost),
      net_fees_usd: units(f.netFees),
    },
    current: { price: f.price, value_usd: units(f.value) },
    pnl: {
      unrealized_usd: units(f.unrealized),
      unrealized_pct: f.unrealizedPct,
      realized_usd: units(f.realized),
    },
  };
}

/** The (token, condition) pairs of position rows, for tokenInfo. */
export const pairsOf = (rows: readonly PositionRow[]) =>
  rows.map((r) => ({ tokenId: r.token_id, conditionId: r.condition_id }));

// ---- parameters ------------------------------------------------------------------------------------

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** One wallet address → lowercase; anything else is a 400 naming the parameter and the value. */
export function parseWallet(raw: string, param: string): string {
  const v = raw.trim();
  if (!ADDRESS.test(v)) {
    throw new ApiError(
      400,
      `Invalid address in ${param}: "${v.slice(0, 100)}" (expected 0x followed by 40 hex characters)`,
    );
  }
  return v.toLowerCase();
}

/** min ≤ max of a pair of bounds, else a 400 naming both. */
export function checkBounds(
  minName: string,
  min: number | undefined,
  maxName: string,
  max: number | undefined,
) {
  if (min !== undefined && max !== undefined && min > max) {
    throw new ApiError(400, `${minName} (${min}) is above ${maxName} (${max})`);
  }
}
