/**
 * `GET /v2/gamma/markets` over seeded `gamma_markets` rows and their canonical ids: every filter and sort
 * against the rows written (test/support/venue-markets-suite.ts), and gamma's own rules: open interest
 * null for order-book markets and a number for AMM markets, `min_open_interest` leaving order-book
 * markets out, outcome defaults ("" token and canonical ids).
 */
import { describe, expect, it } from 'vitest';
import { GAMMA_MARKETS } from '../schemas/tables/gamma.ts';
import {
  BASE_MS,
  canonicalIds,
  closedOrResolved,
  cmpText,
  commonFilters,
  commonRow,
  descBy,
  first,
  nullsLast,
  type Row,
  rng,
  rowDefaults,
  type VenueFixture,
} from './support/venue-markets-fixtures.ts';
import { venueListSuite } from './support/venue-markets-suite.ts';

const N = 130;
const iso = (ms: unknown) => (ms === null ? null : new Date(ms as number).toISOString());

function build(): VenueFixture {
  const r = rng(37);
  const defaults = rowDefaults(GAMMA_MARKETS);
  const rows: Row[] = [];
  for (let i = 0; i < N; i++) {
    const common = commonRow(r, i);
    const clob = i % 3 === 0;
    rows.push({
      ...defaults,
      ...common,
      slug: `gamma-${String((i * 47) % N).padStart(3, '0')}-${i}`,
      token_ids: [`${9000 + i * 2}`, `${9001 + i * 2}`],
      condition_id: `0x${(i + 1).toString(16).padStart(64, '0')}`,
      market_id: i % 10 === 0 ? null : 5000 + i,
      description: `Resolves per source ${i}`,
      trade_type: clob ? 'clob' : 'amm',
      open_interest_usd: clob ? null : r.int(0, 30) * 100,
      liquidity_usd: r.int(0, 20) * 50,
      image_url: i % 2 ? `https://img/${i}.png` : '',
      categories: r.subset(['Crypto', 'Sports', 'Politics']),
      tags: r.subset(['btc', 'nba', 'election', 'weekly']),
      collateral_address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      collateral_symbol: 'USDC',
      collateral_decimals: 6,
      market_address: clob ? null : `0x${(i + 77).toString(16).padStart(40, '0')}`,
      exchange_address: clob ? '0x' + 'e'.repeat(40) : null,
      expired: common.status !== 'open',
      winning_outcome: common.status === 'resolved' ? i % 2 : null,
      payout_numerators: common.status === 'resolved' ? (i % 2 ? [0, 1] : [1, 0]) : [],
      resolution_block: common.status === 'resolved' ? 1_000_000 + i : null,
      resolution_tx: common.status === 'resolved' ? `0x${i.toString(16).padStart(64, 'a')}` : null,
      expiration_time: common.end_time,
      updated_time: BASE_MS + i * 1000,
    });
  }
  // Earlier versions of every 6th market: another volume, status and price.
  const earlier = rows
    .filter((_, i) => i % 6 === 0)
    .map((x) => ({ ...x, volume_usd: 987_654, status: 'open', prices: [0.5, 0.5], title: 'Old title' }));
  const keyOf = (x: Row) => String(x.slug);
  const ids = canonicalIds('gamma', rows.map(keyOf));
  const tie = (a: Row, b: Row) => cmpText(keyOf(a), keyOf(b));
  const ms = (col: string) => (x: Row) => (x[col] as number | null) ?? null;
  const f: VenueFixture = {
    venue: 'gamma',
    table: GAMMA_MARKETS,
    key: 'slug',
    rows,
    earlier,
    ids,
    keyOf,
    servedKey: (m) => String(m.market_slug),
    defaultSort: 'volume',
    sorts: {
      volume: descBy((x) => x.volume_usd as number, tie),
      open_interest: nullsLast((x) => x.open_interest_usd as number | null, -1, tie),
      liquidity: descBy((x) => x.liquidity_usd as number, tie),
      price_desc: nullsLast(first, -1, tie),
      price_asc: nullsLast(first, 1, tie),
      expiration: nullsLast(ms('expiration_time'), -1, tie),
      created: nullsLast(ms('created_time'), -1, tie),
      created_asc: nullsLast(ms('created_time'), 1, tie),
    },
    filters: [],
    invalid: [],
    noCanonicalId: '',
  };
  const some = rows.filter((_, i) => i % 9 === 4);
  f.filters = [
    ...commonFilters(f),
    { name: 'trade_type amm', query: { trade_type: 'amm' }, pred: (x) => x.trade_type === 'amm' },
    { name: 'trade_type clob', query: { trade_type: 'clob' }, pred: (x) => x.trade_type === 'clob' },
    {
      name: 'categories (any)',
      query: { categories: ['Sports', 'Politics'] },
      pred: (x) => (x.categories as string[]).some((c) => c === 'Sports' || c === 'Politics'),
    },
    { name: 'tags', query: { tags: 'nba' }, pred: (x) => (x.tags as string[]).includes('nba') },
    { name: 'min_volume', query: { min_volume: 5000 }, pred: (x) => (x.volume_usd as number) >= 5000 },
    {
      name: 'min_open_interest (order-book markets never match)',
      query: { min_open_interest: 1500 },
      pred: (x) => x.open_interest_usd !== null && (x.open_interest_usd as number) >= 1500,
    },
    {
      name: 'min_open_interest=0 (every AMM market)',
      query: { min_open_interest: 0 },
      pred: (x) => x.trade_type === 'amm',
    },
    {
      name: 'condition_id',
      query: { condition_id: some.map((x) => x.condition_id as string) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'market_slug',
      query: { market_slug: [...some.map(keyOf), 'no-such-slug'] },
      pred: (x) => some.includes(x),
    },
    {
      name: 'token_id (either outcome)',
      query: { token_id: [(some[0]!.token_ids as string[])[1]!, (some[1]!.token_ids as string[])[0]!] },
      pred: (x) => x === some[0] || x === some[1],
    },
    {
      name: 'status closed, amm, min_volume',
      query: { status: 'closed', trade_type: 'amm', min_volume: 2000 },
      pred: (x) => closedOrResolved(x) && x.trade_type === 'amm' && (x.volume_usd as number) >= 2000,
    },
  ];
  return f;
}

const suite = venueListSuite(build, (m, x, ids) => {
  const prices = x.prices as (number | null)[];
  expect(m).toEqual({
    condition_id: x.condition_id,
    market_id: x.market_id,
    market_slug: x.slug,
    title: x.title,
    description: x.description,
    status: x.status,
    trade_type: x.trade_type,
    outcomes: (x.outcomes as string[]).map((label, i) => ({
      label,
      token_id: (x.token_ids as string[])[i],
      canonical_id: ids[i],
      price: prices[i],
    })),
    total_volume_usd: x.volume_usd,
    open_interest_usd: x.open_interest_usd,
    liquidity_usd: x.liquidity_usd,
    image_url: x.image_url,
    categories: x.categories,
    tags: x.tags,
    collateral: { address: x.collateral_address, symbol: 'USDC', decimals: 6 },
    market_address: x.market_address,
    exchange_address: x.exchange_address,
    expired: x.expired,
    winning_outcome: x.winning_outcome,
    payout_numerators: x.payout_numerators,
    resolution_block: x.resolution_block,
    resolution_tx: x.resolution_tx,
    expiration_time: iso(x.expiration_time),
    created_time: iso(x.created_time),
    updated_time: iso(x.updated_time),
  });
});

describe('GET /v2/gamma/markets: gamma rules', () => {
  it('open_interest_usd is null for order-book markets and a number for AMM markets', async () => {
    const every = await suite.all({}, 50);
    const clob = every.filter((m) => m.trade_type === 'clob');
    const amm = every.filter((m) => m.trade_type === 'amm');
    expect(clob.length).toBeGreaterThan(0);
    expect(amm.length).toBeGreaterThan(0);
    for (const m of clob) expect(m.open_interest_usd).toBeNull();
    for (const m of amm) expect(typeof m.open_interest_usd).toBe('number');
  });
});
