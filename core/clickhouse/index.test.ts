import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { ClickHouseQueryError, exitCodeFor, isRetryable, RetryableError } from '../errors.ts';
import { stringLiteral } from './index.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('clickhouse');
});
afterAll(async () => deps?.close());

describe('clickhouse wrapper', () => {
  it('round-trips 2^64-1 exactly through JSON (64-bit integers quoted in both modes)', async () => {
    await deps.clickhouse.command(
      'test.create',
      'CREATE TABLE IF NOT EXISTS big (id UInt8, v UInt64, w UInt256) ENGINE = MergeTree ORDER BY id',
    );
    const max64 = (2n ** 64n - 1n).toString();
    const max256 = (2n ** 256n - 1n).toString();
    await deps.clickhouse.insert('test.insert', 'big', [{ id: 1, v: max64, w: max256 }]);
    const rows = await deps.clickhouse.query<{ v: string; w: string; c: string }>(
      'test.select',
      'SELECT v, w, toUInt64(18446744073709551615) AS c FROM big WHERE id = {id:UInt8}',
      { id: 1 },
    );
    expect(rows).toEqual([{ v: max64, w: max256, c: max64 }]);
  });

  it('binds values as parameters, so quotes in input are data, not SQL', async () => {
    const evil = "x' OR 1=1 --";
    const rows = await deps.clickhouse.query<{ s: string }>('test.bind', 'SELECT {s:String} AS s', {
      s: evil,
    });
    expect(rows).toEqual([{ s: evil }]);
  });

  it('inlines a string as a literal the engine reads back unchanged (quotes and backslashes escaped)', async () => {
    for (const value of ["/tmp/it's here", 'C:\\temp\\x.bin', "\\'; DROP TABLE big; --", 'plain']) {
      const rows = await deps.clickhouse.query<{ s: string }>(
        'test.literal',
        `SELECT ${stringLiteral(value)} AS s`,
      );
      expect(rows).toEqual([{ s: value }]);
    }
  });

  it('a failing statement becomes a typed, labelled, non-retryable error', async () => {
    const err = await deps.clickhouse.query('test.missing', 'SELECT * FROM no_such_table').catch((e) => e);
    expect(err).toBeInstanceOf(ClickHouseQueryError);
    expect(err.label).toBe('test.missing');
    expect(err.code).toBe(60);
    expect(err.retryable).toBe(false);
    expect(exitCodeFor(err)).toBe(1);
  });

  it('classifies retryable failures in one place', () => {
    expect(isRetryable(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('x'), { code: '202' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('x'), { code: '60' }))).toBe(false);
    expect(
      isRetryable(new Error('wrapped', { cause: Object.assign(new Error(), { code: 'ETIMEDOUT' }) })),
    ).toBe(true);
    // Aborts and timeouts from AbortSignal are DOMExceptions whose numeric `code` (20, 23) is not a
    // ClickHouse code.
    const controller = new AbortController();
    controller.abort();
    expect(isRetryable(controller.signal.reason)).toBe(true);
    expect(isRetryable(new DOMException('slow', 'TimeoutError'))).toBe(true);
    expect(exitCodeFor(new RetryableError('later'))).toBe(75);
  });

  it('ping reports the engine version', async () => {
    const p = await deps.clickhouse.ping();
    expect(p.ok).toBe(true);
    expect(p.version).toMatch(/^\d+\.\d+/);
  });
});

describe('raw inserts', () => {
  /** RowBinary of (k UInt64, s String) rows (strings under 128 bytes: one length byte). */
  const rowBinary = (rows: [number, string][]) =>
    Buffer.concat(
      rows.flatMap(([k, s]) => {
        const key = Buffer.alloc(8);
        key.writeBigUInt64LE(BigInt(k));
        return [key, Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)];
      }),
    );

  it('lands RowBinary and text bodies in the database of the wrapper', async () => {
    const ch = deps.clickhouse;
    await ch.command('t.create', 'CREATE TABLE raw_in (k UInt64, s String) ENGINE = MergeTree ORDER BY k');
    await ch.insertRaw(
      't.bin',
      'raw_in',
      'RowBinary',
      ['k', 's'],
      rowBinary([
        [1, 'a'],
        [2, "b'\n\nc"],
      ]),
    );
    await ch.insertRaw('t.text', 'raw_in', 'JSONEachRow', ['k', 's'], Buffer.from('{"k":3,"s":"d"}\n'));
    const rows = await ch.query<{ k: string; s: string }>(
      't.read',
      'SELECT k, s FROM raw_in WHERE database() = {db:String} ORDER BY k',
      { db: ch.database },
    );
    expect(rows).toEqual([
      { k: '1', s: 'a' },
      { k: '2', s: "b'\n\nc" },
      { k: '3', s: 'd' },
    ]);
  });

  it('an insert does not wait for a long statement already running', async () => {
    const ch = deps.clickhouse;
    await ch.command('t.create', 'CREATE TABLE raw_side (k UInt64, s String) ENGINE = MergeTree ORDER BY k');
    const finished: string[] = [];
    // ≈ 2 s on the engine: 4 blocks of one row, 0.5 s each.
    const slow = ch
      .query('t.slow', 'SELECT sleepEachRow(0.5) FROM numbers(4) SETTINGS max_block_size = 1')
      .then(() => finished.push('slow'));
    await new Promise((r) => setTimeout(r, 200));
    await ch.insertRaw('t.bin', 'raw_side', 'RowBinary', ['k', 's'], rowBinary([[1, 'x']]));
    finished.push('insert');
    await slow;
    expect(finished).toEqual(['insert', 'slow']);
    const n = await ch.query<{ n: string }>('t.count', 'SELECT count() AS n FROM raw_side');
    expect(n[0]?.n).toBe('1');
  });
});
