/**
 * `GET /v2/alpha/activity`: SPLIT, MERGE, REDEEM and CONVERT by the acting user (table
 * `alpha_activity`, docs/chain-ingestion.md), newest first by default, cursor-paginated on
 * (block_number, log_index). CONVERT rows carry neg_risk_market_id and index_set, and null
 * condition_id / market_id.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  ACTIVITY_TYPES,
  type Activity,
  ActivityQuery,
  ActivityResponse,
} from '../../../../schemas/api/alpha-activity.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { ValidationFailure } from '../../../errors.ts';
import { filtersDigest, rejectOffset } from '../../../pagination.ts';
import type { RouteContext } from '../../index.ts';

/** Page size when `limit` is absent (SPEC: cursor lists 1 to 200, default 50). */
const DEFAULT_LIMIT = 50;

import {
  addTimeRange,
  chainEventPage,
  checkTimeRange,
  createWhere,
  parseHash,
  parseWallets,
  slugsOf,
  units,
} from './filters.ts';

interface ActivityRow {
  block_number: string;
  log_index: number;
  tx_hash: string;
  ts: number;
  status: 'confirmed' | 'pending';
  type: Activity['type'];
  version: number;
  neg_risk: boolean;
  wallet: string;
  condition_id: string | null;
  market_id: string | null;
  neg_risk_market_id: string | null;
  index_set: string | null;
  partition: string[];
  amount: string;
  payout: string;
}

const COLUMNS = `block_number, log_index, tx_hash, toUnixTimestamp(block_time) AS ts, status, type, version,
  neg_risk, wallet, condition_id, market_id, neg_risk_market_id, index_set, partition, amount, payout`;

function parseTypes(raw: string | undefined): Activity['type'][] | undefined {
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
}

function toActivity(r: ActivityRow, slugs: Map<string, string>): Activity {
  const convert = r.type === 'CONVERT';
  const conditionId = convert ? null : r.condition_id;
  return {
    type: r.type,
    wallet: r.wallet,
    tx_hash: r.tx_hash,
    log_index: Number(r.log_index),
    block_number: Number(r.block_number),
    timestamp: Number(r.ts),
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

export async function alphaActivityRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v2/alpha/activity',
    {
      schema: {
        summary: 'Alpha wallet activity (SPLIT, MERGE, REDEEM, CONVERT)',
        description:
          'Position actions on the conditional-token contracts, attributed to the user who acted. CONVERT ' +
          'rows (neg-risk conversions) carry neg_risk_market_id and index_set and have null condition_id ' +
          'and market_id. Free and unlimited: not counted toward the monthly quota.',
        tags: ['alpha'],
        querystring: ActivityQuery,
        response: { 200: ActivityResponse, ...keyedErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      rejectOffset(q.offset);
      const wallets = parseWallets(q.wallet);
      const types = parseTypes(q.type);
      const txHash = parseHash(q.tx_hash, 'tx_hash');
      const conditionId = parseHash(q.condition_id, 'condition_id');
      const negRiskMarketId = parseHash(q.neg_risk_market_id, 'neg_risk_market_id');
      checkTimeRange(q.start_time, q.end_time);
      const order = q.order ?? 'desc';
      const limit = q.limit ?? DEFAULT_LIMIT;
      const digest = filtersDigest('alpha.activity', {
        wallets: wallets ?? null,
        types: types ?? null,
        market_slug: q.market_slug ?? null,
        condition_id: conditionId ?? null,
        neg_risk_market_id: negRiskMarketId ?? null,
        tx_hash: txHash ?? null,
        start_time: q.start_time ?? null,
        end_time: q.end_time ?? null,
        order,
      });
      const cursor = q.pagination_key ? ctx.cursors.decode(q.pagination_key, digest) : undefined;

      const w = createWhere();
      if (q.market_slug !== undefined) {
        const ids = await ctx.markets.conditionIds(q.market_slug);
        if (ids.length === 0) {
          return {
            activity: [],
            pagination: { limit, count: 0, pagination_key: null, has_more: false },
          };
        }
        w.add('condition_id IN {slug_conditions:Array(String)}', { slug_conditions: ids });
      }
      if (wallets) w.add('wallet IN {wallets:Array(String)}', { wallets });
      if (types) w.add('type IN {types:Array(String)}', { types });
      if (conditionId) w.add('condition_id = {condition_id:String}', { condition_id: conditionId });
      if (negRiskMarketId) {
        w.add('neg_risk_market_id = {neg_risk_market_id:String}', { neg_risk_market_id: negRiskMarketId });
      }
      if (txHash) w.add('tx_hash = {tx_hash:String}', { tx_hash: txHash });
      addTimeRange(w, q.start_time, q.end_time);
      const page = await chainEventPage<ActivityRow>(ctx, {
        label: 'api.alpha.activity',
        table: 'alpha_activity',
        columns: COLUMNS,
        where: w,
        cursor,
        order,
        limit,
        digest,
      });
      const slugs = await slugsOf(
        ctx,
        page.items.map((r) => r.condition_id),
      );
      return { activity: page.items.map((r) => toActivity(r, slugs)), pagination: page.pagination };
    },
  );
}
