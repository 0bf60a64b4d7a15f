import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activity } from '../schemas/api/alpha-activity.ts';
import { type ApiTestContext, addr, bytes32, chTime, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;

const U = addr(0x51);
const V = addr(0x52);
const COND = bytes32(0xc0);
const NR_MARKET = bytes32(0x4e);

function activityRow(o: {
  block: number;
  logIndex: number;
  wallet: string;
  type: 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERT';
  amount?: number;
}) {
  const convert = o.type === 'CONVERT';
  return {
    chain_id: 137,
    block_number: o.block,
    block_hash: bytes32(o.block),
    block_time: chTime(1_700_000_000 + o.block * 2),
    tx_hash: bytes32(o.block * 100 + o.logIndex),
    log_index: o.logIndex,
    type: o.type,
    version: 1,
    neg_risk: convert,
    wallet: o.wallet,
    stakeholder: o.wallet,
    contract: addr(0x4d97),
    condition_id: convert ? null : COND,
    market_id: convert ? null : COND,
    neg_risk_market_id: convert ? NR_MARKET : null,
    index_set: convert ? '5' : null,
    collateral_token: convert ? '' : addr(0x2791),
    partition: o.type === 'SPLIT' || o.type === 'MERGE' ? ['1', '2'] : [],
    amounts: [],
    amount: o.amount ?? 10_000_000,
    payout: o.type === 'REDEEM' ? (o.amount ?? 10_000_000) : 0,
    status: 'confirmed',
  };
}

beforeAll(async () => {
  t = await createApiTestContext('api_activity');
  key = await t.key('pro');
  const types = ['SPLIT', 'MERGE', 'REDEEM', 'CONVERT'] as const;
  const rows = [];
  for (let i = 0; i < 40; i++)
    rows.push(activityRow({ block: 10 + i, logIndex: 3, wallet: U, type: types[i % 4]! }));
  for (let i = 0; i < 12; i++)
    rows.push(activityRow({ block: 10 + i, logIndex: 7, wallet: V, type: 'SPLIT' }));
  await t.deps.clickhouse.insert('test.activity', 'alpha_activity', rows);
});
afterAll(async () => t?.close());

async function page(query: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/alpha/activity?${query}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    activity: Activity[];
    pagination: { pagination_key: string | null; has_more: boolean };
  };
}

describe('GET /v2/alpha/activity', () => {
  it('serves SPLIT, MERGE, REDEEM and CONVERT rows newest first', async () => {
    const p = await page(`wallet=${U}&limit=8`);
    expect(p.activity.map((a) => a.type)).toEqual([
      'CONVERT',
      'REDEEM',
      'MERGE',
      'SPLIT',
      'CONVERT',
      'REDEEM',
      'MERGE',
      'SPLIT',
    ]);
    expect(p.activity[0]!.block_number).toBe(49);
  });

  it('puts neg_risk_market_id and index_set on CONVERT rows, with null market_id and condition_id', async () => {
    const p = await page(`wallet=${U}&type=CONVERT&limit=200`);
    expect(p.activity).toHaveLength(10);
    for (const a of p.activity) {
      expect(a).toMatchObject({
        type: 'CONVERT',
        market_id: null,
        condition_id: null,
        neg_risk_market_id: NR_MARKET,
        index_set: '5',
      });
    }
    const others = await page(`wallet=${U}&type=split,merge,REDEEM&limit=200`);
    expect(others.activity).toHaveLength(30);
    for (const a of others.activity) {
      expect(a).toMatchObject({
        market_id: COND,
        condition_id: COND,
        neg_risk_market_id: null,
        index_set: null,
      });
    }
    const redeem = others.activity.find((a) => a.type === 'REDEEM')!;
    expect(redeem).toMatchObject({ amount: 10, payout: 10 });
  });

  it('pages through a merged wallet feed exactly once, and the wallet order does not change the keys', async () => {
    const seen: string[] = [];
    let q = `wallet=${U},${V}&limit=9`;
    let first: string | null = null;
    for (;;) {
      const p = await page(q);
      first ??= p.pagination.pagination_key;
      seen.push(...p.activity.map((a) => `${a.tx_hash}:${a.log_index}`));
      if (!p.pagination.has_more) break;
      q = `wallet=${U},${V}&limit=9&pagination_key=${encodeURIComponent(p.pagination.pagination_key!)}`;
    }
    expect(seen).toHaveLength(52);
    expect(new Set(seen).size).toBe(52);
    expect((await page(`wallet=${V},${U},${V}&limit=9`)).pagination.pagination_key).toBe(first);
  });

  it('filters by neg_risk_market_id, condition_id and time, and gives an empty page for an unknown slug', async () => {
    expect((await page(`neg_risk_market_id=${NR_MARKET}&limit=200`)).activity).toHaveLength(10);
    expect((await page(`condition_id=${COND}&wallet=${V}&limit=200`)).activity).toHaveLength(12);
    const range = await page(`wallet=${V}&start_time=${1_700_000_000 + 20}&end_time=${1_700_000_000 + 24}`);
    expect(range.activity.map((a) => a.block_number)).toEqual([12, 11, 10]);
    const slug = await page('market_slug=not-known-yet');
    expect(slug).toEqual({
      activity: [],
      pagination: { limit: 50, count: 0, pagination_key: null, has_more: false },
    });
  });

  it('answers an unknown type with 422 at query.type, and bad wallets or hashes with 400', async () => {
    const get = (q: string) =>
      t.app.inject({ method: 'GET', url: `/v2/alpha/activity?${q}`, headers: { 'x-api-key': key } });
    const badType = await get('type=SPLIT,TRADE');
    expect(badType.statusCode).toBe(422);
    expect(badType.json().detail[0]).toMatchObject({ loc: ['query', 'type'], type: 'enum' });
    const badWallet = await get('wallet=0xnothex');
    expect(badWallet.statusCode).toBe(400);
    expect(badWallet.json().message).toContain('0xnothex');
    expect((await get('tx_hash=0x12')).statusCode).toBe(400);
    const p = await page(`wallet=${U}&limit=5`);
    const reused = await get(
      `wallet=${V}&limit=5&pagination_key=${encodeURIComponent(p.pagination.pagination_key!)}`,
    );
    expect(reused.statusCode).toBe(400);
  });
});
