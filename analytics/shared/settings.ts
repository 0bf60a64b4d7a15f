/** What the market analytics of venue alpha need to know of its chain (built from config by jobs/). */
export interface AlphaAnalyticsSettings {
  chainId: number;
  /** USDC.e's address (lowercase): the only CTF collateral open interest counts (alpha-chain.md §7.2). */
  usdcE: string;
  /** Blocks below the head the chain follower still reorganizes: a rewind goes at least this deep. */
  finalityDepth: number;
  /** Most blocks one incremental step covers (bounded batches; default 20,000). */
  stepBlocks?: number;
  /** Width of one window of a recomputation over a long span, seconds (bounded batches; default 7 days). */
  windowSeconds?: number;
}

/**
 * What every product of venue alpha needs to know of its chain, built once from config by jobs/: the
 * market analytics' settings and the positions' (every protocol address, lowercase, which never holds a
 * position; the NegRiskAdapter's).
 */
export interface AlphaProductSettings extends AlphaAnalyticsSettings {
  protocol: readonly string[];
  negRiskAdapter: string;
}

/** The Redis lease every run of alpha's market analytics takes (market data and rolling metrics). */
export const ALPHA_ANALYTICS_LEASE = 'analytics:alpha:lease';
