/**
 * The RowBinary encoders against the migrated tables (real chDB, or the server at CLICKHOUSE_URL): rows
 * with edge values (UInt64 max, Int8 −1, every enum value, empty strings, non-ASCII text, long
 * strings) go through the chain writer and read back equal, column by column. A wrong column order,
 * type width or enum code would shift or change what the engine reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainWriter } from '../ingest/chain/writer.ts';
import type { RowSet } from '../ingest/venues/alpha/chain/rows.ts';
import { ALPHA_CHAIN_WRITES, COLUMNS } from '../ingest/venues/alpha/chain/tables.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const U64_MAX = '18446744073709551615';
const h = (byte: string) => `0x${byte.repeat(32)}`;
const a = (byte: string) => `0x${byte.repeat(20)}`;

function key(block: number, logIndex: number, status: 'pending' | 'confirmed') {
  return {
    chain_id: 137,
    block_number: block,
    block_hash: h('ab'),
    block_time: 1_700_000_000_007 + block,
    tx_hash: h('cd'),
    log_index: logIndex,
    status,
  };
}

const fills = [
  {
    ...key(1, 0, 'pending'),
    exchange: a('e1'),
    exchange_version: 2,
    neg_risk: true,
    order_hash: h('01'),
    maker: a('aa'),
    taker: a('bb'),
    role: 'maker',
    side: 'SELL',
    token_id: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    condition_id: '',
    outcome_index: -1,
    maker_amount: U64_MAX,
    taker_amount: 3,
    shares: U64_MAX,
    usd: 3,
    fee: 0,
    fee_asset: 'collateral',
    builder: h('b1'),
    metadata: '',
  },
  {
    ...key(2, 7, 'confirmed'),
    exchange: a('4b'),
    exchange_version: 1,
    neg_risk: false,
    order_hash: h('02'),
    maker: a('cc'),
    taker: a('4b'),
    role: 'taker',
    side: 'BUY',
    token_id: '7',
    condition_id: h('0c'),
    outcome_index: 1,
    maker_amount: 2 ** 53 - 1,
    taker_amount: 2 ** 32,
    shares: 2 ** 32,
    usd: 2 ** 53 - 1,
    fee: 12,
    fee_asset: 'shares',
    builder: '',
    metadata: h('3e'),
  },
];

const transfers = [
  {
    ...key(3, 1, 'pending'),
    batch_index: 0,
    operator: a('01'),
    from_address: a('00'),
    to_address: a('02'),
    token_id: '9'.repeat(77),
    amount: U64_MAX,
  },
  {
    ...key(3, 2, 'confirmed'),
    batch_index: 4_000_000_000,
    operator: a('03'),
    from_address: a('04'),
    to_address: a('00'),
    token_id: '1',
    amount: 0,
  },
];

const collateral = ['transfer', 'wrap', 'unwrap'].map((kind, i) => ({
  ...key(4, i, i === 0 ? 'pending' : 'confirmed'),
  kind,
  token: a('c0'),
  symbol: i === 2 ? 'pUSD ✓ 𝛑' : 'USDC.e',
  from_address: i === 1 ? '' : a('05'),
  to_address: a('06'),
  caller: i === 0 ? '' : a('07'),
  asset: i === 0 ? '' : a('08'),
  amount: i === 0 ? U64_MAX : 1_000_000 * (i + 1),
}));

const exchangeEvents = [
  {
    ...key(5, 0, 'confirmed'),
    kind: 'orders_matched',
    contract: a('e1'),
    exchange_version: 2,
    neg_risk: true,
    order_hash: h('05'),
    account: a('09'),
    token_id: '5',
    amount: U64_MAX,
    args: JSON.stringify({ note: 'tab\there, newline\n, quote " and ünïcödé', long: 'x'.repeat(300) }),
  },
  {
    ...key(5, 1, 'pending'),
    kind: 'fee_charged',
    contract: a('4b'),
    exchange_version: 1,
    neg_risk: false,
    order_hash: '',
    account: '',
    token_id: '',
    amount: 0,
    args: '{}',
  },
];

const split = {
  ...key(6, 0, 'pending'),
  type: 'SPLIT',
  version: 1,
  neg_risk: false,
  wallet: a('0a'),
  stakeholder: a('0a'),
  contract: a('4d'),
  condition_id: h('0c') as string | null,
  market_id: h('0c') as string | null,
  neg_risk_market_id: null as string | null,
  index_set: null as string | null,
  collateral_token: a('2a'),
  partition: ['1', '2'],
  amounts: [] as (number | string)[],
  amount: U64_MAX as number | string,
  payout: 0 as number | string,
};

const supply = [
  {
    ...key(8, 0, 'pending'),
    kind: 'split',
    contract: a('4d'),
    stakeholder: a('e1'),
    condition_id: h('0c') as string | null,
    collateral_token: a('2a'),
    amount: U64_MAX as number | string,
    payout: 0 as number | string,
    neg_risk_market_id: null as string | null,
    index_set: null as string | null,
  },
  {
    ...key(8, 1, 'confirmed'),
    kind: 'convert',
    contract: a('d9'),
    stakeholder: a('0b'),
    condition_id: null,
    collateral_token: '',
    amount: 2 ** 53 - 1,
    payout: 0,
    neg_risk_market_id: h('0e'),
    index_set: '5',
  },
  ...(['merge', 'redeem'] as const).map((kind, i) => ({
    ...key(9, i, 'confirmed'),
    kind,
    contract: a('4d'),
    stakeholder: a('0f'),
    condition_id: h('0d'),
    collateral_token: a('3a'),
    amount: i === 0 ? 5 : 0,
    payout: i === 0 ? 0 : '9007199254740993',
    neg_risk_market_id: null,
    index_set: null,
  })),
];

const activity = [
  split,
  {
    ...split,
    ...key(6, 1, 'confirmed'),
    type: 'CONVERT',
    version: 2,
    neg_risk: true,
    wallet: a('0b'),
    stakeholder: a('0d'),
    contract: a('d9'),
    condition_id: null,
    market_id: null,
    neg_risk_market_id: h('0e'),
    index_set: '5',
    collateral_token: '',
    partition: [],
    amounts: [U64_MAX, 0, 2 ** 53 - 1],
    amount: 7,
    payout: '9007199254740993',
  },
  ...(['MERGE', 'REDEEM'] as const).map((type, i) => ({
    ...split,
    ...key(7, i, 'confirmed'),
    type,
    neg_risk: i === 1,
    wallet: a('0f'),
    stakeholder: a('0f'),
    partition: ['1'.repeat(80), '2'],
    amounts: ['5'],
    amount: 5,
    payout: i,
  })),
];

const blocks = [
  { number: 1, hash: h('ab'), parentHash: h('aa'), timestampMs: 1_700_000_000_000 },
  { number: 2 ** 40, hash: h('ac'), parentHash: h('ab'), timestampMs: 4_102_444_800_999 },
];

/**
 * Every value as text, as the engine's toString gives it: times as epoch ms (read with
 * toUnixTimestamp64Milli), null as null, arrays as ['a','b'] / [1,2].
 */
