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
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { ALPHA_OI_DELTAS_1H } from '../../schemas/tables/alpha-analytics.ts';
import { oiEventsSql, oiParams } from '../shared/open-interest-events.ts';
import {
  bucketsOf,
  computedColumns,
  HOUR,
  keyFilter,
  replaceScope,
  type Scope,
  timeWindow,
} from '../shared/scope.ts';

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
