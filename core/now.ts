/**
 * "Now" (DESIGN §6; docs/decisions.md): every default and every "current" of venue alpha's data is the
 * time of the newest ingested alpha block, falling back to the wall clock when none is ingested: equal to
 * the wall clock in production, the world's time in the simulated world (whose history lies months before
 * the wall clock). A REST venue's "now" is its upstream's clock: the `Date` of its newest answer
 * (ingest/http/client.ts `clock`), which stamps the venue's observations.
 */
import type { ClickHouse } from './clickhouse/index.ts';

/** Venue alpha's now, Unix ms: the newest ingested block's time, else the wall clock. */
export async function alphaNow(ch: ClickHouse): Promise<number> {
  // The newest block by the sort key (chain_id, number, hash): read in order, one granule.
  const rows = await ch.read<[string]>(
    'core.now.alpha',
    'SELECT toUnixTimestamp64Milli(timestamp) FROM alpha_blocks ORDER BY chain_id DESC, number DESC LIMIT 1',
  );
  const t = rows[0]?.[0];
  return t === undefined ? Date.now() : Number(t);
}

/** Venue alpha's now in whole Unix seconds (the API's times). */
export async function alphaNowSeconds(ch: ClickHouse): Promise<number> {
  return Math.floor((await alphaNow(ch)) / 1000);
}
