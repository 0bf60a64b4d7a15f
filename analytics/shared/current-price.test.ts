/**
 * The current-price rules against real chDB tables: payout once resolved, else a fresh book midpoint,
 * else the newest maker fill of the token or its complement, else null; in a bounded number of
 * statements per batch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { midpoint } from '../../ingest/venues/alpha/book/sync.ts';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { BOOK_FRESH_MS, CHUNK, currentPrices, payoutShare } from './current-price.ts';

let deps: TestDeps;

const NOW = Date.UTC(2026, 4, 1, 12);
const MIN = 60_000;
const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** A binary condition's two tokens, `<name>0` (outcome 0) and `<name>1`. */
function pair(name: string) {
  const condition = `0xc${name}`;
  return [0, 1].map((i) => ({
    chain_id: 137,
    token_id: `${name}${i}`,
    condition_id: condition,
    outcome_index: i,
    complement_token_id: `${name}${1 - i}`,
    neg_risk: false,
    source: 'condition_prepared',
    block_number: 1,
    tx_hash: `0xprep${name}`,
    log_index: i,
  }));
}

function resolution(name: string, numerators: string[], blockTime: number, block: number) {
  return {
    chain_id: 137,
    block_number: block,
    block_hash: `0xb${block}`,
    block_time: time(blockTime),
    tx_hash: `0xres${name}${block}`,
    log_index: 0,
    kind: 'condition_resolved',
    version: 1,
    condition_id: `0xc${name}`,
    outcome_slot_count: numerators.length,
    payout_numerators: numerators,
    status: 'confirmed',
  };
}

let fillSeq = 0;
function fill(
  token: string,
  block: number,
  logIndex: number,
  usd: number,
  shares: number,
  opts: { role?: 'maker' | 'taker'; blockTime?: number } = {},
) {
  return {
    chain_id: 137,
    block_number: block,
    block_hash: `0xb${block}`,
    block_time: time(opts.blockTime ?? NOW - 60 * MIN + block * 1000),
    tx_hash: `0xfill${fillSeq++}`,
    log_index: logIndex,
    maker: '0xmaker',
    taker: '0xtaker',
    role: opts.role ?? 'maker',
    side: 'BUY',
    token_id: token,
    condition_id: `0xc${token.slice(0, -1)}`,
    outcome_index: Number(token.slice(-1)),
    usd,
    shares,
    status: 'confirmed',
  };
}

function quote(token: string, observedAt: number, bid: number | null, ask: number | null) {
  return {
    token_id: token,
    observed_at: time(observedAt),
    condition_id: `0xc${token.slice(0, -1)}`,
    book_time: time(observedAt - MIN),
    hash: `h${token}${observedAt}`,
    best_bid: bid,
    best_ask: ask,
    mid: bid !== null && ask !== null ? midpoint(bid, ask) : null,
    bid_prices: bid === null ? [] : [bid],
    bid_sizes: bid === null ? [] : [100],
    ask_prices: ask === null ? [] : [ask],
    ask_sizes: ask === null ? [] : [100],
    tick_size: '0.01',
  };
}

beforeAll(async () => {
  deps = await createTestDeps('current_price');
  const ch = deps.clickhouse;
  const names = ['a', 'e', 'b', 'c', 'd', 'f', 'g', 'h', 'i', 'j', 'k', 'm'];
  await ch.insert('test.tokens', 'alpha_tokens', names.flatMap(pair));
  await ch.insert('test.lifecycle', 'alpha_lifecycle', [
    resolution('a', ['1', '0'], NOW - 30 * MIN, 100),
    resolution('e', ['1', '1'], NOW - 30 * MIN, 100),
    // Resolved after `now`: not yet at `now`.
    resolution('b', ['0', '1'], NOW + MIN, 900),
  ]);
  await ch.insert('test.books', 'alpha_book_quotes', [
    quote('a0', NOW - MIN, 0.3, 0.4),
    quote('b0', NOW - 2 * MIN, 0.6, 0.7),
    quote('c0', NOW - 20 * MIN, 0.1, 0.2),
    quote('c0', NOW - 5 * MIN, 0.4, 0.44),
    quote('c1', NOW - 11 * MIN, 0.5, 0.6),
    // d0: its latest fresh book is one-sided, an older fresh one was not.
    quote('d0', NOW - 8 * MIN, 0.2, 0.3),
    quote('d0', NOW - 3 * MIN, 0.2, null),
    // f0: observed after now only.
    quote('f0', NOW + MIN, 0.5, 0.5),
    quote('i0', NOW - BOOK_FRESH_MS, 0.8, 0.9),
    quote('j0', NOW - BOOK_FRESH_MS + 1, 0.8, 0.9),
    quote('x0', NOW - MIN, 0.05, 0.07),
  ]);
  await ch.insert('test.fills', 'alpha_fills', [
    fill('a0', 10, 0, 250_000, 1_000_000),
    fill('c0', 30, 0, 420_000, 1_000_000),
    fill('c1', 20, 0, 550_000, 1_000_000),
    fill('d0', 12, 0, 100_000, 1_000_000),
    fill('d0', 15, 3, 150_000, 1_000_000),
    fill('f0', 5, 0, 300_000, 1_000_000),
    fill('b1', 40, 0, 333_000, 1_000_000),
    // h0: the newest maker fill before now is at block 8; a newer taker fill and a fill after now do not count.
    fill('h0', 8, 0, 700_000, 1_000_000),
    fill('h0', 9, 1, 900_000, 1_000_000, { role: 'taker' }),
    fill('h0', 50, 0, 100_000, 1_000_000, { blockTime: NOW + MIN }),
    fill('k0', 20, 0, 600_000, 2_000_000),
    fill('k1', 10, 0, 900_000, 1_000_000),
    // m: the same block, the complement's log index is higher: it is newer.
    fill('m0', 30, 5, 200_000, 1_000_000),
    fill('m1', 30, 7, 750_000, 1_000_000),
  ]);
});
afterAll(async () => deps?.close());

