/**
 * `GET /v2/alpha/trades`: one row per OrderFilled (table `alpha_fills`, docs/chain-ingestion.md), newest
 * first by default, keyset on (block_number, log_index).
 *
 * Access paths (each an index of alpha_fills): wallets → primary key (maker, block_number, ...); token
 * or condition → projection by_token; tx_hash, order_hash → alpha_fill_hashes then the primary key;
 * builder → bloom filter; time → partition + minmax.
 */
import { type ReadRow, selectList } from '../../../core/clickhouse/table.ts';
import type { Trade } from '../../../schemas/api/alpha-trades.ts';
import { ALPHA_FILLS } from '../../../schemas/tables/alpha-chain.ts';
import { bytes32, equals, type Filter, marketSlug, walletList } from '../filters.ts';
import type { ListSpec } from '../list.ts';
import { afterPosition, blockTimeRange, CHAIN_EVENT_HEAD, CHAIN_KEYSET, pageSlugs, units } from './chain.ts';
import { roundPrice } from './market-data.ts';
import { type TokenCondition, type TokenConditions, tokenConditionsOf } from './tokens.ts';

/**
 * The columns the response needs, in this order. price (usd ÷ shares) and fee_asset (V1 BUY: shares,
 * else collateral) are derived rather than read: each column read costs the engine time on every lookup.
 */
const SELECTED = [
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
] as const;

/** One row as read: the selection's values, typed from the alpha_fills description. */
type FillRow = ReadRow<typeof ALPHA_FILLS, typeof SELECTED>;

/** A hash lookup through alpha_fill_hashes to alpha_fills' primary key (maker, block_number). */
const viaFillHashes = (param: string, kind: 'tx' | 'order') =>
  `(maker, block_number) IN (SELECT maker, block_number FROM alpha_fill_hashes WHERE hash = {${param}:String} AND kind = '${kind}') AND ${param} = {${param}:String}`;

const minTotal: Filter<number> = {
  name: 'min_total',
  parse: (q) => q.min_total as number | undefined,
  where: (usd) =>
    usd > 0 ? { sql: 'usd >= {min_usd:UInt64}', params: { min_usd: Math.round(usd * 1e6) } } : undefined,
};

/** Positions in SELECTED the page mapping reads. */
const TOKEN_ID = 13;
const CONDITION_ID = 14;

function toTrade(r: FillRow, known: TokenCondition | undefined, slugs: Map<string, string>): Trade {
  const [
    blockNumber,
    logIndex,
    txHash,
    ts,
    status,
    exchange,
    exchangeVersion,
    negRisk,
    orderHash,
    maker,
    taker,
    role,
    side,
    tokenId,
    fillCondition,
    fillOutcome,
    shares,
    usd,
    fee,
    builder,
    metadata,
  ] = r;
  const conditionId = fillCondition !== '' ? fillCondition : known?.conditionId || null;
  const outcomeIndex = fillOutcome < 0 && known ? known.outcomeIndex : fillOutcome;
  const version = Number(exchangeVersion);
  return {
    tx_hash: txHash,
    log_index: Number(logIndex),
    block_number: Number(blockNumber),
    timestamp: Number(ts),
    status,
    order_hash: orderHash,
    maker,
    taker,
    role,
    side,
    token_id: tokenId,
    condition_id: conditionId,
    outcome_index: outcomeIndex < 0 ? null : outcomeIndex,
    market_slug: (conditionId && slugs.get(conditionId)) ?? null,
    shares: units(shares),
    price: Number(shares) > 0 ? roundPrice(Number(usd) / Number(shares)) : 0,
    total: units(usd),
    fee: units(fee),
    fee_asset: version === 1 && side === 'BUY' ? 'shares' : 'collateral',
    exchange,
    exchange_version: version,
    neg_risk: Boolean(negRisk),
    builder,
    metadata,
  };
}

export const alphaTrades: ListSpec<FillRow, Trade, 'trades', TokenConditions> = {
  name: 'alpha.trades',
  table: 'alpha_fills',
  columns: selectList(ALPHA_FILLS, SELECTED),
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
  async toItems(rows, tokens, ctx, page) {
    // Fills ingested before their token's condition was known carry ''; the in-process map fills it in.
    const known = rows.map((r) => (r[CONDITION_ID] === '' ? tokens.get(r[TOKEN_ID]) : undefined));
    // A token the map does not know yet may be known a second later, under the same data versions.
    page.provisional = rows.some((r, i) => r[CONDITION_ID] === '' && known[i] === undefined);
    const slugs = await pageSlugs(
      ctx.markets,
      rows.map((r, i) => (r[CONDITION_ID] !== '' ? r[CONDITION_ID] : known[i]?.conditionId || null)),
    );
    return rows.map((r, i) => toTrade(r, known[i], slugs));
  },
};
