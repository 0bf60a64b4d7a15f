/** Canonical ids of every venue's outcomes (docs/venues.md "Canonical ids"). */
export { type AssignOptions, type AssignSummary, assignCanonical } from './assign.ts';
export { readStoredMarkets, type StoredMarket } from './served.ts';
