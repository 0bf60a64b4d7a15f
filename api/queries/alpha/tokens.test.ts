import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { createTestDeps, type TestDeps } from '../../../test/support/deps.ts';
import { createTokenConditions, type TokenConditions } from './tokens.ts';

const cond = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

let deps: TestDeps;
/** Labels of the reads the map ran (the real engine answers them: this only records). */
let reads: string[];
let clickhouse: ClickHouse;
const maps: TokenConditions[] = [];

function tokenRow(o: { token: string; condition: string; outcome: number; block: number; log?: number }) {
  return {
    chain_id: 137,
    token_id: o.token,
    condition_id: o.condition,
    outcome_index: o.outcome,
    complement_token_id: '',
    neg_risk: false,
    source: o.outcome < 0 ? 'token_registered' : 'condition_prepared',
    block_number: o.block,
    tx_hash: cond(o.block),
    log_index: o.log ?? 0,
  };
}

const insert = (rows: ReturnType<typeof tokenRow>[]) =>
  deps.clickhouse.insert('test.tokens', 'alpha_tokens', rows);

function map(o: { refreshMs?: number; maxTokens?: number; batchRows?: number } = {}) {
  const m = createTokenConditions({ clickhouse, log: deps.log, refreshMs: 60_000, ...o });
  maps.push(m);
  return m;
}

beforeAll(async () => {
  deps = await createTestDeps('api_tokens');
  clickhouse = {
    ...deps.clickhouse,
    read: (label, sql, params) => {
      reads.push(label);
      return deps.clickhouse.read(label, sql, params);
    },
  };
});
beforeEach(async () => {
  await Promise.all(maps.splice(0).map((m) => m.stop()));
  await deps.clickhouse.command('test.truncate', 'TRUNCATE TABLE alpha_tokens');
  reads = [];
});
afterAll(async () => {
  await Promise.all(maps.map((m) => m.stop()));
  await deps?.close();
});

describe('token map', () => {
  it('knows a token inserted after start once a refresh ran, and answers get() without a query', async () => {
    await insert([tokenRow({ token: '11', condition: cond(1), outcome: 0, block: 5 })]);
    const m = map();
    await m.start();
    expect(m.get('11')).toEqual({ conditionId: cond(1), outcomeIndex: 0 });
    await insert([
      tokenRow({ token: '21', condition: cond(2), outcome: 0, block: 9, log: 3 }),
      tokenRow({ token: '22', condition: cond(2), outcome: 1, block: 9, log: 3 }),
    ]);
    reads = [];
    for (let i = 0; i < 100; i++) expect(m.get('21')).toBeUndefined();
    expect(reads).toEqual([]);
    expect(await m.refresh()).toBeGreaterThanOrEqual(2);
    expect(m.get('21')).toEqual({ conditionId: cond(2), outcomeIndex: 0 });
    expect(m.get('22')).toEqual({ conditionId: cond(2), outcomeIndex: 1 });
    expect(m.get('11')).toEqual({ conditionId: cond(1), outcomeIndex: 0 });
    expect(m.size).toBe(3);
  });

  it('reads only the parts list when the table did not change', async () => {
    await insert([tokenRow({ token: '11', condition: cond(1), outcome: 0, block: 5 })]);
    const m = map();
    await m.start();
    reads = [];
    expect(await m.refresh()).toBe(0);
    expect(reads).toEqual(['api.alpha.tokens.parts']);
  });

  it('picks up a new token in the background within the refresh period', async () => {
    const m = map({ refreshMs: 50 });
    await m.start();
    await insert([tokenRow({ token: '31', condition: cond(3), outcome: 1, block: 12 })]);
    await vi.waitFor(() => expect(m.get('31')).toEqual({ conditionId: cond(3), outcomeIndex: 1 }), {
      timeout: 5000,
      interval: 25,
    });
  });

  it("keeps a derived outcome index over a registration's -1, whichever arrives first", async () => {
    await insert([
      tokenRow({ token: '41', condition: cond(4), outcome: -1, block: 3 }),
      tokenRow({ token: '41', condition: cond(4), outcome: 0, block: 4 }),
      tokenRow({ token: '42', condition: cond(4), outcome: 1, block: 3 }),
      tokenRow({ token: '42', condition: cond(4), outcome: -1, block: 4 }),
    ]);
    const m = map();
    await m.start();
    expect(m.get('41')).toEqual({ conditionId: cond(4), outcomeIndex: 0 });
    expect(m.get('42')).toEqual({ conditionId: cond(4), outcomeIndex: 1 });
  });

  it('reads again rows a reorg rewrote below the newest block it had seen', async () => {
    await insert([tokenRow({ token: '51', condition: cond(5), outcome: 0, block: 500 })]);
    const m = map();
    await m.start();
    await insert([tokenRow({ token: '52', condition: cond(5), outcome: 1, block: 450 })]);
    await m.refresh();
    expect(m.get('52')).toEqual({ conditionId: cond(5), outcomeIndex: 1 });
  });

  it('catches up in batches and keeps at most maxTokens, dropping the oldest', async () => {
    await insert(
      Array.from({ length: 25 }, (_, i) =>
        tokenRow({
          token: String(1000 + i),
          condition: cond(100 + Math.floor(i / 2)),
          outcome: i % 2,
          block: i + 1,
        }),
      ),
    );
    const m = map({ maxTokens: 10, batchRows: 7 });
    await m.start();
    expect(reads.filter((l) => l === 'api.alpha.tokens.refresh')).toHaveLength(4);
    expect(m.size).toBeLessThanOrEqual(10);
    expect(m.get('1000')).toBeUndefined();
    expect(m.get('1024')).toEqual({ conditionId: cond(112), outcomeIndex: 0 });
    expect(m.get('1023')).toEqual({ conditionId: cond(111), outcomeIndex: 1 });
    for (let i = 0; i < 25; i++) {
      const known = m.get(String(1000 + i));
      if (known) expect(known).toEqual({ conditionId: cond(100 + Math.floor(i / 2)), outcomeIndex: i % 2 });
    }
  });
});
