/**
 * The supply events that count toward venue alpha's open interest (the oi-subgraph's rules: see
 * analytics/market-data/open-interest.ts), as SQL: read by the market data (open interest) and the rolling
 * metrics (their open-interest window).
 */
import type { QueryParams } from '../../core/clickhouse/index.ts';

/**
 * Every counted supply event as (condition_id, block_number, block_time, delta) in base units, for the
 * supply rows matching `where` (a condition on alpha_ctf_supply's columns; `chain` and `usdc_e` params).
 */
export function oiEventsSql(where: string): string {
  return `
    SELECT assumeNotNull(condition_id) AS condition_id, block_number, block_time,
      multiIf(kind = 'split', toInt64(amount), kind = 'merge', -toInt64(amount), -toInt64(payout)) AS delta
    FROM alpha_ctf_supply
    WHERE chain_id = {chain:UInt32} AND kind != 'convert' AND (${where})
      AND (collateral_token = ''
        OR (collateral_token = {usdc_e:String} AND condition_id IN (
          SELECT condition_id FROM alpha_lifecycle
          WHERE chain_id = {chain:UInt32} AND kind = 'condition_prepared' AND outcome_slot_count = 2)))
    UNION ALL
    SELECT q.condition_id AS condition_id, c.block_number AS block_number, c.block_time AS block_time,
      c.delta AS delta
    FROM (
      SELECT block_number, block_time, market_id, question_index,
        -toInt64(intDiv((n - 1) * fee, n)) - toInt64(intDiv((n - 1) * (total - fee), n)) AS delta
      FROM (
        SELECT s.block_number AS block_number, s.block_time AS block_time,
          assumeNotNull(s.neg_risk_market_id) AS market_id,
          -- OrZero: the engine may evaluate this on rows of other kinds (no index set) before the
          -- kind filter drops them (seen while reading parts: "Cannot parse UInt256 from String").
          reverse(bin(toUInt256OrZero(assumeNotNull(s.index_set)))) AS bits,
          arrayFilter(i -> substring(bits, i + 1, 1) = '1', range(length(bits))) AS questions,
          toUInt128(length(questions)) AS n, toUInt128(s.amount) AS total,
          intDiv(total * toUInt128(k.fee_bips), 10000) AS fee
        FROM alpha_ctf_supply AS s
        LEFT JOIN (SELECT market_id, any(fee_bips) AS fee_bips FROM alpha_neg_risk_markets
                   WHERE chain_id = {chain:UInt32} GROUP BY market_id) AS k
          ON k.market_id = assumeNotNull(s.neg_risk_market_id)
        WHERE s.chain_id = {chain:UInt32} AND s.kind = 'convert' AND (${where})
      )
      ARRAY JOIN questions AS question_index
      WHERE n >= 2
    ) AS c
    INNER JOIN (SELECT question_id, any(condition_id) AS condition_id FROM alpha_lifecycle
                WHERE chain_id = {chain:UInt32} AND kind = 'condition_prepared' GROUP BY question_id) AS q
      ON q.question_id = concat(substring(c.market_id, 1, 64), lower(hex(toUInt8(c.question_index))))`;
}

export function oiParams(chainId: number, usdcE: string): QueryParams {
  return { chain: chainId, usdc_e: usdcE.toLowerCase() };
}
