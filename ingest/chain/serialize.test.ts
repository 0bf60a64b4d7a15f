import { describe, expect, it } from 'vitest';
import { COLUMNS, compactLines } from './serialize.ts';

const key = {
  chain_id: 137,
  block_number: 12,
  block_hash: `0x${'ab'.repeat(32)}`,
  block_time: 1_700_000_000_000,
  tx_hash: `0x${'cd'.repeat(32)}`,
  log_index: 3,
  status: 'pending',
};

function generic(table: keyof typeof COLUMNS, row: Record<string, unknown>): string {
  return `${JSON.stringify(COLUMNS[table].map((c) => row[c]))}\n`;
}

describe('compact row serialization', () => {
  it('hand-written lines of the hot tables equal JSON.stringify of the column values', () => {
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
    expect(compactLines('alpha_fills', [fill])).toBe(generic('alpha_fills', fill));
    const transfer = {
      ...key,
      batch_index: 2,
      operator: '0x01',
      from_address: '0x02',
      to_address: '0x03',
      token_id: '7',
      amount: 42,
    };
    expect(compactLines('alpha_token_transfers', [transfer])).toBe(
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
    expect(compactLines('alpha_collateral', [collateral, collateral])).toBe(
      generic('alpha_collateral', collateral).repeat(2),
    );
  });
});
