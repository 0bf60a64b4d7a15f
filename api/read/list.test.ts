import type { FastifyInstance, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { c, defineTable, select } from '../../core/clickhouse/table.ts';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { noMarketMetadata } from '../markets.ts';
import { createCursorCodec, filtersDigest } from '../pagination.ts';
import { bytes32, equals, marketSlug, timeRange, walletList } from '../queries/filters.ts';
import { afterKey, cursorKey, fixedOrder, type KeyColumn } from './keyset.ts';
import { type ListPage, type ListSpec, listHandler } from './list.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** A list endpoint over a table of this test's own: 25 events of 2 wallets over 10 blocks. */
type Item = { block: number; log: number; wallet: string };
const LIST_EVENTS = defineTable('list_events', {
  block_number: c.u64n,
  log_index: c.u32,
  wallet: c.hex(),
  amount: c.u64,
});
const SELECTION = select(LIST_EVENTS, ['block_number', 'log_index', 'wallet', 'amount']);
type Row = ReturnType<typeof SELECTION.zip>;
const spec: ListSpec<Row, Item, 'events'> = {
  name: 'test.events',
  table: 'list_events',
  select: SELECTION,
  keyset: [
    { column: 'block_number', type: 'UInt64' },
    { column: 'log_index', type: 'UInt32' },
  ],
  defaultLimit: 5,
  field: 'events',
  filters: [
    walletList({ column: 'wallet' }),
    bytes32({ param: 'tx_hash' }),
    ...timeRange('block_time'),
    equals({ param: 'kind' }),
    marketSlug((ids) => ({ sql: 'kind IN {slug_kinds:Array(String)}', params: { slug_kinds: ids } })),
  ],
  toItem: (r) => ({ block: Number(r.block_number), log: r.log_index, wallet: r.wallet }),
};

let deps: TestDeps;
let ctx: RouteContext;
let handle: (query: Record<string, unknown>) => Promise<ListPage<'events', Item>>;

beforeAll(async () => {
  deps = await createTestDeps('api_list');
  await deps.clickhouse.command(
    'test.table',
    `CREATE TABLE IF NOT EXISTS list_events (block_number UInt64, log_index UInt32, wallet String,
      amount UInt64, kind String, tx_hash String, block_time DateTime64(3, 'UTC'))
     ENGINE = MergeTree ORDER BY (wallet, block_number, log_index)`,
  );
  const rows = Array.from({ length: 25 }, (_, i) => ({
    block_number: 10 + Math.floor(i / 3),
    log_index: i % 3,
    wallet: addr(i % 2 === 0 ? 0xa : 0xb),
    amount: i,
    kind: i % 5 === 0 ? 'rare' : 'common',
    tx_hash: hash(1000 + Math.floor(i / 3)),
    block_time: new Date((1_700_000_000 + i) * 1000).toISOString().replace('T', ' ').replace('Z', ''),
  }));
  await deps.clickhouse.insert('test.rows', 'list_events', rows);
  ctx = {
    deps,
    cursors: createCursorCodec('list-test-secret'),
    markets: {
      conditionIds: async (slug) => (slug === 'rare-ones' ? ['rare'] : []),
      slugs: noMarketMetadata.slugs,
    },
  };
  const handler = listHandler({} as FastifyInstance, ctx, spec);
  handle = (query) => handler({ query } as unknown as FastifyRequest);
});
afterAll(async () => deps?.close());

async function rejects(query: Record<string, unknown>, message: RegExp) {
  const err = await handle(query).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).statusCode).toBe(400);
  expect((err as ApiError).message).toMatch(message);
}

describe('list helper: the 400 rules', () => {
  it('answers 51 distinct wallets with 400 and accepts 50 written twice', async () => {
    const wallets = Array.from({ length: 51 }, (_, i) => addr(0x100 + i));
    await rejects({ wallet: wallets.join(',') }, /51 distinct, at most 50/);
    const fifty = wallets.slice(0, 50);
    const page = await handle({
      wallet: [...fifty, ...fifty.map((w) => w.toUpperCase().replace('0X', '0x'))].join(','),
    });
    expect(page.events).toEqual([]);
  });

  it('names an invalid address, and refuses an empty list', async () => {
    await rejects({ wallet: `${addr(0xa)},0xnope` }, /Invalid address in wallet: "0xnope"/);
    await rejects({ wallet: ' , ' }, /at least one address/);
  });

  it('answers a hash that is not 0x + 64 hex with 400 naming the parameter', async () => {
    for (const bad of ['0x1234', `${hash(1)}00`, `0x${'g'.repeat(64)}`]) {
      await rejects({ tx_hash: bad }, /Invalid tx_hash/);
    }
  });

  it('accepts offset 0 and answers any other offset with 400', async () => {
    await expect(handle({ offset: 0 })).resolves.toMatchObject({ pagination: { count: 5 } });
    await rejects({ offset: 5 }, /offset/);
  });

  it('answers start_time after end_time with 400, and accepts equal bounds', async () => {
    await rejects({ start_time: 1_700_000_010, end_time: 1_700_000_009 }, /start_time .* is after end_time/);
    const one = await handle({ start_time: 1_700_000_010, end_time: 1_700_000_010 });
    expect(one.events).toHaveLength(1);
  });

  it('answers the first broken rule in declaration order', async () => {
    await rejects({ wallet: '0xbad', tx_hash: '0x1' }, /Invalid address/);
    await rejects({ tx_hash: '0x1', start_time: 2, end_time: 1 }, /Invalid tx_hash/);
  });
});

