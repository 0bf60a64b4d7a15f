/**
 * `GET /v2/alpha/market-price/{token_id}` (interface-shapes §7): the token's price from the last 5
 * maker fills of its market (the token and its complement, alpha_tokens.complement_token_id) at or
 * before `at_time` (default now). A fill of the complement at p counts as 1 − p. When the 5 prices lie
 * within 0.10 of each other (max − min ≤ 0.10, exactly): their mean weighted by USD; otherwise the last
 * price.
 *
 * Reads alpha_fills through its by_token projection (token_id, block_number, log_index): one newest-first
 * read per token, each stopping after 5 rows, merged here.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { columnOf, fields, type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import { alphaNowSeconds } from '../../../core/now.ts';
import type { MarketPriceQuery, MarketPriceResponse } from '../../../schemas/api/alpha-market-data.ts';
import { ALPHA_FILLS, ALPHA_TOKENS } from '../../../schemas/tables/alpha-chain.ts';
import { ApiError } from '../../errors.ts';
import { clampSeconds, roundPrice } from './market-data.ts';

/** Fills the price looks at. */
export const PRICE_FILLS = 5;
/** The widest spread (max − min) of those fills' prices that still gives their weighted mean: 1/10. */
const SPREAD_INVERSE = 10n;

/**
 * A fill as read: token, position (block, log index: the merge of the token's and its complement's
 * newest fills, `SELECT *` of these columns, orders by it), usd and shares (base units).
 */
const PRICE_FILL = select(ALPHA_FILLS, ['token_id', 'block_number', 'log_index', 'usd', 'shares']);

type PriceFillRow = RowOfSelection<typeof PRICE_FILL>;

/** The token's complement ('' when its rows name none); no row when alpha_tokens has no row of the token. */
const COMPLEMENT = fields({
  complement: columnOf(ALPHA_TOKENS, 'complement_token_id', 'max(complement_token_id)'),
});

const newestFills = (param: string) =>
  `SELECT ${PRICE_FILL.sql} FROM alpha_fills
   WHERE token_id = {${param}:String} AND role = 'maker' AND shares > 0
     AND block_time < fromUnixTimestamp64Milli({until_ms:Int64}, 'UTC')
   ORDER BY block_number DESC, log_index DESC LIMIT ${PRICE_FILLS}`;

/** A fill's price in the token's terms as the exact fraction num / den (den > 0), and its USD. */
export interface PricedFill {
  num: bigint;
  den: bigint;
  usd: number;
}

/**
 * The price from fills newest first. The spread is compared exactly, on the fractions
 * (a/b − c/d ≤ 1/10 ⟺ 10·(a·d − c·b) ≤ b·d): in floats 0.8 − 0.7 is 0.10000000000000009.
 */
export function priceOf(fills: readonly PricedFill[]): number {
  const within = fills.every((x) =>
    fills.every((y) => SPREAD_INVERSE * (x.num * y.den - y.num * x.den) <= x.den * y.den),
  );
  const value = (f: PricedFill) => Number(f.num) / Number(f.den);
  const usd = fills.reduce((s, f) => s + f.usd, 0);
  if (within && usd > 0) return fills.reduce((s, f) => s + value(f) * f.usd, 0) / usd;
  return value(fills[0]!);
}

/** A fill in `tokenId`'s terms: a complement fill's price p counts as 1 − p ((shares − usd) / shares). */
export function toPricedFill(r: PriceFillRow, tokenId: string): PricedFill {
  const usd = BigInt(r.usd);
  const shares = BigInt(r.shares);
  return { num: r.token_id === tokenId ? usd : shares - usd, den: shares, usd: Number(r.usd) };
}

export async function alphaMarketPrice(
  ch: ClickHouse,
  tokenId: string,
  q: MarketPriceQuery,
): Promise<MarketPriceResponse> {
  const atTime = q.at_time ?? (await alphaNowSeconds(ch));
  const [token] = (
    await ch.read(
      'api.alpha.market_price.token',
      `SELECT ${COMPLEMENT.sql} FROM alpha_tokens WHERE token_id = {token:String} HAVING count() > 0`,
      { token: tokenId },
    )
  ).map(COMPLEMENT.zip);
  if (!token) throw new ApiError(404, `Unknown token_id ${tokenId}: not seen on chain`);
  const { complement } = token;
  // Fills up to the end of the at_time second (block times carry milliseconds).
  const params = { token: tokenId, complement, until_ms: (clampSeconds(atTime) + 1) * 1000 };
  const sql =
    complement === '' || complement === tokenId
      ? newestFills('token')
      : `SELECT * FROM (
           SELECT * FROM (${newestFills('token')}) UNION ALL SELECT * FROM (${newestFills('complement')})
         ) ORDER BY block_number DESC, log_index DESC LIMIT ${PRICE_FILLS}`;
  const rows = await ch.read('api.alpha.market_price.fills', sql, params);
  if (rows.length === 0) {
    throw new ApiError(404, `No trade of token_id ${tokenId} or its complement at or before ${atTime}`);
  }
  const fills = rows.map((v) => toPricedFill(PRICE_FILL.zip(v), tokenId));
  return { price: roundPrice(priceOf(fills)), at_time: atTime };
}
