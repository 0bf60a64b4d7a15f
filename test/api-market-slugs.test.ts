/**
 * Market slugs from alpha's catalog (api/queries/alpha/market-slugs.ts, the app's default resolver): a
 * market in `alpha_markets` gives the trades of its condition their `market_slug`, and the `market_slug`
 * filter returns exactly those rows; the open-interest series of its condition names its market id
 * (null without a market row); a market synced later is known after a reload; an unknown slug is an
 * empty page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlphaMarketSlugs } from '../api/queries/alpha/market-slugs.ts';
import type { OpenInterestResponse } from '../schemas/api/alpha-market-data.ts';
import type { Trade } from '../schemas/api/alpha-trades.ts';
import { type ApiTestContext, addr, bytes32, chTime, createApiTestContext, fillRow } from './api-helpers.ts';

const COND_X = bytes32(0xc1);
const COND_Y = bytes32(0xc2);
let t: ApiTestContext;
let key: string;

const market = (id: string, conditionId: string, slug: string) => ({
  id,
  condition_id: conditionId,
  slug,
  content_hash: id,
  observed_at: chTime(1_700_000_000),
});

const token = (tokenId: string, conditionId: string) => ({
  chain_id: 137,
  token_id: tokenId,
  condition_id: conditionId,
  outcome_index: 0,
  complement_token_id: `${tokenId}9`,
  neg_risk: false,
  source: 'condition_prepared',
  block_number: 1,
  tx_hash: bytes32(1),
  log_index: 0,
});

async function trades(query: string): Promise<Trade[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/alpha/trades?${query}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { trades: Trade[] }).trades;
}

beforeAll(async () => {
  t = await createApiTestContext('api_market_slugs');
  key = await t.key('pro');
  await t.deps.clickhouse.insert('test.markets', 'alpha_markets', [market('m1', COND_X, 'will-x-happen')]);
  await t.deps.clickhouse.insert('test.tokens', 'alpha_tokens', [
    token('1001', COND_X),
    token('2002', COND_Y),
  ]);
  const rows = [];
  for (let i = 0; i < 6; i++) {
    rows.push(
      fillRow({
        block: 100 + i,
        logIndex: 1,
        maker: addr(0xa),
        tokenId: i % 2 === 0 ? '1001' : '2002',
        conditionId: i % 2 === 0 ? COND_X : COND_Y,
      }),
    );
  }
  await t.deps.clickhouse.insert('test.fills', 'alpha_fills', rows);
});
afterAll(async () => t?.close());

describe('alpha market slugs from the catalog', () => {
  it("fills the trades' market_slug and filters by it", async () => {
    const all = await trades('limit=50');
    expect(all).toHaveLength(6);
    for (const r of all) expect(r.market_slug).toBe(r.condition_id === COND_X ? 'will-x-happen' : null);
    const x = await trades('market_slug=will-x-happen&limit=50');
    expect(x.map((r) => r.block_number).sort()).toEqual([100, 102, 104]);
    expect(await trades('market_slug=no-such-market')).toEqual([]);
  });

  it("names the condition's market in its open interest series, null when the catalog lacks it", async () => {
    const oi = async (conditionId: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/alpha/markets/${conditionId}/open_interest`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as OpenInterestResponse;
    };
    expect(await oi(COND_X)).toMatchObject({ condition_id: COND_X, market_id: 'm1' });
    // Seen on chain (a token), no market row.
    expect(await oi(COND_Y)).toMatchObject({ condition_id: COND_Y, market_id: null });
  });

  it('knows a market synced later once it reloads', async () => {
    const slugs = createAlphaMarketSlugs(t.deps, { refreshMs: 60_000 });
    try {
      expect(await slugs.conditionIds('will-y-happen')).toEqual([]);
      await t.deps.clickhouse.insert('test.markets', 'alpha_markets', [
        market('m2', COND_Y, 'will-y-happen'),
      ]);
      expect(await slugs.marketId(COND_Y)).toBeNull();
      expect(await slugs.refresh()).toBe(2);
      expect(await slugs.conditionIds('will-y-happen')).toEqual([COND_Y]);
      expect(await slugs.marketId(COND_Y)).toBe('m2');
      expect(await slugs.marketId(COND_X)).toBe('m1');
      expect(await slugs.marketId(bytes32(0xc3))).toBeNull();
      expect(await slugs.slugs([COND_X, COND_Y, bytes32(0xc3)])).toEqual(
        new Map([
          [COND_X, 'will-x-happen'],
          [COND_Y, 'will-y-happen'],
        ]),
      );
    } finally {
      slugs.close();
    }
  });
});
