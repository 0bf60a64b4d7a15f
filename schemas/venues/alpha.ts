/**
 * Venue alpha's contract (schemas/venues/contract.ts): its catalog tables (schemas/tables/alpha-catalog.ts;
 * its chain tables belong to the chain pipeline, ingest/venues/alpha/chain/tables.ts), its catalog markets
 * keyed by market id with their served fields, and its search over the catalog's market list
 * (`alpha_market_list`, rebuilt whole by the catalog build: no FINAL, canonical ids in outcome order).
 * Alpha's own market list (`/v2/alpha/markets`, the catalog's) is another endpoint with its own module.
 */
import { ALPHA_CATALOG_TABLES, ALPHA_EVENTS, ALPHA_MARKETS } from '../tables/alpha-catalog.ts';
import { ALPHA_MARKET_LIST } from '../tables/alpha-catalog-lists.ts';
import { venueContract } from './contract.ts';

export const ALPHA = venueContract({
  code: 'alpha',
  name: 'Alpha',
  tables: ALPHA_CATALOG_TABLES,
  market: {
    table: ALPHA_MARKETS.name,
    key: { column: 'id', type: 'String' },
    served: {
      // Each market with its event's title ('' when the event is not stored).
      source: `(SELECT * FROM ${ALPHA_MARKETS.name} FINAL) AS m
       LEFT JOIN (SELECT id AS event_id, title AS event_title FROM ${ALPHA_EVENTS.name} FINAL) AS e
       USING (event_id)`,
      title: 'question',
      outcomes: 'outcomes',
      tokenIds: 'clob_token_ids',
      endTime: 'end_date',
      eventKey: 'event_id',
      eventTitle: 'event_title',
      // A group item title is an alternative's label only in a neg-risk (mutually exclusive) event, as
      // core/canonical-id.ts `alphaServedMarket` (the catalog build's) says; alpha's team ids and game
      // start are not used (the other venues serve neither), so alpha keys a game like every venue does.
      groupLabel: `if(neg_risk AND trimBoth(group_item_title) != '', group_item_title, NULL)`,
    },
  },
  search: {
    from: ALPHA_MARKET_LIST.name,
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
});
