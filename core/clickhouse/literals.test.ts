import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../sim/world/rng.ts';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { ClickHouseQueryError } from '../errors.ts';
import { LiteralError, renderParams, stringLiteral } from './literals.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('literals', { migrate: false });
});
afterAll(async () => deps?.close());

/**
 * Renders `{v0:String}, {v1:String}, ...` and runs the statement without parameters: the engine must
 * return every input exactly, as text and as bytes (hex), whatever it holds.
 */
async function roundTrip(values: string[]): Promise<void> {
  const params = Object.fromEntries(values.map((v, i) => [`v${i}`, v]));
  const sql = `SELECT ${values.map((_, i) => `{v${i}:String} AS s${i}, hex({v${i}:String}) AS h${i}`).join(', ')}`;
  const rendered = renderParams(sql, params);
  const [row] = await deps.clickhouse.query<Record<string, string>>('t.round-trip', rendered);
  values.forEach((v, i) => {
    expect(row![`s${i}`]).toBe(v);
    expect(row![`h${i}`]).toBe(Buffer.from(v, 'utf8').toString('hex').toUpperCase());
  });
}

/** A reproducible generator (the sim's seeded one), so a failing fuzz case can be replayed. */
function random(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.next();
}

describe('string literals', () => {
  it('read back exactly: quotes, backslashes, NUL and control bytes, Unicode up to astral planes', async () => {
    await roundTrip([
      '',
      "it's",
      "''",
      '\\',
      "\\'",
      "\\\\'",
      'a\u0000b',
      '\u0000',
      Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f',
      '\r\n\t\b\f\v',
      'é ß 中文 العربية',
      '😀 𝄞 \u{10ffff} \u{1f600}\u{1f3fd}',
      '\u2028\u2029\ufeff\ufffd',
      '$$heredoc$$',
    ]);
  });

  it('SQL fragments and placeholders in values stay data', async () => {
    await roundTrip([
      "'; DROP TABLE x; --",
      "x' OR 1=1 --",
      '{other:String}',
      '{v0:String}',
      "\\'; SELECT 1; --",
      '/* comment */ -- line\n# hash',
      "') UNION ALL SELECT name FROM system.tables --",
    ]);
    const rendered = renderParams('SELECT {a:String} AS a, {b:String} AS b', {
      a: '{b:String}',
      b: 'bee',
    });
    const rows = await deps.clickhouse.query<{ a: string; b: string }>('t.placeholder', rendered);
    expect(rows).toEqual([{ a: '{b:String}', b: 'bee' }]);
  });

  it('10,000-character strings read back exactly', async () => {
    const next = random(7);
    const pool = ["'", '\\', '\u0000', '\n', 'a', 'é', '中', '😀'];
    const long = Array.from({ length: 10_000 }, () => pool[Math.floor(next() * pool.length)]).join('');
    await roundTrip(['x'.repeat(10_000), "'".repeat(10_000), '\\'.repeat(10_000), long]);
  });

  it('random strings of every kind of character read back exactly (2,000 cases, fixed seed)', async () => {
    const next = random(20251126);
    const char = (): string => {
      const kind = next();
      if (kind < 0.3) return String.fromCharCode(32 + Math.floor(next() * 95));
      if (kind < 0.45)
        return ["'", '\\', '{', '}', ':', '"', '`', '$', '-', '/', '*', '#'][Math.floor(next() * 12)]!;
      if (kind < 0.6) return String.fromCharCode(Math.floor(next() * 32));
      if (kind < 0.8) {
        // BMP outside the surrogate range.
        const cp = 0x80 + Math.floor(next() * (0xd800 - 0x80));
        return String.fromCodePoint(cp);
      }
      return String.fromCodePoint(0x10000 + Math.floor(next() * 0xfffff));
    };
    for (let batch = 0; batch < 40; batch++) {
      const values = Array.from({ length: 50 }, () =>
        Array.from({ length: Math.floor(next() * 40) }, char).join(''),
      );
      await roundTrip(values);
    }
  });

  it('a string with a lone surrogate is refused (it has no UTF-8 form)', () => {
    expect(() => stringLiteral('a\ud800b')).toThrow(LiteralError);
    expect(() => stringLiteral('\udc00')).toThrow(LiteralError);
  });
});