function asText(row: Record<string, unknown>, columns: readonly string[]): (string | null)[] {
  return columns.map((c) => {
    const v = row[c];
    if (v === null) return null;
    if (Array.isArray(v))
      return `[${v.map((x) => (typeof x === 'string' && c === 'partition' ? `'${x}'` : String(x))).join(',')}]`;
    return String(v);
  });
}

describe('RowBinary inserts of the hot tables', () => {
  let deps: TestDeps;

  beforeAll(async () => {
    deps = await createTestDeps('chain_row_binary');
  });
  afterAll(async () => {
    await deps?.close();
  });

  async function readBack(table: string, timeColumn: string, order: string): Promise<(string | null)[][]> {
    const cols = COLUMNS[table as keyof typeof COLUMNS];
    const select = cols
      .map((c) =>
        c === timeColumn ? `toString(toUnixTimestamp64Milli(${c})) AS ${c}` : `toString(${c}) AS ${c}`,
      )
      .join(', ');
    const rows = await deps.clickhouse.query<Record<string, unknown>>(
      'test.read',
      `SELECT ${select} FROM ${table} ORDER BY ${order}`,
    );
    return rows.map((r) => asText(r, cols));
  }

  it('every column reads back as written', async () => {
    const writer = createChainWriter({
      tables: ALPHA_CHAIN_WRITES,
      clickhouse: deps.clickhouse,
      log: deps.log,
      chainId: 137,
      batchRows: 2,
    });
    const rows = {
      alpha_fills: fills,
      alpha_token_transfers: transfers,
      alpha_collateral: collateral,
      alpha_exchange_events: exchangeEvents,
      alpha_activity: activity,
      alpha_ctf_supply: supply,
      alpha_lifecycle: [],
      alpha_oracle: [],
      alpha_tokens: [],
      alpha_neg_risk_markets: [],
    } as unknown as RowSet;
    await writer.add(rows);
    await writer.addBlocks(blocks);
    await writer.flush();

    expect(await readBack('alpha_fills', 'block_time', 'block_number')).toEqual(
      fills.map((r) => asText(r, COLUMNS.alpha_fills)),
    );
    expect(await readBack('alpha_activity', 'block_time', 'block_number, log_index')).toEqual(
      activity.map((r) => asText(r, COLUMNS.alpha_activity)),
    );
    expect(await readBack('alpha_ctf_supply', 'block_time', 'block_number, log_index')).toEqual(
      supply.map((r) => asText(r, COLUMNS.alpha_ctf_supply)),
    );
    expect(await readBack('alpha_token_transfers', 'block_time', 'log_index')).toEqual(
      transfers.map((r) => asText(r, COLUMNS.alpha_token_transfers)),
    );
    expect(await readBack('alpha_collateral', 'block_time', 'log_index')).toEqual(
      collateral.map((r) => asText(r, COLUMNS.alpha_collateral)),
    );
    expect(await readBack('alpha_exchange_events', 'block_time', 'log_index')).toEqual(
      exchangeEvents.map((r) => asText(r, COLUMNS.alpha_exchange_events)),
    );
    expect(await readBack('alpha_blocks', 'timestamp', 'number')).toEqual(
      blocks.map((b) =>
        asText(
          {
            chain_id: 137,
            number: b.number,
            hash: b.hash,
            parent_hash: b.parentHash,
            timestamp: b.timestampMs,
          },
          COLUMNS.alpha_blocks,
        ),
      ),
    );
    // The engine derives price from the exact pair; the hash lookup view saw the RowBinary insert too.
    const derived = await deps.clickhouse.query<{ price: number; hashes: string }>(
      'test.derived',
      `SELECT price, (SELECT count() FROM alpha_fill_hashes) AS hashes FROM alpha_fills ORDER BY block_number`,
    );
    expect(derived.map((r) => r.price)).toEqual([3 / Number(U64_MAX), (2 ** 53 - 1) / 2 ** 32]);
    expect(Number(derived[0]?.hashes)).toBe(4);
  });

  it('a batch the engine refuses fails the flush, and no temporary file is left behind', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const files = () =>
      fs
        .readdirSync(os.tmpdir())
        .filter((d) => d.startsWith(`pmdata-insert-${process.pid}-`))
        .flatMap((d) => fs.readdirSync(`${os.tmpdir()}/${d}`));
    const writer = createChainWriter({
      tables: ALPHA_CHAIN_WRITES,
      clickhouse: deps.clickhouse,
      log: deps.log,
      chainId: 137,
    });
    await deps.clickhouse.command('test.rename', 'RENAME TABLE alpha_blocks TO alpha_blocks_away');
    try {
      await writer.addBlocks(blocks);
      await expect(writer.flush()).rejects.toThrow(/alpha_blocks/);
    } finally {
      await deps.clickhouse.command('test.rename', 'RENAME TABLE alpha_blocks_away TO alpha_blocks');
    }
    expect(files()).toEqual([]);
  });
});