describe('current price', () => {
  it('takes the payout share once resolved, a fresh two-sided midpoint, else the newest maker fill, else null', async () => {
    const asked = [
      'a0',
      'a1',
      'e0',
      'b0',
      'b1',
      'c0',
      'c1',
      'd0',
      'f0',
      'g0',
      'h0',
      'i0',
      'j0',
      'k0',
      'k1',
      'm0',
    ];
    const prices = await currentPrices(deps.clickhouse, [...asked, 'x0', 'zz', 'a0'], NOW);
    expect(Object.fromEntries(prices)).toEqual({
      // Resolved: the payout wins over a fresh book and fills.
      a0: { price: 1, source: 'payout' },
      a1: { price: 0, source: 'payout' },
      e0: { price: 0.5, source: 'payout' },
      // Resolution after now: the fresh book.
      b0: { price: 0.65, source: 'book' },
      // b1: no book; its own fill.
      b1: { price: 0.333, source: 'fill' },
      // The latest fresh observation, not an older one.
      c0: { price: 0.42, source: 'book' },
      // Stale book; the complement's fill (block 30) is newer than its own (block 20): 1 − 0.42.
      c1: { price: 0.58, source: 'fill' },
      // Latest fresh book one-sided: no midpoint, its newest fill.
      d0: { price: 0.15, source: 'fill' },
      // A book observed after now does not count.
      f0: { price: 0.3, source: 'fill' },
      g0: null,
      h0: { price: 0.7, source: 'fill' },
      // Exactly 10 minutes old is stale (no fill either); a millisecond younger is fresh.
      i0: null,
      j0: { price: 0.85, source: 'book' },
      // Own fill newer than the complement's.
      k0: { price: 0.3, source: 'fill' },
      k1: { price: 0.7, source: 'fill' },
      m0: { price: 0.25, source: 'fill' },
      // Not in alpha_tokens: a book still prices it; nothing else does.
      x0: { price: 0.06, source: 'book' },
      zz: null,
    });
  });

  it('gives the same prices when told the tokens traded since a block (those that did not are read in full)', async () => {
    const asked = ['a0', 'b1', 'c0', 'c1', 'd0', 'f0', 'g0', 'h0', 'k0', 'k1', 'm0', 'x0', 'zz'];
    const full = await currentPrices(deps.clickhouse, asked, NOW);
    for (const since of [0, 15, 25, 31, 10_000]) {
      expect(
        Object.fromEntries(await currentPrices(deps.clickhouse, asked, NOW, { sinceBlock: since })),
        `since ${since}`,
      ).toEqual(Object.fromEntries(full));
    }
  });

  it('prices as of an earlier now: before the resolution and the later fills', async () => {
    const earlier = NOW - 45 * MIN; // block times are NOW − 60 min + block s: blocks ≤ 900 only
    const prices = await currentPrices(deps.clickhouse, ['a0', 'c0', 'c1'], earlier);
    expect(prices.get('a0')).toEqual({ price: 0.25, source: 'fill' });
    expect(prices.get('c0')).toEqual({ price: 0.42, source: 'fill' });
    expect(prices.get('c1')).toEqual({ price: 0.58, source: 'fill' });
  });

  it(`answers ${2 * CHUNK + 100} tokens in three statements per ${CHUNK} tokens at most`, async () => {
    let statements = 0;
    const counting: ClickHouse = {
      ...deps.clickhouse,
      read: (label, sql, params) => {
        statements++;
        return deps.clickhouse.read(label, sql, params);
      },
      query: (label, sql, params) => {
        statements++;
        return deps.clickhouse.query(label, sql, params);
      },
    };
    const many = [
      ...Array.from({ length: 2 * CHUNK + 94 }, (_, i) => `n${i}`),
      'a0',
      'c0',
      'c1',
      'd0',
      'g0',
      'x0',
    ];
    const prices = await currentPrices(counting, many, NOW);
    expect(prices.size).toBe(many.length);
    expect(statements).toBeGreaterThanOrEqual(Math.ceil(many.length / CHUNK));
    expect(statements).toBeLessThanOrEqual(3 * Math.ceil(many.length / CHUNK));
    expect(prices.get('a0')).toEqual({ price: 1, source: 'payout' });
    expect(prices.get('c1')).toEqual({ price: 0.58, source: 'fill' });
    expect(prices.get('x0')).toEqual({ price: 0.06, source: 'book' });
    expect(prices.get('n17')).toBeNull();
  });

  it('reads a payout share exactly, refusing an all-zero payout or an index out of range', () => {
    expect(payoutShare(['0', '1'], 1)).toBe(1);
    expect(payoutShare(['1', '3'], 0)).toBe(0.25);
    expect(payoutShare(['0', '0'], 0)).toBeNull();
    expect(payoutShare(['1', '0'], 2)).toBeNull();
  });
});
