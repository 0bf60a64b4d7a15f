/**
 * Venue gamma's contract (schemas/venues/contract.ts): its tables (schemas/tables/gamma.ts), markets
 * keyed by slug, its market list `GET /v2/gamma/markets` (interface-shapes §18.2; rows mapped by
 * `toGammaMarket`) and its search. `open_interest_usd` is stored null for order-book
 * markets (SPEC), so `min_open_interest` never matches them and the `open_interest` sort puts them last.
 */
import {
  descKey,
  nullableTimeKeys,
  nullsLastKeys,
  type SortColumn,
} from '../../core/clickhouse/sort-keys.ts';
import type { RowOfSelection } from '../../core/clickhouse/table.ts';
import { GammaMarketsQuery, GammaMarketsResponse, toGammaMarket } from '../api/gamma-markets.ts';
import { GAMMA_MARKETS, GAMMA_TABLES } from '../tables/gamma.ts';
import { listColumns, marketList, msOf, restMarket, restSearch, venueContract } from './contract.ts';

const market = restMarket(GAMMA_MARKETS, { column: 'slug', type: 'String' });

const bySlug: SortColumn = { expr: 'slug', type: 'String', dir: 'asc' };

/**
 * The list's columns, stated once: the named row `toGammaMarket` (schemas/api/gamma-markets.ts) maps, and
 * gamma_markets' `doc` expression (migration 040, checked equal by test/venue-markets-doc.test.ts).
 */
export const GAMMA_LIST_COLUMNS = listColumns(GAMMA_MARKETS, [
  'condition_id',
  'market_id',
  'slug',
  'title',
  'description',
  'status',
  'trade_type',
  'outcomes',
  'token_ids',
  'prices',
  'volume_usd',
  'open_interest_usd',
  'liquidity_usd',
  'image_url',
  'categories',
  'tags',
  'collateral_address',
  'collateral_symbol',
  'collateral_decimals',
  'market_address',
  'exchange_address',
  'expired',
  'winning_outcome',
  'payout_numerators',
  'resolution_block',
  'resolution_tx',
  msOf('expiration_time'),
  msOf('created_time'),
  msOf('updated_time'),
]);
export type GammaListRow = RowOfSelection<typeof GAMMA_LIST_COLUMNS>;

const list = marketList({
  resource: toGammaMarket,
  example: 'trade_type=amm&sort=open_interest&limit=3',
  about:
    "Gamma's markets (AMM and order book), outcomes with token ids, prices 0–1 and canonical ids. " +
    'open_interest_usd is null for order-book (clob) markets, a number for AMM markets.',
  query: GammaMarketsQuery,
  response: GammaMarketsResponse,
  columns: GAMMA_LIST_COLUMNS,
  filters: [
    { param: 'trade_type', kind: 'eq', column: 'trade_type' },
    { param: 'categories', kind: 'has', column: 'categories' },
    { param: 'tags', kind: 'has', column: 'tags' },
    { param: 'min_volume', kind: 'min', column: 'volume_usd' },
    // A null open interest (order book) compares as null: never matches.
    { param: 'min_open_interest', kind: 'min', column: 'open_interest_usd' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'slug' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
  ],
  sorts: {
    volume: [descKey('volume_usd', 'Float64'), bySlug],
    open_interest: [
      ...nullsLastKeys('open_interest_usd', 'ifNull(open_interest_usd, 0)', 'Float64', 'desc'),
      bySlug,
    ],
    liquidity: [descKey('liquidity_usd', 'Float64'), bySlug],
    price_desc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'desc'), bySlug],
    price_asc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'asc'), bySlug],
    expiration: [...nullableTimeKeys('expiration_time', 'desc'), bySlug],
    created: [...nullableTimeKeys('created_time', 'desc'), bySlug],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), bySlug],
  },
  defaultSort: 'volume',
});

export const GAMMA = venueContract({
  code: 'gamma',
  name: 'Gamma',
  tables: GAMMA_TABLES,
  market,
  list,
  search: restSearch(market, { marketSlug: 'slug', marketId: null }),
});
