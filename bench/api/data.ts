/**
 * The API benchmark's dataset, generated straight into the embedded engine with INSERT ... SELECT FROM
 * numbers() (no chain, no decoding): fills into alpha_fills (alpha_fill_hashes follows through its
 * materialized view) and position actions into alpha_activity, over the same wallets and blocks. Then the
 * lookup keys, drawn from the data weighted like the traffic (by row, so active wallets and tokens come up
 * as often as they trade), each distinct.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';

export const WALLETS = 50_000;
export const TOKENS = 20_000;

/** Wallet number → address, shared by fills and activity so the same wallets appear in both. */
const wallet = (n: string) =>
  `concat('0x', lower(hex(substring(SHA256(concat('w', toString(${n}))), 1, 20))))`;
/** Power-law wallet number: floor(W · u³) for uniform u (a few very active wallets and a long tail). */
const skewedWallet = (seedExpr: string) =>
  `toUInt32(${WALLETS} * pow(cityHash64(${seedExpr}) / 18446744073709551615, 3))`;
/** Token number → token id (a decimal string, as uint256 ids are stored). */
const tokenId = (t: string) => `concat(toString(cityHash64('t', toUInt32(${t}))), '00000000000000000000')`;
/** Token number → its condition: tokens 2k and 2k + 1 are the two outcomes of condition k. */
const conditionOf = (t: string) => `concat('0x', lower(hex(SHA256(concat('c', toString(intDiv(${t}, 2)))))))`;

/**
 * A generating INSERT runs to the end however long a busy machine makes it: a timeout would leave the
 * blocks written so far, and the wrapper's retry would write them again.
 */
const ONE_STATEMENT = 'SETTINGS max_execution_time = 0';
/** Blocks the fills span: about 4 fills per 10 blocks. */
const blockSpan = (fills: number) => Math.ceil(fills / 4) * 10;

/**
 * One SELECT producing `n` fills. Wallet w = floor(W · u³) and token t = floor(T · u²) for uniform u
 * give a few very active wallets and markets and a long tail; each fill carries its token's condition
 * and outcome (as the writer stores them once the token is known). About 4 fills per 10 blocks over ~58 days
 * of 2-second blocks (at 1M fills); three fills per transaction; a quarter are taker aggregates; the
 * later 40% are exchange version 2, half of those with a builder code.
 */
export function generateSql(n: number): string {
  return `
INSERT INTO alpha_fills
SELECT
  137 AS chain_id,
  50000000 + intDiv(number, 4) * 10 AS block_number,
  concat('0x', lower(hex(SHA256(concat('b', toString(block_number)))))) AS block_hash,
  toDateTime64(1767225600 + (block_number - 50000000) * 2, 3, 'UTC') AS block_time,
  concat('0x', lower(hex(SHA256(concat('tx', toString(intDiv(number, 3))))))) AS tx_hash,
  toUInt32(number % 4) AS log_index,
  if(version = 2, '0xe111180000d2663c0091e4f400237545b87b996b', '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e') AS exchange,
  toUInt8(if(number >= ${Math.floor(n * 0.6)}, 2, 1)) AS version,
  false AS neg_risk,
  concat('0x', lower(hex(SHA256(concat('o', toString(number)))))) AS order_hash,
  ${wallet(skewedWallet('number, 1'))} AS maker,
  if(is_taker, exchange, ${wallet(`cityHash64(number, 2) % ${WALLETS}`)}) AS taker,
  if(is_taker, 'taker', 'maker') AS role,
  if(cityHash64(number, 3) % 2 = 0, 'BUY', 'SELL') AS side,
  ${tokenId('t')} AS token_id,
  ${conditionOf('t')} AS condition_id,
  toInt8(t % 2) AS outcome_index,
  if(side = 'BUY', usd, shares) AS maker_amount,
  if(side = 'BUY', shares, usd) AS taker_amount,
  toUInt64(1000000 + cityHash64(number, 5) % 500000000) AS shares,
  toUInt64(shares * (0.01 + (cityHash64(number, 6) % 98) / 100)) AS usd,
  usd / shares AS price,
  toUInt64(0) AS fee,
  if(version = 2 OR side = 'SELL', 'collateral', 'shares') AS fee_asset,
  if(version = 2 AND cityHash64(number, 7) % 2 = 0, concat('0x', lower(hex(SHA256(concat('builder', toString(cityHash64(number, 8) % 20)))))), '') AS builder,
  if(builder != '', concat('0x', lower(hex(SHA256(concat('m', toString(number)))))), '') AS metadata,
  'confirmed' AS status
FROM (
  SELECT number, cityHash64(number, 9) % 4 = 0 AS is_taker,
    toUInt32(${TOKENS} * pow(cityHash64(number, 4) / 18446744073709551615, 2)) AS t
  FROM numbers(${n}))
${ONE_STATEMENT}`;
}

/**
 * Every token's row in alpha_tokens (token → condition, outcome, complement), as the chain's
 * ConditionPreparation events teach them: the API's token map knows every token of the fills, so pages
 * are mapped (and cacheable) as with ingested data.
 */
