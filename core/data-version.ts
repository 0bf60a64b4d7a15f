/**
 * Data versions: one version string per data source, in one Redis hash, bumped by whoever changes the
 * source's data after the change is visible to readers. The API's response cache keys every entry with
 * the versions of the sources its route reads (a resource's `sources`, api/resources/), so a change invalidates exactly
 * the answers that may depend on it, in every API process, without a message to any of them.
 *
 * A version reads `<counter>` or `<counter>:<detail>`: the counter, incremented by every bump, is what
 * makes invalidation exact; the detail (for the chain: the newest ingested block number and hash) is
 * informative and kept across bumps that do not name a new one.
 *
 * Sources: `alpha-chain` (every alpha chain table), `analytics:<product>` (a derived product, bumped
 * when its computation lands), `venue:<code>` (a venue's REST data, bumped per observation written),
 * `books:<code>` (a venue's order book history, bumped per snapshot batch written).
 */
import type { Redis } from 'ioredis';

/** The Redis hash of the versions (under the client's key prefix, if any); one field per source. */
export const DATA_VERSIONS_KEY = 'pmdata:data-versions';

export const ALPHA_CHAIN_SOURCE = 'alpha-chain';

export type DataSource =
  | typeof ALPHA_CHAIN_SOURCE
  | `analytics:${string}`
  | `venue:${string}`
  | `books:${string}`;

/** The newest ingested block a chain version names. */
export interface ChainTip {
  number: number;
  hash: string;
}

export interface DataVersions {
  /** Increments `source`'s counter (and records `detail` when given); returns the new version. */
  bump(source: DataSource, detail?: string): Promise<string>;
  /** The current versions of `sources`, in order ('' for a source never bumped). */
  read(sources: readonly DataSource[]): Promise<string[]>;
  /** A bump function for the chain writer: `alpha-chain`, with the tip as `<block>:<hash>` when known. */
  chainBump(): (tip?: ChainTip) => Promise<void>;
}

// KEYS[1] the versions hash; ARGV[1] the source, ARGV[2] the detail ('' = keep the current one).
const BUMP_LUA = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local n, tail = 0, ''
if cur then
  local c, rest = string.match(cur, '^(%d+)(.*)$')
  n = tonumber(c) or 0
  tail = rest or ''
end
if ARGV[2] ~= '' then tail = ':' .. ARGV[2] end
local v = string.format('%d', n + 1) .. tail
redis.call('HSET', KEYS[1], ARGV[1], v)
return v
`;

type BumpCommand = (key: string, source: string, detail: string) => Promise<string>;

export function createDataVersions(deps: { redis: Redis }): DataVersions {
  const { redis } = deps;
  // defineCommand sends KEYS through the client's key prefix, so a prefixed client stays isolated.
  if (!('pmdataBumpVersion' in redis)) {
    redis.defineCommand('pmdataBumpVersion', { numberOfKeys: 1, lua: BUMP_LUA });
  }
  const run = (redis as unknown as { pmdataBumpVersion: BumpCommand }).pmdataBumpVersion.bind(redis);

  const bump = (source: DataSource, detail = '') => run(DATA_VERSIONS_KEY, source, detail);
  return {
    bump,
    async read(sources) {
      if (sources.length === 0) return [];
      const values = await redis.hmget(DATA_VERSIONS_KEY, ...sources);
      return values.map((v) => v ?? '');
    },
    chainBump() {
      return async (tip) => {
        await bump(ALPHA_CHAIN_SOURCE, tip ? `${tip.number}:${tip.hash}` : '');
      };
    },
  };
}