describe('list helper: digest, cursors and pages', () => {
  it('digests the same filters written differently to the same value, and other filters to another', () => {
    const a = filtersDigest('r', { wallets: [addr(1), addr(2)], order: 'desc', kind: null });
    const b = filtersDigest('r', { kind: null, order: 'desc', wallets: [addr(1), addr(2)] });
    expect(a).toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(filtersDigest('r', { wallets: [addr(1)], order: 'desc', kind: null })).not.toBe(a);
    expect(filtersDigest('r', { wallets: [addr(1), addr(2)], order: 'asc', kind: null })).not.toBe(a);
    expect(filtersDigest('other', { wallets: [addr(1), addr(2)], order: 'desc', kind: null })).not.toBe(a);
  });

  it('gives identical pages and keys for the same wallets in any order and case', async () => {
    const p1 = await handle({ wallet: `${addr(0xa)},${addr(0xb)}`, limit: 4 });
    const p2 = await handle({
      wallet: `${addr(0xb).replace('b', 'B')}, ${addr(0xa)},${addr(0xb)}`,
      limit: 4,
    });
    expect(p2).toEqual(p1);
    expect(p1.pagination.pagination_key).not.toBeNull();
  });

  it('round-trips a cursor: the key holds the last row, and the next page starts right after it', async () => {
    const codec = createCursorCodec('k');
    const keyset: KeyColumn[] = [
      { column: 'block_number', type: 'UInt64' },
      { column: 'log_index', type: 'UInt32' },
    ];
    const keys = fixedOrder(keyset, 'desc');
    const key = cursorKey(keys, ['18446744073709551615', '7']);
    expect(key).toEqual(['18446744073709551615', 7]);
    const token = codec.encode('digest', key);
    expect(JSON.parse(Buffer.from(token, 'base64url').subarray(0, -16).toString())).toEqual({
      v: 1,
      d: 'digest',
      k: ['18446744073709551615', 7],
    });
    expect(codec.decode(token, 'digest')).toEqual(key);
    expect(() => codec.decode(token, 'another')).toThrow(/other filters/);
    expect(afterKey(keys, key)).toEqual({
      sql: 'block_number < {sort_key_0:UInt64} OR (block_number = {sort_key_0:UInt64} AND log_index < {sort_key_1:UInt32})',
      params: { sort_key_0: '18446744073709551615', sort_key_1: 7 },
    });
    expect(() => afterKey(fixedOrder(keyset, 'asc'), [7, 7])).toThrow(ApiError);
    expect(() => afterKey(fixedOrder(keyset, 'asc'), ['7'])).toThrow(ApiError);
    // A sorted list's keys: each in its own direction, expressions in parentheses, typed values checked.
    const sorted = afterKey(
      [
        { expr: 'ifNull(volume, 0)', type: 'Float64', dir: 'desc' },
        { expr: 'id', type: 'String', dir: 'asc' },
      ],
      [1.5, 'x'],
    );
    expect(sorted.sql).toBe(
      '(ifNull(volume, 0)) < {sort_key_0:Float64} OR ((ifNull(volume, 0)) = {sort_key_0:Float64} AND id > {sort_key_1:String})',
    );
    expect(() => afterKey([{ expr: 'x', type: 'Float64', dir: 'asc' }], ['1.5'])).toThrow(ApiError);

    const first = await handle({ limit: 4 });
    const k = first.pagination.pagination_key!;
    const unfiltered = filtersDigest('test.events', {
      order: 'desc',
      wallets: null,
      tx_hash: null,
      start_time: null,
      end_time: null,
      kind: null,
      market_slug: null,
    });
    const last = first.events[3]!;
    expect(ctx.cursors.decode(k, unfiltered)).toEqual([String(last.block), last.log]);
    const next = await handle({ limit: 4, pagination_key: k });
    expect(next.events[0]).toMatchObject({ block: 16, log: 2 });
    await rejects({ limit: 4, pagination_key: k, kind: 'rare' }, /other filters/);
    await rejects({ limit: 4, pagination_key: `${k.slice(0, -2)}AA` }, /Invalid pagination_key/);
  });

  it('reports has_more exactly: false when the last page is exactly full, every row once in both orders', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const seen: string[] = [];
      let key: string | undefined;
      let pages = 0;
      for (;;) {
        const p = await handle({ order, limit: 5, ...(key ? { pagination_key: key } : {}) });
        pages++;
        seen.push(...p.events.map((e) => `${e.block}:${e.log}`));
        expect(p.pagination.count).toBe(p.events.length);
        if (!p.pagination.has_more) {
          expect(p.pagination.pagination_key).toBeNull();
          break;
        }
        key = p.pagination.pagination_key!;
      }
      // 25 rows in pages of 5: the fifth page is full and says there is nothing more.
      expect(pages).toBe(5);
      expect(new Set(seen).size).toBe(25);
      const sorted = [...seen].sort((a, b) => {
        const [ab, al] = a.split(':').map(Number);
        const [bb, bl] = b.split(':').map(Number);
        return ab! - bb! || al! - bl!;
      });
      expect(seen).toEqual(order === 'asc' ? sorted : sorted.reverse());
    }
    const short = await handle({ limit: 26 });
    expect(short.pagination).toEqual({ limit: 26, count: 25, pagination_key: null, has_more: false });
    const exact = await handle({ limit: 24 });
    expect(exact.pagination).toMatchObject({ count: 24, has_more: true });
  });

  it('applies a resolved filter, and answers an unknown slug with an empty page', async () => {
    const rare = await handle({ market_slug: 'rare-ones', limit: 50 });
    expect(rare.events).toHaveLength(5);
    expect(await handle({ market_slug: 'no-such' })).toEqual({
      events: [],
      pagination: { limit: 5, count: 0, pagination_key: null, has_more: false },
    });
  });
});
