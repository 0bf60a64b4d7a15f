/**
 * Open interest of venue alpha's conditions by the oi-subgraph's rules (reference alpha-chain.md §7.2;
 * docs/analytics.md "Open interest"), from `alpha_ctf_supply`:
 * - ConditionalTokens split +amount, merge −amount, redemption −payout, counted only when the collateral
 *   is USDC.e and the condition was prepared with 2 outcomes (neg-risk positions, collateralized by
 *   WCOL, count through the adapter instead); exchange mints and merges included (no stakeholder filter);
 * - NegRiskAdapter split +amount, merge −amount, redemption −payout on the event's condition;
 * - a conversion of noCount ≥ 2 NO positions lowers each converted NO condition by
 *   trunc(−(noCount−1)·x/noCount) for x = fee and x = amount − fee, fee = amount·feeBips/10000
 *   (feeBips from the market's MarketPrepared, questions → conditions through `alpha_lifecycle`); a
 *   conversion of one NO position changes nothing.
 */
import type { ClickHouse, QueryParams } from '../../core/clickhouse/index.ts';
import { ALPHA_OI_DELTAS_1H } from '../../schemas/tables/alpha-analytics.ts';
import {
  bucketsOf,
  computedColumns,
  HOUR,
  keyFilter,
  replaceScope,
  type Scope,
  timeWindow,
} from '../market-data/scope.ts';

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

/** Conditions whose open interest changed in blocks (after, upTo]. */
export async function oiConditionsIn(
  ch: ClickHouse,
  chainId: number,
  usdcE: string,
  blocks: { after: number; upTo: number },
): Promise<string[]> {
  const rows = await ch.query<{ condition_id: string }>(
    'analytics.oi.touched',
    `SELECT DISTINCT condition_id FROM (${oiEventsSql('block_number > {after:UInt64} AND block_number <= {up_to:UInt64}')})`,
    { ...oiParams(chainId, usdcE), after: blocks.after, up_to: blocks.upTo },
  );
  return rows.map((r) => r.condition_id);
}

/** Recomputes `alpha_oi_deltas_1h` over the scope's hours. */
export async function recomputeOpenInterest(ch: ClickHouse, scope: Scope, usdcE: string): Promise<void> {
  const hours = bucketsOf(scope, HOUR);
  const events = timeWindow('block_time', hours, 'events');
  const keys = keyFilter('condition_id', scope.oiConditions, 'oi_conditions');
  const cover = timeWindow('bucket', hours, 'cover');
  await replaceScope(ch, scope.version, {
    additive: scope.additive,
    label: 'analytics.oi.deltas_1h',
    table: 'alpha_oi_deltas_1h',
    key: ['condition_id', 'bucket'],
    columns: computedColumns(ALPHA_OI_DELTAS_1H),
    select: `SELECT condition_id, toStartOfHour(block_time) AS bucket, sum(delta) AS delta, count() AS events
      FROM (${oiEventsSql(`${events.sql} AND block_number <= {max_block:UInt64}`)})
      WHERE ${keys.sql}
      GROUP BY condition_id, bucket`,
    covers: `${cover.sql} AND ${keys.sql}`,
    params: {
      ...oiParams(scope.chainId, usdcE),
      ...events.params,
      ...keys.params,
      ...cover.params,
      max_block: scope.maxBlock,
    },
  });
}
