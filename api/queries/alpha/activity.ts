/**
 * `GET /v2/alpha/activity`: SPLIT, MERGE, REDEEM and CONVERT by the acting user (table `alpha_activity`,
 * docs/chain-ingestion.md), newest first by default, keyset on (block_number, log_index). CONVERT rows
 * carry neg_risk_market_id and index_set, and null condition_id / market_id.
 */
import { type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import { ACTIVITY_TYPES, type Activity } from '../../../schemas/api/alpha-activity.ts';
import { ALPHA_ACTIVITY } from '../../../schemas/tables/alpha-chain.ts';
import { ValidationFailure } from '../../errors.ts';
import type { MarketSlugResolver } from '../../markets.ts';
import type { ListSpec } from '../../read/list.ts';
import { bytes32, type Filter, marketSlug, walletList } from '../filters.ts';
import { afterPosition, blockTimeRange, CHAIN_EVENT_HEAD, CHAIN_KEYSET, pageSlugs, units } from './chain.ts';

/** The columns the response needs. */
export const ACTIVITY_SELECTION = select(ALPHA_ACTIVITY, [
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
]);

/** One row as read: named fields, typed from the alpha_activity description. */
export type ActivityRow = RowOfSelection<typeof ACTIVITY_SELECTION>;

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

/** What an activity row needs besides itself: market slugs. */
export interface ActivityLookups {
  slugs: Map<string, string>;
}

/** An activity row → the item of `GET /v2/alpha/activity` (and of the stream's activity channel). */
export function toActivity(r: ActivityRow, { slugs }: ActivityLookups): Activity {
  const convert = r.type === 'CONVERT';
  const conditionId = convert ? null : r.condition_id;
  return {
    type: r.type,
    wallet: r.wallet,
    tx_hash: r.tx_hash,
    log_index: Number(r.log_index),
    block_number: Number(r.block_number),
    timestamp: Number(r.timestamp),
    status: r.status,
    condition_id: conditionId,
    market_id: convert ? null : r.market_id,
    market_slug: (conditionId && slugs.get(conditionId)) ?? null,
    neg_risk_market_id: convert ? r.neg_risk_market_id : null,
    index_set: convert ? r.index_set : null,
    amount: units(r.amount),
    payout: units(r.payout),
    partition: r.partition,
    version: Number(r.version),
    neg_risk: Boolean(r.neg_risk),
  };
}

/** The lookups of a page (or of one streamed row): one slug call. */
export async function activityLookups(
  rows: readonly ActivityRow[],
  markets: MarketSlugResolver,
): Promise<ActivityLookups> {
  return {
    slugs: await pageSlugs(
      markets,
      rows.map((r) => r.condition_id),
    ),
  };
}

export const alphaActivity: ListSpec<ActivityRow, Activity, 'activity', undefined, ActivityLookups> = {
  name: 'alpha.activity',
  table: 'alpha_activity',
  select: ACTIVITY_SELECTION,
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
  lookups: (rows, _env, ctx) => activityLookups(rows, ctx.markets),
  toItem: toActivity,
};
