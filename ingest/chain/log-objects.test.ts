import { describe, expect, it } from 'vitest';
import {
  ArrayAt,
  arrayProgress,
  DECLINED,
  locateInArray,
  readLogObjects,
  readPackedLogs,
} from './log-objects.ts';
import { LogArrayReader } from './log-stream.ts';
import { F, PackedLogs } from './packed-logs.ts';

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(2 * bytes, '0')}`;

/** A log as nodes send it, with the keys in `order` and optional fields as given. */
function logJson(i: number, order: string[], optional: { ts?: boolean; removed?: boolean | null }): string {
  const fields: Record<string, unknown> = {
    address: hex(0xc0de + (i % 3), 20),
    topics: Array.from({ length: i % 5 }, (_, k) => hex(i * 10 + k + (k === 0 ? 0 : 1000), 32)),
    data: i % 4 === 0 ? '0x' : hex(i * 7919, 32 * (1 + (i % 3))),
    blockHash: hex(Math.floor(i / 6), 32),
    blockNumber: hex(Math.floor(i / 6), 1),
    blockTimestamp: hex(1_700_000_000 + Math.floor(i / 6), 4),
    transactionHash: hex(Math.floor(i / 2), 32),
    transactionIndex: hex(Math.floor(i / 2) % 3, 1),
    logIndex: hex(i, 1),
    removed: optional.removed ?? false,
  };
  const keys = order.filter(
    (k) => (k !== 'blockTimestamp' || optional.ts) && (k !== 'removed' || optional.removed !== null),
  );
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, fields[k]])));
}

const ANVIL_ORDER = [
  'address',
  'topics',
  'data',
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'transactionHash',
  'transactionIndex',
  'logIndex',
  'removed',
];
const GETH_ORDER = [
  'address',
  'topics',
  'data',
  'blockNumber',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'logIndex',
  'removed',
  'blockTimestamp',
];

/** Reads `span` with the fast path; expects it to take the span and to equal JSON.parse. */
function expectSameAsJson(span: string): void {
  const buf = Buffer.from(`xx${span}yy`, 'utf8');
  const fast = readLogObjects(buf, 2, buf.length - 2);
  expect(fast).toBeDefined();
  const parsed = JSON.parse(`[${span}]`);
  expect(fast).toEqual(parsed);
  // Same fields, same values: the quarantine payload (JSON.stringify of a log) says the same.
  expect(fast!.map((l) => JSON.parse(JSON.stringify(l)))).toEqual(parsed);
}

describe('readLogObjects (the fast path of the log reader)', () => {
  it('reads the logs JSON.parse reads, whatever the key order, optional fields and whitespace', () => {
    for (const order of [ANVIL_ORDER, GETH_ORDER, [...ANVIL_ORDER].reverse()]) {
      for (const optional of [{ ts: true }, { ts: false, removed: null }, { ts: true, removed: true }]) {
        const logs = Array.from({ length: 40 }, (_, i) => logJson(i, order, optional));
        expectSameAsJson(logs.join(','));
        // Pretty-printed, with whitespace around every token.
        expectSameAsJson(logs.map((l) => JSON.stringify(JSON.parse(l), null, i2(order))).join(' ,\r\n\t'));
      }
    }
  });

  it('keeps each field its own: interning never carries a value over to a log that differs', () => {
    // Consecutive logs that differ only in the last byte of an interned field, or in its length.
    const base = JSON.parse(logJson(1, ANVIL_ORDER, { ts: true }));
    const variants = [
      base,
      { ...base, blockHash: `${base.blockHash.slice(0, -1)}f` },
      { ...base, transactionHash: `${base.transactionHash.slice(0, -1)}e` },
      { ...base, address: `${base.address.slice(0, -1)}d` },
      { ...base, topics: [`${base.topics[0].slice(0, -1)}c`] },
      { ...base, blockNumber: `${base.blockNumber}0` },
      { ...base, transactionIndex: '0x10' },
      { ...base, blockTimestamp: `${base.blockTimestamp.slice(0, -1)}9` },
      base,
    ];
    expectSameAsJson(variants.map((v) => JSON.stringify(v)).join(','));
  });

  it('leaves to JSON.parse what it does not read exactly', () => {
    const good = logJson(3, ANVIL_ORDER, { ts: true });
    const other = [
      good.replace('"data"', '"extra":"x","data"'), // an unknown key
      good.replace(/"blockHash":"0x[0-9a-f]+"/, '"blockHash":null'), // a pending log
      good.replace(/"logIndex":"0x[0-9a-f]+"/, '"logIndex":3'), // a number
      good.replace('"removed":false', '"removed":"no"'),
      good.replace('"topics":[', '"topics":[{"a":1},'),
      good.replace('"data":"0x', '"data":"0x\\u0030'), // an escape
      good.replace('"data":"0x', '"data":"0xé'), // not ASCII
      good.replace(/,"logIndex":"0x[0-9a-f]+"/, ''), // a field missing
    ];
    for (const o of other) {
      const buf = Buffer.from(`${good},${o}`, 'utf8');
      expect(readLogObjects(buf, 0, buf.length), o).toBeUndefined();
    }
    // Malformed JSON: the fast path declines, so JSON.parse throws its SyntaxError as before.
    for (const bad of [
      `${good},,${good}`,
      `${good} ${good}`,
      good.replace('}', ',}'),
      good.replace(':', ''),
      '{}',
    ]) {
      const buf = Buffer.from(bad, 'utf8');
      expect(readLogObjects(buf, 0, buf.length), bad).toBeUndefined();
    }
  });

  it('never takes a fixed-size value past a quote inside it', () => {
    // A short blockHash followed by an unknown key whose value ends exactly where a 32-byte hash
    // would: jumping to that quote alone would read `0xab","pad":"xxx…` as the hash.
    const good = logJson(5, ANVIL_ORDER, { ts: true });
    const forged = good.replace(/"blockHash":"0x[0-9a-f]+"/, `"blockHash":"0xab","pad":"${'x'.repeat(53)}"`);
    expect(forged.indexOf('"pad"') - forged.indexOf('"blockHash":"') - 13).toBe(6);
    expect(forged[forged.indexOf('"blockHash":"') + 13 + 66]).toBe('"');
    const buf = Buffer.from(`${good},${forged}`, 'utf8');
    expect(readLogObjects(buf, 0, buf.length)).toBeUndefined();
    const body = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":[${good},${forged}]}`);
    const reader = new LogArrayReader();
    const out = [...reader.push(body), ...reader.end()];
    // JSON.parse's logs, packed again as canonical JSON: the known keys only.
    const parsed = JSON.parse(`[${good},${forged}]`);
    delete parsed[1].pad;
    expect(out).toEqual(parsed);
    expect(out[1]?.blockHash).toBe('0xab');
    // The same with known keys only: the value one hash-length on ends another field, and the fast
    // path reads what JSON.parse reads.
    const short = good.replace(
      /"blockHash":"0x[0-9a-f]+","blockNumber":"0x[0-9a-f]+"/,
      `"blockHash":"0xab","blockNumber":"0x${'0'.repeat(42)}1"`,
    );
    expect(short[short.indexOf('"blockHash":"') + 13 + 66]).toBe('"');
    expectSameAsJson(`${good},${short}`);
  });

  it('through LogArrayReader: a batch the fast path declines is parsed by JSON.parse and packed again', () => {
    const logs = Array.from({ length: 1500 }, (_, i) =>
      JSON.parse(logJson(i, GETH_ORDER, { ts: i % 2 === 0 })),
    );
    logs[1200] = { ...logs[1200], extra: { nested: [1, 2] }, data: '0x"\\' };
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: logs }));
    // The other key is left out; the data canonical JSON cannot hold is marked, and the page says so.
    const expected = logs.map((l) => ({ ...l }));
    delete expected[1200].extra;
    expected[1200].data = '!data holds characters other than printable ASCII, or a quote or backslash';
    for (const size of [97, 4096, body.length]) {
      const reader = new LogArrayReader();
      const pages: PackedLogs[] = [];
      for (let at = 0; at < body.length; at += size) pages.push(reader.push(body.subarray(at, at + size)));
      pages.push(reader.end());
      expect(pages.flatMap((p) => p.toArray())).toEqual(expected);
      const marked = pages.filter((p) => p.hasDefects);
      expect(marked).toHaveLength(1);
      const defects = [...Array(marked[0]!.length).keys()].map((i) => marked[0]!.defect(i)).filter(Boolean);
      expect(defects).toEqual([
        '!data holds characters other than printable ASCII, or a quote or backslash'.slice(1),
      ]);
    }
  });
});

