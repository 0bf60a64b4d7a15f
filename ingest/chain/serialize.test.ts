import { describe, expect, it } from 'vitest';
import { ByteWriter, enum8 } from '../../core/clickhouse/row-binary.ts';
import { ALPHA_BLOCKS, ALPHA_TOKEN_TRANSFERS, QUARANTINE } from '../../schemas/tables/alpha-chain.ts';
import { alphaFormatOf as formatOf } from '../venues/alpha/chain/tables.ts';
import { RowBatch, serializeRows } from './serialize.ts';

const key = {
  chain_id: 137,
  block_number: 12,
  block_hash: `0x${'ab'.repeat(32)}`,
  block_time: 1_700_000_000_000,
  tx_hash: `0x${'cd'.repeat(32)}`,
  log_index: 3,
  status: 'pending',
};

const hex = (b: Buffer) => b.toString('hex');

describe('RowBinary writer', () => {
  it('writes integers little-endian, UInt64 exact from numbers and decimal strings', () => {
    const w = new ByteWriter(4);
    w.u32(0x01020304);
    w.u64(0);
    w.u64(2 ** 32);
    w.u64(Number.MAX_SAFE_INTEGER);
    w.u64('18446744073709551615');
    w.u64('9007199254740993');
    w.dateTime64ms(1_700_000_000_007);
    w.i8(-1);
    w.bool(true);
    expect(hex(w.take())).toBe(
      [
        '04030201',
        '0000000000000000',
        '0000000001000000',
        'ffffffffffff1f00',
        'ffffffffffffffff',
        '0100000000002000',
        '0768e5cf8b010000',
        'ff',
        '01',
      ].join(''),
    );
  });

  it('refuses values outside the column type', () => {
    const w = new ByteWriter();
    expect(() => w.u64('18446744073709551616')).toThrow(RangeError);
    expect(() => w.u64(-1)).toThrow(RangeError);
    expect(() => w.u64(1.5)).toThrow();
    expect(() => w.u32(2 ** 32)).toThrow(RangeError);
    expect(() => w.dateTime64ms(-1)).toThrow(RangeError);
    const side = enum8('side', { BUY: 1, SELL: 2 });
    expect(() => side(w, 'HOLD')).toThrow(/side: HOLD is not one of BUY, SELL/);
    side(w, 'SELL');
    expect(hex(w.take())).toBe('02');
  });

  it('reuses a given-back buffer for a later batch, and only its own', () => {
    const w = new ByteWriter(64);
    w.ascii('first batch');
    const first = w.take();
    expect(first.toString('latin1', 1)).toBe('first batch');
    w.recycle(first);
    w.ascii('second');
    const second = w.take();
    // The same memory, now holding the second batch.
    expect(second.buffer).toBe(first.buffer);
    expect(second.toString('latin1', 1)).toBe('second');
    // A buffer it did not allocate (here a view of the shared small-buffer pool) is never taken in.
    const foreign = Buffer.from('not mine');
    w.recycle(foreign);
    w.ascii('third');
    expect(w.take().buffer).not.toBe(foreign.buffer);
    // Pieces of a counted string: the length prefix first, then raw text and lowercased bytes.
    w.stringOf(7);
    w.rawAscii('0x');
    w.rawLower(Buffer.from('xxAbCdEx'), 2, 7);
    expect(hex(w.take())).toBe(hex(Buffer.from('\x070xabcde', 'latin1')));
  });

  it('prefixes strings with their byte length as a varint; text as UTF-8', () => {
    const w = new ByteWriter(1);
    w.ascii('0xab');
    w.ascii('');
    w.ascii('a'.repeat(128));
    w.str('pUSD ✓');
    w.str('x'.repeat(300));
    const b = w.take();
    expect(hex(b.subarray(0, 6))).toBe(`04${Buffer.from('0xab').toString('hex')}00`);
    expect(hex(b.subarray(6, 8))).toBe('8001');
    expect(b.subarray(8, 136).toString()).toBe('a'.repeat(128));
    expect(b[136]).toBe(8);
    expect(b.subarray(137, 145).toString('utf8')).toBe('pUSD ✓');
    expect(hex(b.subarray(145, 147))).toBe('ac02');
    expect(b.length).toBe(147 + 300);
  });
  it('copies ASCII bytes as a String with letters lowercased, optionally after 0x', () => {
    // Every byte value 0x20..0x7e, so the table's boundaries (@ A Z [ ` a z {) are all covered.
    const text = Array.from({ length: 0x5f }, (_, k) => String.fromCharCode(0x20 + k)).join('');
    const src = Buffer.from(`..${text}..`, 'latin1');
    const w = new ByteWriter(4);
    w.lowerBytes(src, 2, 2 + text.length);
    w.lowerBytes(Buffer.from('AbCdEf09', 'latin1'), 0, 8, true);
    const out = w.take();
    expect(out[0]).toBe(text.length);
    expect(out.toString('latin1', 1, 1 + text.length)).toBe(text.toLowerCase());
    expect(hex(out.subarray(1 + text.length, 2 + text.length))).toBe('0a');
    expect(out.toString('latin1', 2 + text.length)).toBe('0xabcdef09');
  });

  it('lowercases every byte value at every alignment as a byte-by-byte table would', () => {
    // Bytes 0..255 in every position of a 4-byte word, with words read from any offset (the writer
    // lowers four bytes at a time): only 'A'..'Z' change, by 0x20.
    const all = Buffer.from(Array.from({ length: 256 * 5 }, (_, k) => (k * 37 + (k >> 8)) & 0xff));
    const lowered = (c: number) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
    for (let offset = 0; offset < 4; offset++) {
      for (const length of [0, 1, 3, 4, 5, 66, 256 * 5 - 4]) {
        const w = new ByteWriter(3);
        w.u8(7);
        w.bool(false);
        w.stringOf(length);
        w.rawLower(all, offset, offset + length);
        w.lowerBytes(all, offset, offset + length);
        const out = w.take();
        const want = Buffer.from(Array.from(all.subarray(offset, offset + length), lowered));
        const head = 2 + (length >= 128 ? 2 : 1);
        expect(out.subarray(head, head + length).equals(want)).toBe(true);
        expect(out.subarray(out.length - length).equals(want)).toBe(true);
      }
    }
  });
});