export function generateTokensSql(): string {
  return `
INSERT INTO alpha_tokens
SELECT
  137 AS chain_id,
  ${tokenId('number')} AS token_id,
  ${conditionOf('number')} AS condition_id,
  toInt8(number % 2) AS outcome_index,
  ${tokenId('bitXor(number, 1)')} AS complement_token_id,
  false AS neg_risk,
  'condition_prepared' AS source,
  49999000 + intDiv(number, 2) AS block_number,
  concat('0x', lower(hex(SHA256(concat('ctx', toString(intDiv(number, 2))))))) AS tx_hash,
  toUInt32(number % 2) AS log_index
FROM numbers(${TOKENS})
${ONE_STATEMENT}`;
}

/**
 * One SELECT producing `m` activity rows over the blocks of `fills` fills, by the same power-law wallets
 * as the fills' makers: 40% SPLIT, 25% MERGE, 25% REDEEM, 10% CONVERT (neg-risk conversions: no
 * condition or market, a neg-risk market id and an index set). Binary partitions; REDEEM pays out.
 */
export function generateActivitySql(m: number, fills: number): string {
  return `
INSERT INTO alpha_activity
SELECT
  137 AS chain_id,
  50000000 + intDiv(number * ${blockSpan(fills)}, ${Math.max(1, m)}) AS block_number,
  concat('0x', lower(hex(SHA256(concat('b', toString(block_number)))))) AS block_hash,
  toDateTime64(1767225600 + (block_number - 50000000) * 2, 3, 'UTC') AS block_time,
  concat('0x', lower(hex(SHA256(concat('atx', toString(number)))))) AS tx_hash,
  toUInt32(100 + number % 4) AS log_index,
  multiIf(r < 40, 'SPLIT', r < 65, 'MERGE', r < 90, 'REDEEM', 'CONVERT') AS type,
  toUInt8(if(number >= ${Math.floor(m * 0.6)}, 2, 1)) AS version,
  type = 'CONVERT' OR cityHash64(number, 12) % 3 = 0 AS neg_risk,
  ${wallet(skewedWallet('number, 11'))} AS wallet,
  wallet AS stakeholder,
  '0x4d97dcd97ec945f40cf65f87097ace5ea0476045' AS contract,
  if(type = 'CONVERT', NULL, ${conditionOf(`cityHash64(number, 13) % ${TOKENS}`)}) AS condition_id,
  if(type = 'CONVERT', NULL, toString(cityHash64(number, 13) % ${TOKENS / 2})) AS market_id,
  if(type = 'CONVERT', concat('0x', lower(hex(SHA256(concat('nr', toString(cityHash64(number, 14) % 500)))))), NULL) AS neg_risk_market_id,
  if(type = 'CONVERT', toString(1 + cityHash64(number, 15) % 254), NULL) AS index_set,
  '0x2791bca1f2de4661ed88a30c99a7a9449aa84174' AS collateral_token,
  ['1', '2'] AS partition,
  [amount, amount] AS amounts,
  toUInt64(1000000 + cityHash64(number, 16) % 200000000) AS amount,
  if(type = 'REDEEM', intDiv(amount, 1 + cityHash64(number, 17) % 2), 0) AS payout,
  'confirmed' AS status
FROM (SELECT number, cityHash64(number, 10) % 100 AS r FROM numbers(${m}))
${ONE_STATEMENT}`;
}

/** Distinct lookup keys of each kind, heaviest-first in traffic order (row-weighted sample). */
export interface KeyPools {
  wallet: string[];
  token: string[];
  txHash: string[];
  activityWallet: string[];
}
export type KeyKind = keyof KeyPools;

/**
 * Up to `n` distinct values of `column`, drawn by row from a hash-ordered sample of `n × 20` rows: a
 * value comes up about as often as it has rows, and each appears once, ordered by its first draw.
 */
async function distinctByRow(
  clickhouse: ClickHouse,
  table: 'alpha_fills' | 'alpha_activity',
  column: 'maker' | 'token_id' | 'tx_hash' | 'wallet',
  n: number,
): Promise<string[]> {
  const rows = await clickhouse.query<{ k: string }>(
    `bench.keys.${table}.${column}`,
    `SELECT k FROM (
       SELECT ${column} AS k, cityHash64(tx_hash, log_index) AS h FROM ${table} ORDER BY h LIMIT {rows:UInt32}
     ) GROUP BY k ORDER BY min(h) LIMIT {n:UInt32}`,
    { rows: n * 20, n },
  );
  return rows.map((r) => r.k);
}

export async function sampleKeys(
  clickhouse: ClickHouse,
  perKind: Record<KeyKind, number>,
): Promise<KeyPools> {
  return {
    wallet: await distinctByRow(clickhouse, 'alpha_fills', 'maker', perKind.wallet),
    token: await distinctByRow(clickhouse, 'alpha_fills', 'token_id', perKind.token),
    txHash: await distinctByRow(clickhouse, 'alpha_fills', 'tx_hash', perKind.txHash),
    activityWallet: await distinctByRow(clickhouse, 'alpha_activity', 'wallet', perKind.activityWallet),
  };
}
