/**
 * A page the API maps with an in-process map that has not caught up (a fill whose token the token map
 * does not know yet) is served but not cached: the map catches up a moment later under the same data
 * versions, and the next request must see what it learnt instead of the cached provisional answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../core/data-version.ts';
import type { Trade } from '../schemas/api/alpha-trades.ts';
import { type ApiTestContext, addr, bytes32, createApiTestContext, fillRow } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;
const WALLET = addr(0x5a);
const CONDITION = bytes32(0xc5);

async function trades(): Promise<{ body: Trade[]; cache: string | undefined }> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/alpha/trades?wallet=${WALLET}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { body: (res.json() as { trades: Trade[] }).trades, cache: res.headers.etag as string | undefined };
}

beforeAll(async () => {
  t = await createApiTestContext('api_cache_provisional');
  key = await t.key('pro');
  await t.deps.clickhouse.insert('test.fills', 'alpha_fills', [
    fillRow({ block: 10, logIndex: 1, maker: WALLET, tokenId: '5005' }),
  ]);
  await createDataVersions({ redis: t.deps.redis }).bump('alpha-chain');
});
afterAll(async () => t?.close());

describe('response cache and the token map', () => {
  it('does not keep a page whose token the map does not know yet, and serves the condition once it does', async () => {
    const before = await trades();
    expect(before.body[0]!.condition_id).toBeNull();

    // The token's condition lands (with the version bump every chain write makes); the map learns it
    // within its refresh interval.
    await t.deps.clickhouse.insert('test.tokens', 'alpha_tokens', [
      {
        chain_id: 137,
        token_id: '5005',
        condition_id: CONDITION,
        outcome_index: 1,
        complement_token_id: '5006',
        neg_risk: false,
        source: 'condition_prepared',
        block_number: 11,
        tx_hash: bytes32(11),
        log_index: 0,
      },
    ]);
    await createDataVersions({ redis: t.deps.redis }).bump('alpha-chain');
    const provisional = await trades();

    let after = provisional;
    for (let i = 0; i < 50 && after.body[0]!.condition_id === null; i++) {
      await sleep(100);
      after = await trades();
    }
    expect(after.body[0]!.condition_id).toBe(CONDITION);
  });
});
