import { describe, expect, it } from 'vitest';
import { COLUMNS, formatOf, RowBatch, serializeRows, tsvString } from './serialize.ts';

const key = {
  chain_id: 137,
  block_number: 12,
  block_hash: `0x${'ab'.repeat(32)}`,
  block_time: 1_700_000_000_000,
  tx_hash: `0x${'cd'.repeat(32)}`,
  log_index: 3,
  status: 'pending',
};

/** Reference TSV line: every value in COLUMNS order, booleans and numbers as text, time as s.mmm. */
function generic(table: keyof typeof COLUMNS, row: Record<string, unknown>): string {
  const cell = (c: string, v: unknown) =>
    c === 'block_time' || c === 'timestamp' ? ((v as number) / 1000).toFixed(3) : String(v);
  return `${COLUMNS[table].map((c) => cell(c, row[c])).join('\t')}\n`;
}

describe('row serialization', () => {
  it('TSV lines of the hot tables hold every column in order, U64 amounts exact', () => {
    const fill = {
      ...key,
      exchange: '0xe111180000d2663c0091e4f400237545b87b996b',
      exchange_version: 2,
      neg_risk: true,
      order_hash: `0x${'01'.repeat(32)}`,
      maker: '0x00000000000000000000000000000000000000aa',
      taker: '0x00000000000000000000000000000000000000bb',
      role: 'maker',
      side: 'SELL',
      token_id: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      condition_id: '',
      outcome_index: -1,
      maker_amount: '18446744073709551615',
      taker_amount: 3,
      shares: '18446744073709551615',
      usd: 3,
      price: 1.6263032587282567e-19,
      fee: 0,
      fee_asset: 'collateral',
      builder: `0x${'b1'.repeat(32)}`,
      metadata: '',
    };
    // U64 above 2^53 travels as a quoted decimal, which JSONCompactEachRow accepts for UInt64.
    expect(serializeRows('alpha_fills', [fill])).toBe(generic('alpha_fills', fill));
    const transfer = {
      ...key,
      batch_index: 2,
      operator: '0x01',
      from_address: '0x02',
      to_address: '0x03',
      token_id: '7',
      amount: 42,
    };
    expect(serializeRows('alpha_token_transfers', [transfer])).toBe(
      generic('alpha_token_transfers', transfer),
    );
    const collateral = {
      ...key,
      kind: 'wrap',
      token: '0x04',
      symbol: 'pUSD',
      from_address: '',
      to_address: '0x05',
      caller: '0x06',
      asset: '0x07',
      amount: 9,
    };
    expect(serializeRows('alpha_collateral', [collateral, collateral])).toBe(
      generic('alpha_collateral', collateral).repeat(2),
    );
    const matched = {
      ...key,
      kind: 'orders_matched',
      contract: '0xe111180000d2663c0091e4f400237545b87b996b',
      exchange_version: 2,
      neg_risk: false,
      order_hash: `0x${'02'.repeat(32)}`,
      account: '0x08',
      token_id: '5',
      amount: '18446744073709551615',
      args: '{"side":0,"tokenId":"5"}',
    };
    expect(formatOf('alpha_exchange_events')).toBe('TabSeparated');
    expect(serializeRows('alpha_exchange_events', [matched])).toBe(generic('alpha_exchange_events', matched));
    // A backslash in JSON text is escaped for TSV (the engine reads the JSON back unchanged).
    expect(serializeRows('alpha_exchange_events', [{ ...matched, args: '{"a":"\\n"}' }])).toContain(
      '\t{"a":"\\\\n"}\t',
    );
  });

  it('escapes free text in TSV and keeps JSON for the other tables', () => {
    expect(tsvString('a\tb\\c\nd')).toBe('a\\tb\\\\c\\nd');
    expect(formatOf('alpha_fills')).toBe('TabSeparated');
    expect(formatOf('alpha_lifecycle')).toBe('JSONCompactEachRow');
    expect(
      serializeRows('quarantine', [{ source: 's', kind: 'k', record_id: 'r', reason: 'x"y', payload: '{}' }]),
    ).toBe('["s","k","r","x\\"y","{}"]\n');
  });

  it('a row batch grows and hands over its bytes', () => {
    const batch = new RowBatch('alpha_blocks', 16);
    const block = {
      chain_id: 137,
      number: 5,
      hash: '0xaa',
      parent_hash: '0xbb',
      timestamp: 1_700_000_000_007,
    };
    for (let i = 0; i < 100; i++) batch.append(block);
    const { rows, body } = batch.take();
    expect(rows).toBe(100);
    expect(Buffer.from(body).toString()).toBe('137\t5\t0xaa\t0xbb\t1700000000.007\n'.repeat(100));
    expect(batch.rows).toBe(0);
  });
});