describe('typed placeholders', () => {
  it('integers keep their declared type and exact value at both ends of every range', async () => {
    const cases: [string, string][] = [];
    for (const bits of [8, 16, 32, 64, 128, 256]) {
      cases.push([`UInt${bits}`, '0'], [`UInt${bits}`, (2n ** BigInt(bits) - 1n).toString()]);
      cases.push([`Int${bits}`, (-(2n ** BigInt(bits - 1))).toString()]);
      cases.push([`Int${bits}`, (2n ** BigInt(bits - 1) - 1n).toString()]);
    }
    const params = Object.fromEntries(cases.map(([, v], i) => [`p${i}`, v]));
    const sql = `SELECT ${cases.map(([t], i) => `toString({p${i}:${t}}) AS v${i}, toTypeName({p${i}:${t}}) AS t${i}`).join(', ')}`;
    const [row] = await deps.clickhouse.query<Record<string, string>>('t.ints', renderParams(sql, params));
    cases.forEach(([t, v], i) => {
      expect(row![`v${i}`]).toBe(v);
      expect(row![`t${i}`]).toBe(t);
    });
  });

  it('integers given as numbers, bigints and decimal strings render alike', async () => {
    const sql = renderParams('SELECT {a:UInt64} AS a, {b:UInt64} AS b, {c:Int64} AS c, {d:UInt32} AS d', {
      a: 42,
      b: 18446744073709551615n,
      c: '-9223372036854775808',
      d: Number.MAX_SAFE_INTEGER > 2 ** 32 ? 4294967295 : 0,
    });
    const rows = await deps.clickhouse.query('t.int-forms', sql);
    expect(rows).toEqual([{ a: '42', b: '18446744073709551615', c: '-9223372036854775808', d: 4294967295 }]);
  });

  it('arrays keep their element type, empty ones included', async () => {
    const sql = renderParams(
      `SELECT {s:Array(String)} AS s, toTypeName({s:Array(String)}) AS ts,
              {e:Array(String)} AS e, toTypeName({e:Array(String)}) AS te,
              {u:Array(UInt64)} AS u, toTypeName({u:Array(UInt64)}) AS tu,
              toTypeName({eu:Array(UInt32)}) AS teu,
              {n:Array(Array(String))} AS n, toTypeName({n:Array( Array( String ) )}) AS tn,
              'x' IN {s:Array(String)} AS hit`,
      {
        s: ["'; DROP TABLE x; --", 'x', '\u0000\\'],
        e: [],
        u: [1, '18446744073709551615'],
        eu: [],
        n: [['a'], [], ["'"]],
      },
    );
    const rows = await deps.clickhouse.query('t.arrays', sql);
    expect(rows).toEqual([
      {
        s: ["'; DROP TABLE x; --", 'x', '\u0000\\'],
        ts: 'Array(String)',
        e: [],
        te: 'Array(String)',
        u: ['1', '18446744073709551615'],
        tu: 'Array(UInt64)',
        teu: 'Array(UInt32)',
        n: [['a'], [], ["'"]],
        tn: 'Array(Array(String))',
        hit: 1,
      },
    ]);
  });

  it('Float64 values read back as the same double (random bit patterns, extremes, -0)', async () => {
    const rng = random(64);
    const view = new DataView(new ArrayBuffer(8));
    const values = [0, -0, 0.1, 0.30000000000000004, 5e-324, -1.7976931348623157e308, 1e21, 2 ** 64 + 4096];
    while (values.length < 2_000) {
      for (let b = 0; b < 8; b++) view.setUint8(b, Math.floor(rng() * 256));
      const v = view.getFloat64(0);
      if (Number.isFinite(v)) values.push(v);
    }
    const bits = (v: number) => {
      view.setFloat64(0, v);
      return view.getBigUint64(0).toString();
    };
    const sql = renderParams(
      'SELECT arrayMap(x -> toString(reinterpretAsUInt64(x)), {v:Array(Float64)}) AS b, toTypeName({w:Float64}) AS t',
      { v: values, w: 1 },
    );
    const [row] = await deps.clickhouse.query<{ b: string[]; t: string }>('t.floats', sql);
    expect(row!.t).toBe('Float64');
    expect(row!.b).toEqual(values.map(bits));
  });

  it('values that do not fit their type are refused, never coerced', () => {
    const refused: [string, unknown][] = [
      ['UInt8', 256],
      ['UInt8', -1],
      ['UInt8', 1.5],
      ['UInt8', '1e3'],
      ['UInt8', ' 1'],
      ['UInt8', '0x10'],
      ['UInt8', '1; DROP TABLE x'],
      ['UInt8', true],
      ['UInt8', null],
      ['UInt8', []],
      ['UInt32', Number.NaN],
      ['UInt64', Number.POSITIVE_INFINITY],
      ['UInt64', 2 ** 53],
      ['UInt64', '18446744073709551616'],
      ['Int64', '-9223372036854775809'],
      ['String', 5],
      ['String', null],
      ['String', ['a']],
      ['String', { toString: () => "'" }],
      ['Array(String)', 'a'],
      ['Array(String)', [1]],
      ['Array(UInt64)', ['x']],
      ['Array(UInt8)', [300]],
      ['Float64', Number.NaN],
      ['Float64', Number.NEGATIVE_INFINITY],
      ['Float64', '1.5'],
      ['Float64', 1n],
      ['Float64', null],
      ['Array(Float64)', ['1']],
    ];
    for (const [type, value] of refused) {
      expect(() => renderParams(`SELECT {v:${type}}`, { v: value }), `${type} ${String(value)}`).toThrow(
        LiteralError,
      );
    }
  });

  it('types it does not know and placeholders without a value are refused', () => {
    for (const type of [
      'Float32',
      'Identifier',
      "DateTime64(3, 'UTC')",
      'Nullable(String)',
      'Array(Float32)',
    ]) {
      expect(() => renderParams(`SELECT {v:${type}}`, { v: 'x' }), type).toThrow(LiteralError);
    }
    expect(() => renderParams('SELECT {v:String}, {w:String}', { v: 'x' })).toThrow(LiteralError);
    expect(() => renderParams('SELECT {v:String}', { v: undefined })).toThrow(LiteralError);
  });

  it('placeholders in the statement’s own literals, quoted names and comments are left alone', async () => {
    const sql = renderParams(
      `SELECT '{v:String}' AS a, {v:String} AS b, $$ {v:String} $$ AS c, 1 AS \`{v:String}\` /* {v:String} /* {v:String} */ */ -- {v:String}
       # {v:String}
       `,
      { v: 'val' },
    );
    expect(sql.match(/'val'/g)).toHaveLength(1);
    const rows = await deps.clickhouse.query('t.skip', sql);
    expect(rows).toEqual([{ a: '{v:String}', b: 'val', c: ' {v:String} ', '{v:String}': 1 }]);
  });

  it('a refused value fails the query with a typed, labelled, non-retryable error', async () => {
    if (!deps.clickhouse.embedded) return; // a server binds parameters itself
    const err = await deps.clickhouse
      .query('t.refused', 'SELECT {v:UInt8} AS v', { v: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseQueryError);
    expect((err as ClickHouseQueryError).label).toBe('t.refused');
    expect((err as ClickHouseQueryError).retryable).toBe(false);
    expect((err as ClickHouseQueryError).cause).toBeInstanceOf(LiteralError);
  });
});
