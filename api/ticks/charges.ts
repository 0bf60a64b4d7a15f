/**
 * What `/v2/data/ticks` charges (docs/ticks.md "Pricing"): the price of the parts' bytes when their URLs
 * are issued, once per key and request in 24 h — the same request (api/ticks normalizes it) within 24 h of
 * its charge re-issues the URLs free. Kept in Redis beside the request counters of api/limits.ts: the
 * grant `ticks-grant:<key id>:<request digest>` (24 h), and in the key's monthly `usage:<id>:<YYYY-MM>`
 * hash the fields `tick_charged`, `tick_reused`, `tick_bytes` and `tick_usd_micros` (what `pmdata keys
 * usage` shows). The grant and the counters change in one script: a charge is counted exactly once.
 */
import type { Redis } from 'ioredis';
import { TICKS_USD_PER_GIB } from '../../schemas/ticks.ts';
import { monthOf, usageKey } from '../keys/store.ts';

const GRANT_MS = 24 * 3_600_000;
const USAGE_TTL_S = 400 * 86_400;

/** The price of `bytes` in micro-USD (80.00 USD per GiB, rounded to the micro-dollar). */
export const priceMicros = (bytes: number) => Math.round((bytes * TICKS_USD_PER_GIB * 1_000_000) / 2 ** 30);

// KEYS[1] the grant, KEYS[2] the usage hash; ARGV[1] micro-USD, ARGV[2] bytes, ARGV[3] grant ms, ARGV[4] usage TTL s.
// Returns 1 charged, 0 reused.
const CHARGE_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then
  redis.call('HINCRBY', KEYS[2], 'tick_charged', 1)
  redis.call('HINCRBY', KEYS[2], 'tick_bytes', ARGV[2])
  redis.call('HINCRBY', KEYS[2], 'tick_usd_micros', ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return 1
end
redis.call('HINCRBY', KEYS[2], 'tick_reused', 1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 0
`;

type ChargeCommand = (
  grant: string,
  usage: string,
  micros: number,
  bytes: number,
  ms: number,
  ttl: number,
) => Promise<number>;

export interface TickCharge {
  reused: boolean;
  /** Micro-USD charged by this request (0 when reused). */
  chargedMicros: number;
}

/** Charges key `keyId` for request `digest` of `bytes`, unless the same request was charged within 24 h. */
export async function chargeTicks(
  redis: Redis,
  o: { keyId: string; digest: string; bytes: number; now?: number },
): Promise<TickCharge> {
  if (!('pmdataTickCharge' in redis))
    redis.defineCommand('pmdataTickCharge', { numberOfKeys: 2, lua: CHARGE_LUA });
  const run = (redis as unknown as { pmdataTickCharge: ChargeCommand }).pmdataTickCharge.bind(redis);
  const micros = priceMicros(o.bytes);
  const charged = await run(
    `ticks-grant:${o.keyId}:${o.digest}`,
    usageKey(o.keyId, monthOf(o.now ?? Date.now())),
    micros,
    o.bytes,
    GRANT_MS,
    USAGE_TTL_S,
  );
  return Number(charged) === 1
    ? { reused: false, chargedMicros: micros }
    : { reused: true, chargedMicros: 0 };
}
