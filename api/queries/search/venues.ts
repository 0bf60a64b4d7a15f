/**
 * How `/v2/markets/search` reads each venue: the table, and the SQL expression of each field of a
 * SearchRow (interface-shapes §20). alpha reads its catalog list (`alpha_market_list`, rebuilt whole by
 * the catalog build: no FINAL, canonical ids in outcome order); the four REST venues read their
 * `<venue>_markets` table with FINAL (one row per market, ReplacingMergeTree) over the columns every venue
 * table shares (`title`, `words`, `status`, `prices`, `volume_usd`, `end_time`), and take the canonical id
 * of their first outcome from `canonical_outcomes`. Every expression is fixed text.
 */
import type { SearchVenue } from '../../../schemas/api/markets-search.ts';

export interface VenueSearch {
  venue: SearchVenue;
  /** The FROM clause. */
  from: string;
  /** The market's key: the tie-break of the order, and `canonical_outcomes.market` (as a String). */
  key: string;
  price: string;
  volume: string;
  /** Nullable DateTime64 column of the end of trading, or null when the venue has none. */
  endTime: string | null;
  marketSlug: string | null;
  marketId: string | null;
  conditionId: string | null;
  /** The first outcome's canonical id read with the row (alpha), or null: read from canonical_outcomes. */
  canonicalId: string | null;
  /**
   * The candidate step (venue_market_words, migration 039): the venue table's primary-key column and the
   * expression turning the words table's `market` text into it; null where the venue has no words rows
   * (alpha reads its whole list).
   */
  candidates: { column: string; fromMarket: string } | null;
}

const rest = (
  venue: Exclude<SearchVenue, 'alpha'>,
  key: string,
  ids: { marketSlug: string | null; marketId: string | null },
  candidates: { column: string; fromMarket: string },
): VenueSearch => ({
  venue,
  from: `${venue}_markets FINAL`,
  key,
  price: 'prices[1]',
  volume: 'volume_usd',
  endTime: 'end_time',
  conditionId: null,
  canonicalId: null,
  candidates,
  ...ids,
});

export const VENUE_SEARCHES: Record<SearchVenue, VenueSearch> = {
  alpha: {
    venue: 'alpha',
    from: 'alpha_market_list',
    key: 'market_id',
    price: 'price',
    volume: 'volume',
    endTime: 'end_date',
    marketSlug: 'slug',
    marketId: null,
    conditionId: 'condition_id',
    canonicalId: 'canonical_ids[1]',
    candidates: null,
  },
  beta: rest(
    'beta',
    'ticker',
    { marketSlug: null, marketId: 'ticker' },
    { column: 'ticker', fromMarket: 'market' },
  ),
  delta: rest(
    'delta',
    'toString(market_id)',
    { marketSlug: null, marketId: 'toString(market_id)' },
    { column: 'market_id', fromMarket: 'toUInt64(market)' },
  ),
  epsilon: rest(
    'epsilon',
    'toString(market_id)',
    { marketSlug: 'market_slug', marketId: null },
    { column: 'market_id', fromMarket: 'toUInt64(market)' },
  ),
  gamma: rest(
    'gamma',
    'slug',
    { marketSlug: 'slug', marketId: null },
    { column: 'slug', fromMarket: 'market' },
  ),
};