describe('row batches', () => {
  it('the hot tables are RowBinary, the others JSON lines that escape whatever they hold', () => {
    for (const t of [
      'alpha_fills',
      'alpha_token_transfers',
      'alpha_collateral',
      'alpha_exchange_events',
      'alpha_blocks',
    ] as const)
      expect(formatOf(t)).toBe('RowBinary');
    expect(formatOf('alpha_lifecycle')).toBe('JSONCompactEachRow');
    expect(
      serializeRows(QUARANTINE, 'JSONCompactEachRow', [
        { source: 's', kind: 'k', record_id: 'r', reason: 'x"y', payload: '{}' },
      ]).toString(),
    ).toBe('["s","k","r","x\\"y","{}"]\n');
  });

  it('a row batch grows and hands over its bytes', () => {
    const batch = new RowBatch(ALPHA_BLOCKS, 'RowBinary', 16);
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
    const one = `89000000${'0500000000000000'}04${Buffer.from('0xaa').toString('hex')}04${Buffer.from('0xbb').toString('hex')}0768e5cf8b010000`;
    expect(hex(body)).toBe(one.repeat(100));
    expect(batch.rows).toBe(0);
    expect(batch.take().body.length).toBe(0);
  });

  it('a row a RowBinary encoder cannot write fails loudly', () => {
    const batch = new RowBatch(ALPHA_TOKEN_TRANSFERS, 'RowBinary');
    expect(() =>
      batch.append({
        ...key,
        batch_index: 0,
        operator: '0x1',
        from_address: '0x2',
        to_address: '0x3',
        token_id: '1',
        amount: '18446744073709551616',
      }),
    ).toThrow(RangeError);
  });
});
