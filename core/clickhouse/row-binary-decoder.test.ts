/**
 * `rowBinaryDecoder` reads back what `rowBinaryEncoder` writes: every chain table with a RowBinary
 * encoder, rows of edge values (UInt64 at and past 2^53, empty and multi-byte text, nulls, every enum
 * name), several rows in one buffer, deep-equal to the rows encoded.
 */
import { describe, expect, it } from 'vitest';
import { ALPHA_CHAIN_TABLES } from '../../schemas/tables/alpha-chain.ts';
import { ByteReader, ByteWriter } from './row-binary.ts';
import { type Column, rowBinaryDecoder, rowBinaryEncoder, type TableDescription } from './table.ts';

/** Values of a column kind, by its ByteWriter method, for row `k` (rows differ in every column). */
function sampleOf(kind: Column, k: number): unknown {
  switch (kind.write) {
    case 'u8':
      return [1, 2, 0, 255][k % 4];
    case 'i8':
      return [-1, 0, 1, 127, -128][k % 5];
    case 'bool':
      return k % 2 === 0;
    case 'u32':
      return [0, 7, 4_294_967_295, 65_536][k % 4];
    case 'u64':
      return [0, Number.MAX_SAFE_INTEGER, '9007199254740992', '18446744073709551615', 1_000_000][k % 5];
    case 'dateTime64ms':
      return [0, 1_700_000_000_123, 4_102_444_800_000][k % 3];
    case 'ascii':
      return ['', `0x${'ab'.repeat(32)}`, '123456789012345678901234567890', 'x'.repeat(200)][k % 4];
    case 'str':
      return ['', 'pUSD', 'ünïcødé — 市场 🎲', 'y'.repeat(300)][k % 4];
    case 'nullableAscii':
      return [null, '', `0x${'cd'.repeat(32)}`][k % 3];
    case 'asciiArray':
      return [[], ['1'], ['1', '2', `0x${'ef'.repeat(20)}`]][k % 3];
    case 'u64Array':
      return [[], [0, '18446744073709551615'], [Number.MAX_SAFE_INTEGER, '9007199254740993', 5]][k % 3];
    case 'enum8': {
      const names = Object.keys(kind.codes!);
      return names[k % names.length];
    }
    default:
      throw new Error(`no sample value for ${kind.write}`);
  }
}

function rowsOf(t: TableDescription, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const row: Record<string, unknown> = {};
    for (const [name, kind] of Object.entries(t.columns)) if (kind.written) row[name] = sampleOf(kind, k);
    return row;
  });
}

/** The chain tables whose rows can be written as RowBinary (their encoder compiles). */
const BINARY = Object.values(ALPHA_CHAIN_TABLES).filter((t) => {
  try {
    rowBinaryEncoder(t);
    return true;
  } catch {
    return false;
  }
});

describe('rowBinaryDecoder', () => {
  it('covers every table the chain ingestion writes as RowBinary', () => {
    const names = BINARY.map((t) => t.name);
    for (const t of [
      'alpha_fills',
      'alpha_activity',
      'alpha_token_transfers',
      'alpha_collateral',
      'alpha_exchange_events',
      'alpha_blocks',
    ])
      expect(names).toContain(t);
  });

  for (const t of BINARY) {
    it(`reads back every ${t.name} row its encoder writes, in the row type's shapes`, () => {
      const rows = rowsOf(t, 15);
      const w = new ByteWriter(64);
      const encode = rowBinaryEncoder(t) as (w: ByteWriter, r: Record<string, unknown>) => void;
      for (const row of rows) encode(w, row);
      const bytes = w.take();
      const decode = rowBinaryDecoder(t);
      const r = new ByteReader(bytes);
      const back = rows.map(() => decode(r));
      expect(r.pos).toBe(bytes.length);
      expect(back).toEqual(rows);
      // Key order too: a decoded row is the row as written, column by column.
      for (const row of back) expect(Object.keys(row)).toEqual(Object.keys(rows[0]!));
    });
  }

  it('puts a computed column where the table has it, from the columns read before it', () => {
    const fills = ALPHA_CHAIN_TABLES.alpha_fills;
    const [row] = rowsOf(fills, 1);
    const w = new ByteWriter(64);
    rowBinaryEncoder(fills)(w, row as never);
    const decoded = rowBinaryDecoder(fills, { price: (r) => Number(r.usd) / 2 })(new ByteReader(w.take()));
    const keys = Object.keys(decoded);
    expect(keys.indexOf('price')).toBe(keys.indexOf('usd') + 1);
    expect(decoded.price).toBe(Number(row!.usd) / 2);
  });

  it('refuses an enum code the column does not have, and bytes that end inside a row', () => {
    const transfers = ALPHA_CHAIN_TABLES.alpha_collateral;
    const [row] = rowsOf(transfers, 1);
    const w = new ByteWriter(64);
    rowBinaryEncoder(transfers)(w, row as never);
    const bytes = w.take();
    const decode = rowBinaryDecoder(transfers);
    expect(() => decode(new ByteReader(bytes.subarray(0, bytes.length - 3)))).toThrow(RangeError);
    const bad = Buffer.from(bytes);
    bad[bad.length - 1] = 9;
    expect(() => decode(new ByteReader(bad))).toThrow(/status: code 9/);
  });
});
