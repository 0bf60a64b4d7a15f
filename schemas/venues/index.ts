/**
 * The venues' contracts (schemas/venues/<code>.ts, the parts schemas/venues/contract.ts describes), in
 * venue order, and what derives from them: the venue codes, and the venues of each part (canonical ids,
 * the cross-venue search, the `/v2/<code>/markets` lists) as lists and types. A venue is added here
 * once; every reader of a part iterates these lists.
 */
import { BETA_TICK_DATASETS } from '../api/beta-ticks.ts';
import type { TickDataset } from '../ticks.ts';
import { ALPHA } from './alpha.ts';
import { BETA } from './beta.ts';
import type { MarketContract, MarketList, VenueContract, VenueSearch } from './contract.ts';
import { DELTA } from './delta.ts';
import { EPSILON } from './epsilon.ts';
import { GAMMA } from './gamma.ts';

export const VENUE_CONTRACTS = [ALPHA, BETA, GAMMA, DELTA, EPSILON] as const;

type Contract = (typeof VENUE_CONTRACTS)[number];
export type VenueCode = Contract['code'];

/** Every venue code, in venue order. */
export const VENUE_CODES: readonly VenueCode[] = VENUE_CONTRACTS.map((c) => c.code);

/** A contract with canonical ids (its markets' served fields). */
export type CanonicalContract = Extract<Contract, { market: MarketContract }>;
export type CanonicalVenue = CanonicalContract['code'];

/** A contract searched by `/v2/markets/search`. */
export type SearchContract = Extract<Contract, { search: VenueSearch }>;
export type SearchVenue = SearchContract['code'];

/** A contract with a `/v2/<code>/markets` list (which reads its markets table and its search's words). */
export type ListContract = Extract<
  Contract,
  { market: MarketContract; list: MarketList; search: VenueSearch }
>;
export type ListVenue = ListContract['code'];

const hasMarket = (c: VenueContract): c is CanonicalContract => c.market !== undefined;
const hasSearch = (c: VenueContract): c is SearchContract => c.search !== undefined;
const hasList = (c: VenueContract): c is ListContract =>
  c.list !== undefined && c.market !== undefined && c.search !== undefined;

/** The venues whose outcomes get canonical ids, in venue order. */
export const CANONICAL_CONTRACTS: readonly CanonicalContract[] = VENUE_CONTRACTS.filter(hasMarket);

/** The venues searched, in alphabetical order (the order results are interleaved and listed). */
export const SEARCH_CONTRACTS: readonly SearchContract[] = VENUE_CONTRACTS.filter(hasSearch).sort((a, b) =>
  a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
);

/** The venues with a `/v2/<code>/markets` list, in venue order (the order the routes are registered). */
export const LIST_CONTRACTS: readonly ListContract[] = VENUE_CONTRACTS.filter(hasList);

export const isCanonicalVenue = (v: string): v is CanonicalVenue =>
  CANONICAL_CONTRACTS.some((c) => c.code === v);

/** The contract of a venue with canonical ids. */
export function canonicalContract(venue: CanonicalVenue): CanonicalContract {
  const contract = CANONICAL_CONTRACTS.find((c) => c.code === venue);
  if (contract === undefined) throw new Error(`Venue ${venue} has no markets contract`);
  return contract;
}

/** The search contract of a venue. */
export function searchContract(venue: SearchVenue): SearchContract {
  const contract = SEARCH_CONTRACTS.find((c) => c.code === venue);
  if (contract === undefined) throw new Error(`Venue ${venue} is not searched`);
  return contract;
}

/**
 * Every tick dataset (schemas/ticks.ts), declared by its venue (schemas/api/<code>-ticks.ts), in venue
 * order: what `ticks.compact` compacts and `/v2/data/ticks` sells.
 */
export const TICK_DATASETS: readonly TickDataset[] = [...BETA_TICK_DATASETS];
