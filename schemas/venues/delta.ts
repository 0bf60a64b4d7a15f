/**
 * Venue delta's contract (schemas/venues/contract.ts): its tables (schemas/tables/delta.ts), markets
 * keyed by market id, its market list `GET /v2/delta/markets` (interface-shapes §18.3; rows mapped by
 * `toDeltaMarket`) and its search. A categorical market's alternatives are markets of one
 * event (`event_id` = the parent's id).
 */
import { descKey, nullableTimeKeys, type SortColumn } from '../../core/clickhouse/sort-keys.ts';
import type { RowOfSelection } from '../../core/clickhouse/table.ts';
import { DeltaMarketsQuery, DeltaMarketsResponse, toDeltaMarket } from '../api/delta-markets.ts';
import { DELTA_MARKETS, DELTA_TABLES } from '../tables/delta.ts';
import { listColumns, marketList, msOf, restMarket, restSearch, venueContract } from './contract.ts';

const market = restMarket(DELTA_MARKETS, { column: 'market_id', type: 'UInt64' });

const byId: SortColumn = { expr: 'market_id', type: 'UInt64', dir: 'asc' };

/**
 * The list's columns, stated once: the named row `toDeltaMarket` (schemas/api/delta-markets.ts) maps, and
 * delta_markets' `doc` expression (migration 040, checked equal by test/venue-markets-doc.test.ts).
 */
export const DELTA_LIST_COLUMNS = listColumns(DELTA_MARKETS, [
  'market_id',
  'title',
  'slug',
  'description',
  'status',
  'market_type',
  'outcomes',
  'token_ids',
  'prices',
  'volume_usd',
  'volume_24h_usd',
  'volume_7d_usd',
  'condition_id',
  'question_id',
  'result_token_id',
  'event_id',
  'event_slug',
  'event_title',
  'labels',
  'thumbnail_url',
  'chain_id',
  'quote_token',
  'collection_title',
  'collection_symbol',
  'collection_frequency',
  msOf('created_time'),
  msOf('cutoff_time'),
  msOf('resolved_time'),
]);
export type DeltaListRow = RowOfSelection<typeof DELTA_LIST_COLUMNS>;

const list = marketList({
  resource: toDeltaMarket,
  example: 'sort=volume&limit=3',
  about:
    "Delta's markets (binary, and the alternatives of categorical events), outcomes with token ids, prices " +
    '0–1 and canonical ids.',
  query: DeltaMarketsQuery,
  response: DeltaMarketsResponse,
  columns: DELTA_LIST_COLUMNS,
  filters: [
    { param: 'market_type', kind: 'eq', column: 'market_type' },
    { param: 'labels', kind: 'has', column: 'labels' },
    { param: 'min_volume', kind: 'min', column: 'volume_usd' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'slug' },
    { param: 'market_id', kind: 'in', column: 'market_id', type: 'UInt64' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
    { param: 'event_id', kind: 'in', column: 'event_id', type: 'UInt64' },
    { param: 'event_slug', kind: 'in', column: 'event_slug' },
  ],
  sorts: {
    volume: [descKey('volume_usd', 'Float64'), byId],
    volume_24h: [descKey('volume_24h_usd', 'Float64'), byId],
    volume_7d: [descKey('volume_7d_usd', 'Float64'), byId],
    created: [...nullableTimeKeys('created_time', 'desc'), byId],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), byId],
    expiration: [...nullableTimeKeys('cutoff_time', 'desc'), byId],
  },
  defaultSort: 'volume',
});

export const DELTA = venueContract({
  code: 'delta',
  name: 'Delta',
  tables: DELTA_TABLES,
  market,
  list,
  search: restSearch(market, {
    marketSlug: null,
    marketId: { expr: 'toString(market_id)', is: 'market id' },
  }),
});
