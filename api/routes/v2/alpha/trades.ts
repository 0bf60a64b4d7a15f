/**
 * `GET /v2/alpha/trades`: fills of the alpha exchanges (table `alpha_fills`, docs/chain-ingestion.md),
 * newest first by default, cursor-paginated on (block_number, log_index).
 *
 * Access paths (each an index of alpha_fills): wallets → primary key (maker, block_number, ...);
 * token or condition → projection by_token; tx_hash, order_hash → alpha_fill_hashes then the primary key; builder → bloom filter; time →
 * partition + minmax.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Trade, TradesQuery, TradesResponse } from '../../../../schemas/api/alpha-trades.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
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
import { createTokenConditions } from './token-conditions.ts';

interface FillRow {
  block_number: string;
  log_index: number;
  tx_hash: string;
  ts: number;
  status: 'confirmed' | 'pending';
  exchange: string;
  exchange_version: number;
  neg_risk: boolean;
  order_hash: string;
  maker: string;
  taker: string;
  role: 'maker' | 'taker';
  side: 'BUY' | 'SELL';
  token_id: string;
  condition_id: string;
  outcome_index: number;
  shares: string;
  usd: string;
  fee: string;
  builder: string;
  metadata: string;
}

// price (usd ÷ shares) and fee_asset (V1 BUY: shares, else collateral) are derived here rather than read:
// each column read costs the embedded engine time on every lookup.
const COLUMNS = `block_number, log_index, tx_hash, toUnixTimestamp(block_time) AS ts, status, exchange,
  exchange_version, neg_risk, order_hash, maker, taker, role, side, token_id, condition_id, outcome_index,
  shares, usd, fee, builder, metadata`;

function toTrade(r: FillRow, slugs: Map<string, string>): Trade {
  const conditionId = r.condition_id === '' ? null : r.condition_id;
  return {
    tx_hash: r.tx_hash,
    log_index: Number(r.log_index),
    block_number: Number(r.block_number),
    timestamp: Number(r.ts),
    status: r.status,
    order_hash: r.order_hash,
    maker: r.maker,
    taker: r.taker,
    role: r.role,
    side: r.side,
    token_id: r.token_id,
    condition_id: conditionId,
    outcome_index: r.outcome_index < 0 ? null : r.outcome_index,
    market_slug: (conditionId && slugs.get(conditionId)) ?? null,
    shares: units(r.shares),
    price: Number(r.shares) > 0 ? Number(r.usd) / Number(r.shares) : 0,
    total: units(r.usd),
    fee: units(r.fee),
    fee_asset: Number(r.exchange_version) === 1 && r.side === 'BUY' ? 'shares' : 'collateral',
    exchange: r.exchange,
    exchange_version: Number(r.exchange_version),
    neg_risk: Boolean(r.neg_risk),
    builder: r.builder,
    metadata: r.metadata,
  };
}

export async function alphaTradesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const tokenConditions = createTokenConditions(ctx.deps.clickhouse);
  app.get(
    '/v2/alpha/trades',
    {
      schema: {
        summary: 'Alpha trades (fills)',
        description:
          'Every OrderFilled of the alpha exchanges (versions 1 and 2). Each row is one fill: role `maker` ' +
          "rows are one per matched maker order (count these for volume), role `taker` rows are the taker's " +
          'aggregate view. Filters combine with AND. Free and unlimited: not counted toward the monthly quota.',
        tags: ['alpha'],
        querystring: TradesQuery,
        response: { 200: TradesResponse, ...keyedErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      rejectOffset(q.offset);
      const wallets = parseWallets(q.wallet);
      const txHash = parseHash(q.tx_hash, 'tx_hash');
      const orderHash = parseHash(q.order_hash, 'order_hash');
      const conditionId = parseHash(q.condition_id, 'condition_id');
      const builder = parseHash(q.builder, 'builder');
      checkTimeRange(q.start_time, q.end_time);
      const order = q.order ?? 'desc';
      const limit = q.limit ?? DEFAULT_LIMIT;
      const digest = filtersDigest('alpha.trades', {
        wallets: wallets ?? null,
        market_slug: q.market_slug ?? null,
        condition_id: conditionId ?? null,
        token_id: q.token_id ?? null,
        start_time: q.start_time ?? null,
        end_time: q.end_time ?? null,
        min_total: q.min_total ?? null,
        order,
        tx_hash: txHash ?? null,
        order_hash: orderHash ?? null,
        builder: builder ?? null,
        role: q.role ?? null,
      });
      const cursor = q.pagination_key ? ctx.cursors.decode(q.pagination_key, digest) : undefined;

      const w = createWhere();
      if (q.market_slug !== undefined) {
        const ids = await ctx.markets.conditionIds(q.market_slug);
        if (ids.length === 0) {
          return {
            trades: [],
            pagination: { limit, count: 0, pagination_key: null, has_more: false },
          };
        }
        w.add(
          'token_id IN (SELECT token_id FROM alpha_tokens WHERE condition_id IN {slug_conditions:Array(String)})',
          {
            slug_conditions: ids,
          },
        );
      }
      if (wallets) w.add('maker IN {wallets:Array(String)}', { wallets });
      if (q.token_id !== undefined) w.add('token_id = {token_id:String}', { token_id: q.token_id });
      if (conditionId) {
        w.add('token_id IN (SELECT token_id FROM alpha_tokens WHERE condition_id = {condition_id:String})', {
          condition_id: conditionId,
        });
      }
      // Hash lookups go through alpha_fill_hashes to alpha_fills' primary key (maker, block_number).
      if (txHash) {
        w.add(
          "(maker, block_number) IN (SELECT maker, block_number FROM alpha_fill_hashes WHERE hash = {tx_hash:String} AND kind = 'tx') AND tx_hash = {tx_hash:String}",
          { tx_hash: txHash },
        );
      }
      if (orderHash) {
        w.add(
          "(maker, block_number) IN (SELECT maker, block_number FROM alpha_fill_hashes WHERE hash = {order_hash:String} AND kind = 'order') AND order_hash = {order_hash:String}",
          { order_hash: orderHash },
        );
      }
      if (builder) w.add('builder = {builder:String}', { builder });
      if (q.role) w.add('role = {role:String}', { role: q.role });
      addTimeRange(w, q.start_time, q.end_time);
      if (q.min_total !== undefined && q.min_total > 0) {
        w.add('usd >= {min_usd:UInt64}', { min_usd: Math.round(q.min_total * 1e6) });
      }
      const page = await chainEventPage<FillRow>(ctx, {
        label: 'api.alpha.trades',
        table: 'alpha_fills',
        columns: COLUMNS,
        where: w,
        cursor,
        order,
        limit,
        digest,
      });
      const unknown = page.items.filter((r) => r.condition_id === '');
      if (unknown.length > 0) {
        const found = await tokenConditions.lookup(unknown.map((r) => r.token_id));
        for (const r of unknown) {
          const f = found.get(r.token_id);
          if (!f) continue;
          r.condition_id = f.conditionId;
          if (r.outcome_index < 0) r.outcome_index = f.outcomeIndex;
        }
      }
      const slugs = await slugsOf(
        ctx,
        page.items.map((r) => r.condition_id),
      );
      return { trades: page.items.map((r) => toTrade(r, slugs)), pagination: page.pagination };
    },
  );
}
