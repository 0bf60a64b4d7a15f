/**
 * `GET /v2/delta/markets` over seeded `delta_markets` rows and their canonical ids: every filter and sort
 * against the rows written (test/support/venue-markets-suite.ts), and delta's own rules: integer
 * `market_id` / `event_id` lists (a non-integer → 422 naming it), categorical alternatives as markets of
 * one event, the collection object (null when the market has none), outcome defaults ("" ids).
 */
import { expect } from 'vitest';
import { DELTA_MARKETS } from '../schemas/tables/delta.ts';
import {
  BASE_MS,
  canonicalIds,
  closedOrResolved,
  commonFilters,
  commonRow,
  descBy,
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
  const r = rng(53);
  const defaults = rowDefaults(DELTA_MARKETS);
  const rows: Row[] = [];
  for (let i = 0; i < N; i++) {
    const common = commonRow(r, i);
    const categorical = i % 4 === 0;
    const event = categorical ? 900 + (i % 7) : null;
    const collection = i % 5 === 2;
    rows.push({
      ...defaults,
      ...common,
      market_id: 1000 + ((i * 37) % N) * 10 + (i % 10),
      slug: `delta-${i}`,
      description: `Rules ${i}`,
      market_type: categorical ? 'categorical' : 'binary',
      token_ids: [`${70000 + i * 2}`, `${70001 + i * 2}`],
      volume_24h_usd: r.int(0, 20) * 10,
      volume_7d_usd: r.int(0, 20) * 70,
      condition_id: `0x${(i + 3).toString(16).padStart(64, '0')}`,
      question_id: `0x${(i + 5).toString(16).padStart(64, '0')}`,
      result_token_id: common.status === 'resolved' ? `${70000 + i * 2}` : null,
      event_id: event,
      event_slug: event === null ? null : `delta-event-${event}`,
      event_key: event === null ? '' : String(event),
      event_title: event === null ? '' : `Delta event ${event}`,
      group_label: event === null ? null : `Alt ${i}`,
      labels: r.subset(['macro', 'sports', 'crypto', 'daily']),
      thumbnail_url: i % 3 ? `https://t/${i}.png` : '',
      chain_id: '56',
      quote_token: '0x55d398326f99059ff775485246999027b3197955',
      collection_title: collection ? `Daily BTC ${i % 3}` : '',
      collection_symbol: collection ? 'BTCD' : '',
      collection_frequency: collection ? 'daily' : '',
      cutoff_time: common.end_time,
      resolved_time: common.status === 'resolved' ? BASE_MS + i * 1000 : null,
    });
  }
  const earlier = rows
    .filter((_, i) => i % 6 === 0)
    .map((x) => ({ ...x, volume_usd: 777_777, status: 'open', labels: ['old'] }));
  const keyOf = (x: Row) => String(x.market_id);
  const ids = canonicalIds('delta', rows.map(keyOf));
  const tie = (a: Row, b: Row) => (a.market_id as number) - (b.market_id as number);
  const ms = (col: string) => (x: Row) => (x[col] as number | null) ?? null;
  const f: VenueFixture = {
    venue: 'delta',
    table: DELTA_MARKETS,
    key: 'market_id',
    rows,
    earlier,
    ids,
    keyOf,
    servedKey: (m) => String(m.market_id),
    defaultSort: 'volume',
    sorts: {
      volume: descBy((x) => x.volume_usd as number, tie),
      volume_24h: descBy((x) => x.volume_24h_usd as number, tie),
      volume_7d: descBy((x) => x.volume_7d_usd as number, tie),
      created: nullsLast(ms('created_time'), -1, tie),
      created_asc: nullsLast(ms('created_time'), 1, tie),
      expiration: nullsLast(ms('cutoff_time'), -1, tie),
    },
    filters: [],
    invalid: [
      ['market_id', 'market_id=abc'],
      ['market_id', 'market_id=1.5'],
      ['event_id', 'event_id=x'],
      ['market_type', 'market_type=scalar'],
    ],
    noCanonicalId: '',
  };
  const some = rows.filter((_, i) => i % 9 === 2);
  f.filters = [
    ...commonFilters(f),
    {
      name: 'market_type categorical',
      query: { market_type: 'categorical' },
      pred: (x) => x.market_type === 'categorical',
    },
    {
      name: 'labels (any)',
      query: { labels: ['sports', 'daily'] },
      pred: (x) => (x.labels as string[]).some((l) => l === 'sports' || l === 'daily'),
    },
    { name: 'min_volume', query: { min_volume: 6000 }, pred: (x) => (x.volume_usd as number) >= 6000 },
    {
      name: 'condition_id',
      query: { condition_id: some.map((x) => x.condition_id as string) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'market_slug',
      query: { market_slug: some.map((x) => x.slug as string) },
      pred: (x) => some.includes(x),
    },
    {
      name: 'market_id (integers)',
      query: { market_id: [...some.map((x) => x.market_id as number), 1] },
      pred: (x) => some.includes(x),
    },
    {
      name: 'token_id',
      query: { token_id: (some[2]!.token_ids as string[])[1]! },
      pred: (x) => x === some[2],
    },
    {
      name: 'event_id',
      query: { event_id: [901, 903] },
      pred: (x) => x.event_id === 901 || x.event_id === 903,
    },
    {
      name: 'event_slug',
      query: { event_slug: 'delta-event-902' },
      pred: (x) => x.event_slug === 'delta-event-902',
    },
    {
      name: 'status closed, binary, min_volume',
      query: { status: 'closed', market_type: 'binary', min_volume: 2000 },
      pred: (x) => closedOrResolved(x) && x.market_type === 'binary' && (x.volume_usd as number) >= 2000,
    },
  ];
  return f;
}

venueListSuite(build, (m, x, ids) => {
  const prices = x.prices as (number | null)[];
  expect(m).toEqual({
    market_id: x.market_id,
    title: x.title,
    slug: x.slug,
    description: x.description,
    status: x.status,
    market_type: x.market_type,
    outcomes: (x.outcomes as string[]).map((label, i) => ({
      label,
      token_id: (x.token_ids as string[])[i],
      canonical_id: ids[i],
      price: prices[i],
    })),
    total_volume_usd: x.volume_usd,
    volume_24h_usd: x.volume_24h_usd,
    volume_7d_usd: x.volume_7d_usd,
    condition_id: x.condition_id,
    question_id: x.question_id,
    result_token_id: x.result_token_id,
    event_id: x.event_id,
    event_slug: x.event_slug,
    event_title: x.event_title === '' ? null : x.event_title,
    labels: x.labels,
    thumbnail_url: x.thumbnail_url,
    chain_id: '56',
    quote_token: x.quote_token,
    collection:
      x.collection_title === ''
        ? null
        : { title: x.collection_title, symbol: x.collection_symbol, frequency: x.collection_frequency },
    created_time: iso(x.created_time),
    cutoff_time: iso(x.cutoff_time),
    resolved_time: iso(x.resolved_time),
  });
});
