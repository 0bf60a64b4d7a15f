/**
 * `GET /v2/epsilon/markets` over seeded `epsilon_markets` rows and their canonical ids: every filter and
 * sort against the rows written (test/support/venue-markets-suite.ts), and epsilon's own rules: outcomes
 * with best bid and ask (no price), `created` as the default sort, integer `market_id` lists, the
 * `market_variant` enum.
 */
import { expect } from 'vitest';
import { EPSILON_MARKETS } from '../schemas/tables/epsilon.ts';
import {
  BASE_MS,
  canonicalIds,
  closedOrResolved,
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

const N = 120;
const iso = (ms: unknown) => (ms === null ? null : new Date(ms as number).toISOString());
const VARIANTS = ['DEFAULT', 'CRYPTO_UP_DOWN', 'SPORTS_TEAM_MATCH', 'SPORTS_MATCH', 'TWEET_COUNT'];

function build(): VenueFixture {
  const r = rng(71);
  const defaults = rowDefaults(EPSILON_MARKETS);
  const rows: Row[] = [];
  for (let i = 0; i < N; i++) {
    const common = commonRow(r, i);
    const bid = i % 6 === 0 ? null : r.int(1, 90) / 100;
    const event = `eps-event-${i % 9}`;
    rows.push({
      ...defaults,
      ...common,
      end_time: null,
      market_id: 40_000 + ((i * 7) % N) * 3,
      market_slug: `eps-market-${i}`,
      condition_id: `0x${(i + 9).toString(16).padStart(64, '0')}`,
      description: `Rules ${i}`,
      market_variant: VARIANTS[i % VARIANTS.length],
      token_ids: [`${80000 + i * 2}`, `${80001 + i * 2}`],
      outcome_best_bids: [bid, bid === null ? null : Math.round((0.95 - bid) * 100) / 100],
      outcome_best_asks: [bid === null ? null : bid + 0.02, null],
      best_bid: bid,
      best_ask: bid === null ? null : bid + 0.02,
      bid_depth: r.int(0, 25) * 40,
      ask_depth: r.int(0, 25) * 40,
      is_yield_bearing: i % 2 === 1,
      is_neg_risk: i % 3 === 1,
      event_key: event,
      event_slug: event,
      image_url: i % 4 ? `https://i/${i}.png` : '',
      winning_outcome: common.status === 'resolved' ? i % 2 : null,
      payout_numerators: common.status === 'resolved' ? (i % 2 ? [0, 1] : [1, 0]) : [],
      resolution_block: common.status === 'resolved' ? 5_000_000 + i : null,
      resolution_tx: common.status === 'resolved' ? `0x${i.toString(16).padStart(64, 'b')}` : null,
      updated_time: BASE_MS + i * 1000,
    });
  }
  const earlier = rows
    .filter((_, i) => i % 6 === 0)
    .map((x) => ({ ...x, created_time: BASE_MS + 10 ** 9, status: 'open', bid_depth: 123_456 }));
  const keyOf = (x: Row) => String(x.market_id);
  const ids = canonicalIds('epsilon', rows.map(keyOf));
  const tie = (a: Row, b: Row) => (a.market_id as number) - (b.market_id as number);
  const ms = (col: string) => (x: Row) => (x[col] as number | null) ?? null;
  const f: VenueFixture = {
    venue: 'epsilon',
    table: EPSILON_MARKETS,
    key: 'market_id',
    rows,
    earlier,
    ids,
    keyOf,
    servedKey: (m) => String(m.market_id),
    defaultSort: 'created',
    sorts: {
      created: nullsLast(ms('created_time'), -1, tie),
      created_asc: nullsLast(ms('created_time'), 1, tie),
      price_desc: nullsLast(first, -1, tie),
      price_asc: nullsLast(first, 1, tie),
      bid_depth: descBy((x) => x.bid_depth as number, tie),
    },
    filters: [],
    invalid: [
      ['market_id', 'market_id=abc'],
      ['market_variant', 'market_variant=OTHER'],
      ['min_bid_depth', 'min_bid_depth=-1'],
    ],
    noCanonicalId: '',
  };
  const some = rows.filter((_, i) => i % 8 === 5);
  f.filters = [
    ...commonFilters(f),
    {
      name: 'market_variant',
      query: { market_variant: 'SPORTS_MATCH' },
      pred: (x) => x.market_variant === 'SPORTS_MATCH',
    },
    { name: 'min_bid_depth', query: { min_bid_depth: 600 }, pred: (x) => (x.bid_depth as number) >= 600 },
    {
      name: 'condition_id',
      query: { condition_id: some.map((x) => x.condition_id as string) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'market_slug',
      query: { market_slug: some.map((x) => x.market_slug as string) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'market_id',
      query: { market_id: some.map((x) => x.market_id as number) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'token_id',
      query: { token_id: [(some[0]!.token_ids as string[])[0]!] },
      pred: (x) => x === some[0],
    },
    {
      name: 'event_slug',
      query: { event_slug: ['eps-event-1', 'eps-event-5'] },
      pred: (x) => x.event_slug === 'eps-event-1' || x.event_slug === 'eps-event-5',
    },
    {
      name: 'status closed, variant, min_bid_depth',
      query: { status: 'closed', market_variant: 'DEFAULT', min_bid_depth: 100 },
      pred: (x) => closedOrResolved(x) && x.market_variant === 'DEFAULT' && (x.bid_depth as number) >= 100,
    },
  ];
  return f;
}

venueListSuite(build, (m, x, ids) => {
  const bids = x.outcome_best_bids as (number | null)[];
  const asks = x.outcome_best_asks as (number | null)[];
  expect(m).toEqual({
    market_id: x.market_id,
    condition_id: x.condition_id,
    title: x.title,
    description: x.description,
    status: x.status,
    market_variant: x.market_variant,
    outcomes: (x.outcomes as string[]).map((label, i) => ({
      label,
      token_id: (x.token_ids as string[])[i],
      canonical_id: ids[i],
      best_bid: bids[i],
      best_ask: asks[i],
    })),
    best_bid: x.best_bid,
    best_ask: x.best_ask,
    bid_depth: x.bid_depth,
    ask_depth: x.ask_depth,
    is_yield_bearing: x.is_yield_bearing,
    is_neg_risk: x.is_neg_risk,
    event_slug: x.event_slug,
    image_url: x.image_url,
    winning_outcome: x.winning_outcome,
    payout_numerators: x.payout_numerators,
    resolution_block: x.resolution_block,
    resolution_tx: x.resolution_tx,
    created_time: iso(x.created_time),
    updated_time: iso(x.updated_time),
  });
});
