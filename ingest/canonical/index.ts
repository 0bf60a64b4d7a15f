/** Canonical ids of every venue's outcomes (docs/venues.md "Canonical ids"). */
export { type AssignOptions, type AssignSummary, assignCanonical } from './assign.ts';
export {
  CANONICAL_VENUES,
  type CanonicalVenue,
  isCanonicalVenue,
  readStoredMarkets,
  type StoredMarket,
} from './served.ts';
