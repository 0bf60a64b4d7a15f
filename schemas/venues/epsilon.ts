/**
 * Venue epsilon's contract (schemas/venues/contract.ts): its tables (schemas/tables/epsilon.ts), markets
 * keyed by market id, its market list `GET /v2/epsilon/markets` (interface-shapes §18.4; rows mapped by
 * `toEpsilonMarket`) and its search. Outcomes carry their best bid and ask (no price); the
 * price sorts use the first outcome's price (`prices[1]`).
 */
import {
  descKey,
  nullableTimeKeys,
  nullsLastKeys,
  type SortColumn,
} from '../../core/clickhouse/sort-keys.ts';
import type { RowOfSelection } from '../../core/clickhouse/table.ts';
import { EpsilonMarketsQuery, EpsilonMarketsResponse, toEpsilonMarket } from '../api/epsilon-markets.ts';
import { EPSILON_MARKETS, EPSILON_TABLES } from '../tables/epsilon.ts';
import { listColumns, marketList, msOf, restMarket, restSearch, venueContract } from './contract.ts';

const market = restMarket(EPSILON_MARKETS, { column: 'market_id', type: 'UInt64' });

const byId: SortColumn = { expr: 'market_id', type: 'UInt64', dir: 'asc' };

/**
 * The list's columns, stated once: the named row `toEpsilonMarket` (schemas/api/epsilon-markets.ts) maps, and
 * epsilon_markets' `doc` expression (migration 040, checked equal by test/venue-markets-doc.test.ts).
 */
export const EPSILON_LIST_COLUMNS = listColumns(EPSILON_MARKETS, [
  'market_id',
  'condition_id',
  'title',
  'description',
  'status',
  'market_variant',
  'outcomes',
  'token_ids',
  'outcome_best_bids',
  'outcome_best_asks',
  'best_bid',
  'best_ask',
  'bid_depth',
  'ask_depth',
  'is_yield_bearing',
  'is_neg_risk',
  'event_slug',
  'image_url',
  'winning_outcome',
  'payout_numerators',
  'resolution_block',
  'resolution_tx',
  msOf('created_time'),
  msOf('updated_time'),
]);
export type EpsilonListRow = RowOfSelection<typeof EPSILON_LIST_COLUMNS>;

const list = marketList({
  resource: toEpsilonMarket,
  example: 'sort=created&limit=3',
  about:
    "Epsilon's markets, outcomes with token ids, best bid and ask 0–1 and canonical ids (the venue has no " +
    'end time).',
  query: EpsilonMarketsQuery,
  response: EpsilonMarketsResponse,
  columns: EPSILON_LIST_COLUMNS,
  filters: [
    { param: 'market_variant', kind: 'eq', column: 'market_variant' },
    { param: 'min_bid_depth', kind: 'min', column: 'bid_depth' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'market_slug' },
    { param: 'market_id', kind: 'in', column: 'market_id', type: 'UInt64' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
    { param: 'event_slug', kind: 'in', column: 'event_slug' },
  ],
  sorts: {
    created: [...nullableTimeKeys('created_time', 'desc'), byId],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), byId],
    price_desc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'desc'), byId],
    price_asc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'asc'), byId],
    bid_depth: [descKey('bid_depth', 'Float64'), byId],
  },
  defaultSort: 'created',
});

export const EPSILON = venueContract({
  code: 'epsilon',
  name: 'Epsilon',
  tables: EPSILON_TABLES,
  market,
  list,
  search: restSearch(market, { marketSlug: 'market_slug', marketId: null }),
});
