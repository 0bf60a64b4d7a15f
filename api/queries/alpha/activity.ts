/**
 * `GET /v2/alpha/activity`: SPLIT, MERGE, REDEEM and CONVERT by the acting user (table `alpha_activity`,
 * docs/chain-ingestion.md), newest first by default, keyset on (block_number, log_index). CONVERT rows
 * carry neg_risk_market_id and index_set, and null condition_id / market_id.
 */
import { type ReadRow, selectList } from '../../../core/clickhouse/table.ts';
import { ACTIVITY_TYPES, type Activity } from '../../../schemas/api/alpha-activity.ts';
import { ALPHA_ACTIVITY } from '../../../schemas/tables/alpha-chain.ts';
import { ValidationFailure } from '../../errors.ts';
import { bytes32, type Filter, marketSlug, walletList } from '../filters.ts';
import type { ListSpec } from '../list.ts';
import { afterPosition, blockTimeRange, CHAIN_EVENT_HEAD, CHAIN_KEYSET, pageSlugs, units } from './chain.ts';

/** The columns the response needs, in this order. */
const SELECTED = [
  ...CHAIN_EVENT_HEAD,
  'type',
  'version',
  'neg_risk',
  'wallet',
  'condition_id',
  'market_id',
  'neg_risk_market_id',
  'index_set',
  'partition',
  'amount',
  'payout',
] as const;

/** One row as read: the selection's values, typed from the alpha_activity description. */
type ActivityRow = ReadRow<typeof ALPHA_ACTIVITY, typeof SELECTED>;

/** `type`: a comma list of ACTIVITY_TYPES (any case, duplicates ignored); anything else is a 422. */
const types: Filter<Activity['type'][]> = {
  name: 'types',
  parse(q) {
    const raw = q.type as string | undefined;
    if (raw === undefined) return undefined;
    const items = [
      ...new Set(
        raw
          .split(',')
          .map((s) => s.trim().toUpperCase())
          .filter((s) => s !== ''),
      ),
    ].sort();
    const bad = items.filter((t) => !(ACTIVITY_TYPES as readonly string[]).includes(t));
    if (items.length === 0 || bad.length > 0) {
      throw new ValidationFailure([
        {
          loc: ['query', 'type'],
          msg: `Input should be a comma-separated list of ${ACTIVITY_TYPES.map((t) => `'${t}'`).join(', ')}`,
          type: 'enum',
        },
      ]);
    }
    return items as Activity['type'][];
  },
  where: (v) => ({ sql: 'type IN {types:Array(String)}', params: { types: v } }),
};

/** Position of condition_id in ActivityRow. */
const CONDITION_ID = 9;

function toActivity(r: ActivityRow, slugs: Map<string, string>): Activity {
  const [
    blockNumber,
    logIndex,
    txHash,
    ts,
    status,
    type,
    version,
    negRisk,
    wallet,
    conditionIdRaw,
    marketId,
    negRiskMarketId,
    indexSet,
    partition,
    amount,
    payout,
  ] = r;
  const convert = type === 'CONVERT';
  const conditionId = convert ? null : conditionIdRaw;
  return {
    type,
    wallet,
    tx_hash: txHash,
    log_index: Number(logIndex),
    block_number: Number(blockNumber),
    timestamp: Number(ts),
    status,
    condition_id: conditionId,
    market_id: convert ? null : marketId,
    market_slug: (conditionId && slugs.get(conditionId)) ?? null,
    neg_risk_market_id: convert ? negRiskMarketId : null,
    index_set: convert ? indexSet : null,
    amount: units(amount),
    payout: units(payout),
    partition,
    version: Number(version),
    neg_risk: Boolean(negRisk),
  };
}

export const alphaActivity: ListSpec<ActivityRow, Activity, 'activity'> = {
  name: 'alpha.activity',
  table: 'alpha_activity',
  columns: selectList(ALPHA_ACTIVITY, SELECTED),
  keyset: CHAIN_KEYSET,
  defaultLimit: 50,
  field: 'activity',
  // Parse order = which 400/422 answers first when several rules are broken.
  filters: [
    walletList({ column: 'wallet' }),
    types,
    bytes32({ param: 'tx_hash' }),
    bytes32({ param: 'condition_id' }),
    bytes32({ param: 'neg_risk_market_id' }),
    ...blockTimeRange(),
    marketSlug((ids) => ({
      sql: 'condition_id IN {slug_conditions:Array(String)}',
      params: { slug_conditions: ids },
    })),
    afterPosition,
  ],
  async toItems(rows, _env, ctx) {
    const slugs = await pageSlugs(
      ctx.markets,
      rows.map((r) => r[CONDITION_ID]),
    );
    return rows.map((r) => toActivity(r, slugs));
  },
};
