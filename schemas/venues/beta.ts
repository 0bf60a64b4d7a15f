/**
 * Venue beta's contract (schemas/venues/contract.ts): its tables (schemas/tables/beta.ts), markets keyed
 * by ticker, its market list `GET /v2/beta/markets` (interface-shapes §18.1; rows mapped by
 * `toBetaMarket`) and its search. `min_price` / `max_price` are integer cents on the last
 * price; the volume and open-interest floors are whole dollars (`dollar_volume`, `dollar_open_interest`).
 */
import {
  descKey,
  nullableTimeKeys,
  nullsLastKeys,
  type SortColumn,
} from '../../core/clickhouse/sort-keys.ts';
import type { RowOfSelection } from '../../core/clickhouse/table.ts';
import { BetaMarketsQuery, BetaMarketsResponse, toBetaMarket } from '../api/beta-markets.ts';
import { BETA_MARKETS, BETA_TABLES } from '../tables/beta.ts';
import { listColumns, marketList, msOf, restMarket, restSearch, venueContract } from './contract.ts';

const market = restMarket(BETA_MARKETS, { column: 'ticker', type: 'String' });

const byTicker: SortColumn = { expr: 'ticker', type: 'String', dir: 'asc' };

/**
 * The list's columns, stated once: the named row `toBetaMarket` (schemas/api/beta-markets.ts) maps, and
 * beta_markets' `doc` expression (migration 040, checked equal by test/venue-markets-doc.test.ts).
 */
export const BETA_LIST_COLUMNS = listColumns(BETA_MARKETS, [
  'ticker',
  'event_key',
  'title',
  'yes_subtitle',
  'no_subtitle',
  'status',
  'result',
  msOf('open_time'),
  msOf('close_time'),
  msOf('expected_expiration_time'),
  msOf('settlement_time'),
  msOf('determination_time'),
  'can_close_early',
  'strike_type',
  'custom_strike',
  'outcomes',
  'yes_bid',
  'yes_ask',
  'no_bid',
  'no_ask',
  'last_price',
  'volume',
  'open_interest',
  'dollar_volume',
  'dollar_open_interest',
  'series_ticker',
  'event_title',
  'event_subtitle',
  msOf('created_time'),
  msOf('updated_time'),
]);
export type BetaListRow = RowOfSelection<typeof BETA_LIST_COLUMNS>;

const list = marketList({
  resource: toBetaMarket,
  check: (q) =>
    q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price
      ? `min_price (${q.min_price}) is above max_price (${q.max_price})`
      : null,
  example: 'status=open&limit=3',
  about:
    "Beta's markets (open, closed and resolved; no multivariate markets), binary Yes/No with bids and asks 0–1 and " +
    'the canonical id of each outcome. min_price and max_price are integer cents (0–100) on the last price.',
  query: BetaMarketsQuery,
  response: BetaMarketsResponse,
  columns: BETA_LIST_COLUMNS,
  filters: [
    // Cents against the 0–1 last price, rounded so that 0.29 and 29 cents compare equal.
    { param: 'min_price', kind: 'min', column: 'round(last_price * 100, 6)' },
    { param: 'max_price', kind: 'max', column: 'round(last_price * 100, 6)' },
    { param: 'min_open_interest', kind: 'min', column: 'dollar_open_interest' },
    { param: 'min_volume', kind: 'min', column: 'dollar_volume' },
    { param: 'ticker', kind: 'in', column: 'ticker' },
    { param: 'event_ticker', kind: 'in', column: 'event_key' },
    { param: 'series_ticker', kind: 'in', column: 'series_ticker' },
  ],
  sorts: {
    volume: [descKey('dollar_volume', 'Float64'), byTicker],
    open_interest: [descKey('dollar_open_interest', 'Float64'), byTicker],
    price_desc: [...nullsLastKeys('last_price', 'ifNull(last_price, 0)', 'Float64', 'desc'), byTicker],
    price_asc: [...nullsLastKeys('last_price', 'ifNull(last_price, 0)', 'Float64', 'asc'), byTicker],
    close_time: [...nullableTimeKeys('close_time', 'asc'), byTicker],
  },
  defaultSort: 'volume',
});

export const BETA = venueContract({
  code: 'beta',
  name: 'Beta',
  tables: BETA_TABLES,
  market,
  list,
  search: restSearch(market, { marketSlug: null, marketId: { expr: 'ticker', is: 'ticker' } }),
});
