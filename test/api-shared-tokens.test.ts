/**
 * One token map per process (`pmdata up`, the demo: jobs/commands/roles.ts `startSharedTokens`): an app
 * given a shared map (`tokens`) maps its trades with it and makes none of its own; the map's owner loads,
 * refreshes and stops it. Shown with a shared map not loaded yet: a fill ingested before its token's
 * market was known answers without its market until the owner refreshes the map, then with it. Real chDB
 * and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { createTokenConditions, type TokenConditions } from '../api/queries/alpha/tokens.ts';
import { addr, BACKGROUND_READS, bytes32, fillRow, TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const COND = bytes32(0xc0);

describe('a token map shared with the app', () => {
  let deps: TestDeps;
  let app: App;
  let shared: TokenConditions;
  let key: string;
  const labels: string[] = [];

  beforeAll(async () => {
    deps = await createTestDeps('api_shared_tokens');
    // The fill carries no market (ingested before its token was known); alpha_tokens knows it now.
    await deps.clickhouse.insert('test.fills', 'alpha_fills', [
      fillRow({ block: 10, logIndex: 1, maker: addr(0xa) }),
    ]);
    await deps.clickhouse.insert('test.tokens', 'alpha_tokens', [
      {
        chain_id: 137,
        token_id: '1001',
        condition_id: COND,
        outcome_index: 0,
        complement_token_id: '1002',
        neg_risk: false,
        source: 'condition_prepared',
        block_number: 1,
        tx_hash: bytes32(1),
        log_index: 0,
      },
    ]);
    // Created, not started: loading it is its owner's business, not the app's.
    shared = createTokenConditions({ clickhouse: deps.clickhouse, log: deps.log });
    const counting = new Proxy(deps.clickhouse, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (label: unknown, ...rest: unknown[]) => {
          if (typeof label === 'string') labels.push(label);
          return v.call(target, label, ...rest);
        };
      },
    });
    app = await buildApp({ ...deps, clickhouse: counting, secret: TEST_SECRET, tokens: shared });
    key = (await createKeyStore(deps.redis).create({ tier: 'enterprise', name: 'shared-tokens', rate: 1000 }))
      .key;
  });
  afterAll(async () => {
    await app?.close();
    await shared?.stop();
    await deps?.close();
  });

  const trade = async () => {
    const res = await app.inject({ method: 'GET', url: '/v2/alpha/trades', headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().trades[0] as {
      token_id: string;
      condition_id: string | null;
      outcome_index: number | null;
    };
  };

  it('is the map the app reads: nothing of its own is loaded', async () => {
    expect(await trade()).toMatchObject({ token_id: '1001', condition_id: null });
    // The app made no token map of its own (its first load would read alpha_tokens).
    expect(labels.filter((l) => BACKGROUND_READS.test(l) && l.startsWith('api.alpha.tokens'))).toEqual([]);
    expect(shared.size).toBe(0);
  });

  it("serves the market once the map's owner refreshed it", async () => {
    expect(await shared.refresh()).toBeGreaterThan(0);
    expect(await trade()).toMatchObject({ token_id: '1001', condition_id: COND, outcome_index: 0 });
  });
});
