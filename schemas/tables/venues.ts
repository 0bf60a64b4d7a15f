/**
 * What every REST venue shares (schemas/clickhouse/034_venue_common.sql): the ingestors' checkpoints
 * before migration 042 (copied into `watermarks` then, no longer written or read) and the canonical ids of every venue's outcomes. Checked against `DESCRIBE TABLE` by
 * test/table-descriptions.test.ts.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

export const VENUE_CHECKPOINTS = defineTable('venue_checkpoints', {
  venue: c.lowText(),
  stream: c.lowText(),
  value: c.text,
  updated_at: c.time,
});

export const CANONICAL_OUTCOMES = defineTable('canonical_outcomes', {
  venue: c.lowText(),
  /** The venue's market key (alpha: market id; beta: ticker; gamma: slug; delta, epsilon: market id). */
  market: c.text,
  outcome_index: c.u8(),
  /** '' where the venue has no token (beta). */
  token_id: c.text,
  /** The outcome's current canonical key (the id stays the one first assigned). */
  key: c.text,
  id: c.hex(),
  assigned_at: c.time,
});

/**
 * The title words of the four REST venues' markets (schemas/clickhouse/039_venue_market_words.sql),
 * written by materialized views on inserts into `<venue>_markets`; read by the cross-venue search.
 */
export const VENUE_MARKET_WORDS = defineTable('venue_market_words', {
  venue: c.lowText(),
  word: c.text,
  /** The venue's market key as text (beta ticker, gamma slug, delta and epsilon market id). */
  market: c.text,
});

export const VENUE_TABLES = { VENUE_CHECKPOINTS, CANONICAL_OUTCOMES, VENUE_MARKET_WORDS } as const;