describe('PackedLogs.of (log objects written as canonical JSON and packed)', () => {
  const base = () => JSON.parse(logJson(7, ANVIL_ORDER, { ts: true }));

  it('holds the known keys of each log as their strings, bytes read by the fast parse', () => {
    const logs = Array.from({ length: 20 }, (_, i) =>
      JSON.parse(logJson(i, GETH_ORDER, { ts: i % 2 === 0 })),
    );
    const packed = PackedLogs.of([
      ...logs.slice(0, 3),
      { ...logs[3], extra: 5, removed: 'no' },
      ...logs.slice(4),
    ]);
    expect(packed.hasDefects).toBe(false);
    const { extra: _extra, removed: _removed, ...plain } = { ...logs[3], extra: 5 };
    expect(packed.toArray()).toEqual([...logs.slice(0, 3), plain, ...logs.slice(4)]);
    expect(packed.removed(3)).toBe(false);
    // The same bytes as the node's text would give: offsets, links, block numbers.
    const text = Buffer.from(logs.map((l) => JSON.stringify(l)).join(','));
    const fast = readPackedLogs(text, 0, text.length)!;
    for (let i = 1; i < logs.length; i++) {
      expect(packed.sameTxAsPrevious(i), `${i}`).toBe(fast.sameTxAsPrevious(i));
      expect(packed.sameBlockAsPrevious(i), `${i}`).toBe(fast.sameBlockAsPrevious(i));
    }
    expect([...packed.blocks()]).toEqual([...fast.blocks()]);
  });

  it('marks each value it cannot hold, and says what is wrong: the mapper quarantines those logs', () => {
    const cases: [unknown, string | undefined][] = [
      [base(), undefined],
      [{ ...base(), blockTimestamp: null }, undefined], // an optional field absent
      [{ ...base(), blockNumber: null }, 'blockNumber is null'],
      [{ ...base(), logIndex: 3 }, 'logIndex is a number'],
      [{ ...base(), address: undefined }, 'address is missing'],
      [
        { ...base(), transactionHash: '0x"ab' },
        'transactionHash holds characters other than printable ASCII, or a quote or backslash',
      ],
      [
        { ...base(), data: '0xé' },
        'data holds characters other than printable ASCII, or a quote or backslash',
      ],
      [{ ...base(), data: '!0x' }, 'data starts with an exclamation mark'],
      [{ ...base(), blockTimestamp: 5 }, 'blockTimestamp is a number'],
      [{ ...base(), topics: 'x' }, 'topics is a string'],
      [{ ...base(), topics: ['0x1', null] }, 'topics[1] is null'],
      [{ ...base(), topics: ['0x1', '0x2', '0x3', '0x4', '0x5'] }, 'topics has 5 entries, at most 4'],
      [7, 'the log is a number, not an object'],
      [[base()], 'the log is an array, not an object'],
    ];
    const packed = PackedLogs.of(cases.map(([l]) => l));
    expect(packed.length).toBe(cases.length);
    expect(packed.hasDefects).toBe(true);
    expect(cases.map((_, i) => packed.defect(i))).toEqual(cases.map(([, d]) => d));
    // A log without a block number names no block; the others keep theirs.
    expect([...packed.blocks()]).toEqual([Number.parseInt(base().blockNumber, 16)]);
    // Slices and pages made of parts keep the mark.
    expect(packed.slice(2, 4).hasDefects).toBe(true);
    expect(PackedLogs.concat([PackedLogs.of([base()]), packed.slice(3, 4)]).defect(1)).toBe(
      'logIndex is a number',
    );
    expect(PackedLogs.of([base()]).defect(0)).toBeUndefined();
  });
});

