/**
 * Market slugs → condition ids, for the `market_slug` filters and fields of chain-data routes, and a
 * condition's market id (the open-interest series' `market_id`; a resolver without `marketId` knows
 * none). Slugs and ids come
 * from the venue's metadata, which the chain tables do not carry: the app's default resolver reads alpha's
 * catalog (`alpha_markets`, api/queries/alpha/market-slugs.ts); a slug it does not know answers an empty
 * page, not an error.
 *
 * A resolver answers from in-process maps kept fresh in the background (as api/queries/alpha/tokens.ts
 * does for tokens), never with a query per request: list endpoints call `conditionIds` once per request
 * with a slug filter and `slugs` once per page.
 */
export interface MarketSlugResolver {
  /** Condition ids of the alpha market(s) with this slug; empty when the slug is not known. */
  conditionIds(slug: string): Promise<string[]>;
  /** Slug of each known condition id (for the `market_slug` field of rows). */
  slugs(conditionIds: readonly string[]): Promise<Map<string, string>>;
  /** The venue's market id of a condition (the open-interest series' `market_id`); null when not known. */
  marketId?(conditionId: string): Promise<string | null>;
}

/** A resolver that knows no slug (tests of code that takes a resolver). */
export const noMarketMetadata: MarketSlugResolver = {
  conditionIds: async () => [],
  slugs: async () => new Map(),
  marketId: async () => null,
};
