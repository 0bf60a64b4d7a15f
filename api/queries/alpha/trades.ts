/**
 * `GET /v2/alpha/trades`: one row per OrderFilled (table `alpha_fills`, docs/chain-ingestion.md), newest
 * first by default, keyset on (block_number, log_index).
 *
 * Access paths (each an index of alpha_fills): wallets → primary key (maker, block_number, ...); token
 * or condition → projection by_token; tx_hash, order_hash → alpha_fill_hashes then the primary key;
 * builder → bloom filter; time → partition + minmax.
 */
import { type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { Trade } from '../../../schemas/api/alpha-trades.ts';
import { ALPHA_FILLS } from '../../../schemas/tables/alpha-chain.ts';
import type { MarketSlugResolver } from '../../markets.ts';
import type { ListSpec, PageMapping } from '../../read/list.ts';
import { bytes32, equals, type Filter, marketSlug, walletList } from '../filters.ts';
import { afterPosition, blockTimeRange, CHAIN_EVENT_HEAD, CHAIN_KEYSET, pageSlugs, units } from './chain.ts';
import { roundPrice } from './market-data.ts';
import { type TokenCondition, type TokenConditions, tokenConditionsOf } from './tokens.ts';

/**
 * The columns the response needs. price (usd ÷ shares) and fee_asset (V1 BUY: shares, else collateral)
 * are derived rather than read: each column read costs the engine time on every lookup.
 */
export const FILL_SELECTION = select(ALPHA_FILLS, [
  ...CHAIN_EVENT_HEAD,
  'exchange',
  'exchange_version',
  'neg_risk',
  'order_hash',
  'maker',
  'taker',
  'role',
  'side',
  'token_id',
  'condition_id',
  'outcome_index',
  'shares',
  'usd',
  'fee',
  'builder',
  'metadata',
]);

/** One row as read: named fields, typed from the alpha_fills description. */
export type FillRow = RowOfSelection<typeof FILL_SELECTION>;

/** A hash lookup through alpha_fill_hashes to alpha_fills' primary key (maker, block_number). */
const viaFillHashes = (param: string, kind: 'tx' | 'order') =>
  `(maker, block_number) IN (SELECT maker, block_number FROM alpha_fill_hashes WHERE hash = {${param}:String} AND kind = '${kind}') AND ${param} = {${param}:String}`;

const minTotal: Filter<number> = {
  name: 'min_total',
  parse: (q) => q.min_total as number | undefined,
  where: (usd) =>
    usd > 0 ? { sql: 'usd >= {min_usd:UInt64}', params: { min_usd: Math.round(usd * 1e6) } } : undefined,
};

/** What a trade needs besides its row: its token's market when the fill lacks it, and market slugs. */
export interface TradeLookups {
  /** The condition of each token (in-process map) of fills ingested before their market was known. */
  tokens: Pick<TokenConditions, 'get'>;
  slugs: Map<string, string>;
}

/** A fill's condition: its own, else its token's (the map), else unknown. */
const known = (r: FillRow, tokens: TradeLookups['tokens']): TokenCondition | undefined =>
  r.condition_id === '' ? tokens.get(r.token_id) : undefined;

const conditionOf = (r: FillRow, tokens: TradeLookups['tokens']): string | null =>
  r.condition_id !== '' ? r.condition_id : known(r, tokens)?.conditionId || null;

/** A fill → the trade of `GET /v2/alpha/trades` (and of the stream's trades channel). */
export function toTrade(r: FillRow, { tokens, slugs }: TradeLookups): Trade {
  const token = known(r, tokens);
  const conditionId = r.condition_id !== '' ? r.condition_id : token?.conditionId || null;
  const outcomeIndex = r.outcome_index < 0 && token ? token.outcomeIndex : r.outcome_index;
  const version = Number(r.exchange_version);
  return {
    tx_hash: r.tx_hash,
    log_index: Number(r.log_index),
    block_number: Number(r.block_number),
    timestamp: Number(r.timestamp),
    status: r.status,
    order_hash: r.order_hash,
    maker: r.maker,
    taker: r.taker,
    role: r.role,
    side: r.side,
    token_id: r.token_id,
    condition_id: conditionId,
    outcome_index: outcomeIndex < 0 ? null : outcomeIndex,
    market_slug: (conditionId && slugs.get(conditionId)) ?? null,
    shares: units(r.shares),
    price: Number(r.shares) > 0 ? roundPrice(Number(r.usd) / Number(r.shares)) : 0,
    total: units(r.usd),
    fee: units(r.fee),
    fee_asset: version === 1 && r.side === 'BUY' ? 'shares' : 'collateral',
    exchange: r.exchange,
    exchange_version: version,
    neg_risk: Boolean(r.neg_risk),
    builder: r.builder,
    metadata: r.metadata,
  };
}

/** The lookups of a page (or of one streamed fill): the token map, then one slug call. */
export async function tradeLookups(
  rows: readonly FillRow[],
  tokens: TradeLookups['tokens'],
  markets: MarketSlugResolver,
  page?: PageMapping,
): Promise<TradeLookups> {
  // A token the map does not know yet may be known a second later, under the same data versions.
  if (page) page.provisional = rows.some((r) => r.condition_id === '' && known(r, tokens) === undefined);
  const slugs = await pageSlugs(
    markets,
    rows.map((r) => conditionOf(r, tokens)),
  );
  return { tokens, slugs };
}

export const alphaTrades: ListSpec<FillRow, Trade, 'trades', TokenConditions, TradeLookups> = {
  name: 'alpha.trades',
  table: 'alpha_fills',
  select: FILL_SELECTION,
  keyset: CHAIN_KEYSET,
  defaultLimit: 50,
  field: 'trades',
  // Parse order = which 400 answers first when several rules are broken.
  filters: [
    walletList({ column: 'maker' }),
    bytes32({ param: 'tx_hash', sql: viaFillHashes('tx_hash', 'tx') }),
    bytes32({ param: 'order_hash', sql: viaFillHashes('order_hash', 'order') }),
    bytes32({
      param: 'condition_id',
      sql: 'token_id IN (SELECT token_id FROM alpha_tokens WHERE condition_id = {condition_id:String})',
    }),
    bytes32({ param: 'builder' }),
    ...blockTimeRange(),
    marketSlug((ids) => ({
      sql: 'token_id IN (SELECT token_id FROM alpha_tokens WHERE condition_id IN {slug_conditions:Array(String)})',
      params: { slug_conditions: ids },
    })),
    equals({ param: 'token_id' }),
    equals({ param: 'role' }),
    minTotal,
    afterPosition,
  ],
  setup: (scope, ctx) => tokenConditionsOf(scope, ctx),
  lookups: (rows, tokens, ctx, page) => tradeLookups(rows, tokens, ctx.markets, page),
  toItem: toTrade,
};