describe('locateInArray (logs located as the bytes arrive)', () => {
  const logs = Array.from({ length: 30 }, (_, i) =>
    logJson(i, i % 2 ? ANVIL_ORDER : GETH_ORDER, { ts: i % 3 !== 0, removed: i % 5 ? false : null }),
  );
  const text = `[ ${logs.map((l, i) => (i % 4 === 1 ? JSON.stringify(JSON.parse(l), null, 1) : l)).join(' ,\n')} ]`;
  const buf = Buffer.from(`${text}   `, 'latin1');
  const expected = JSON.parse(text);

  /** Locates from the array's first element to `ends` in turn; returns the logs and the final state. */
  function locateUpTo(ends: number[]) {
    const f = new Int32Array(F * 64);
    let at = 1;
    let expect_ = ArrayAt.First;
    let n = 0;
    const counts: number[] = [];
    let closed = false;
    for (const end of ends) {
      // (The reader locates no more once the array closed.)
      if (closed) {
        counts.push(n);
        continue;
      }
      const got = locateInArray(buf, at, end, f, n, expect_);
      expect(got).toBeGreaterThanOrEqual(0);
      n += got;
      at = arrayProgress.next;
      expect_ = arrayProgress.expect;
      closed = arrayProgress.closed;
      counts.push(n);
    }
    return { logs: PackedLogs.packed(buf, f, n), counts, closed, next: at };
  }

  it('locates exactly the objects complete at every end, and goes on to the same logs as JSON.parse', () => {
    const closes: number[] = [];
    for (let i = text.indexOf('}'); i !== -1; i = text.indexOf('}', i + 1)) closes.push(i + 1);
    for (let end = 1; end <= buf.length; end++) {
      const r = locateUpTo([end, buf.length]);
      // Objects whose `}` came before `end`: only top-level ones (a log holds no nested object).
      expect(r.counts[0]).toBe(closes.filter((c) => c <= end).length);
      expect(r.logs.length).toBe(logs.length);
      expect(r.closed).toBe(true);
      expect(r.next).toBe(text.length);
      if (end % 97 === 0 || end === 1) expect(r.logs.toArray()).toEqual(expected);
    }
    // Links across calls: the same flags as one pass.
    const once = locateUpTo([buf.length]).logs;
    const pieces = locateUpTo(
      Array.from({ length: 40 }, (_, k) => Math.ceil(((k + 1) * buf.length) / 40)),
    ).logs;
    for (let i = 1; i < logs.length; i++) {
      expect(pieces.sameTxAsPrevious(i)).toBe(once.sameTxAsPrevious(i));
      expect(pieces.sameBlockAsPrevious(i)).toBe(once.sameBlockAsPrevious(i));
    }
  });

  it('declines what the fast path does not read, and an empty array closes at once', () => {
    for (const bad of ['[{"address":1}]', '[{}]', '[,{}]', `[${logs[0]},]`, `[${logs[0]} ${logs[1]}]`]) {
      const b = Buffer.from(bad);
      expect(locateInArray(b, 1, b.length, new Int32Array(F * 4), 0, ArrayAt.First), bad).toBe(DECLINED);
    }
    const empty = Buffer.from('[ ] ,"id":1}');
    expect(locateInArray(empty, 1, empty.length, new Int32Array(F), 0, ArrayAt.First)).toBe(0);
    expect(arrayProgress.closed).toBe(true);
    expect(arrayProgress.next).toBe(3);
  });
});

function i2(order: string[]): number {
  return order[0] === 'address' ? 2 : 1;
}
