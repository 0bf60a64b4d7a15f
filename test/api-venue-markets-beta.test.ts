/**
 * `GET /v2/beta/markets` over seeded `beta_markets` rows and their canonical ids: every filter and sort
 * against the rows written (test/support/venue-markets-suite.ts), and beta's own rules: prices bounds in
 * integer cents 0–100 on the last price (inclusive; 101 or a fraction → 422; min above max → 400),
 * whole-dollar floors, outcomes Yes/No with bids and asks, a missing canonical id served as null.
 */
import { describe, expect, it } from 'vitest';
import { BETA_MARKETS } from '../schemas/tables/beta.ts';
import {
  BASE_MS,
  canonicalIds,
  closedOrResolved,
  cmpText,
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

const N = 140;
const iso = (ms: unknown) => (ms === null ? null : new Date(ms as number).toISOString());
const cents = (x: Row) => (x.last_price === null ? null : Math.round((x.last_price as number) * 100));

function build(): VenueFixture {
  const r = rng(11);
  const defaults = rowDefaults(BETA_MARKETS);
  const rows: Row[] = [];
  for (let i = 0; i < N; i++) {
    const common = commonRow(r, i);
    const last = i % 10 === 0 ? null : r.int(0, 100) / 100;
    const volume = r.int(0, 60) * 100 + (i % 4 === 0 ? 0.5 : 0);
    const oi = r.int(0, 30) * 50;
    const event = `KXEV-${i % 17}`;
    rows.push({
      ...defaults,
      ...common,
      ticker: `KX${String.fromCharCode(65 + (i % 26))}-${(i * 31) % N}-${i}`,
      token_ids: ['', ''],
      prices: last === null ? [null, null] : [last, Math.round((1 - last) * 100) / 100],
      volume_usd: Math.floor(volume),
      event_key: event,
      event_title: `Event ${i % 17}`,
      event_subtitle: i % 2 ? `On ${i}` : '',
      yes_subtitle: `Yes side ${i}`,
      no_subtitle: i % 3 ? `No side ${i}` : '',
      result: common.status === 'resolved' ? (i % 2 ? 'yes' : 'no') : null,
      open_time: BASE_MS - i * 3_600_000,
      close_time: i % 8 === 0 ? null : BASE_MS + r.int(1, 90) * 86_400_000,
      expected_expiration_time: BASE_MS + 100 * 86_400_000,
      settlement_time: common.status === 'resolved' ? BASE_MS + i : null,
      determination_time: null,
      can_close_early: i % 2 === 0,
      strike_type: i % 4 === 1 ? 'greater' : null,
      custom_strike: null,
      last_price: last,
      yes_bid: last === null ? null : Math.max(0, last - 0.01),
      yes_ask: last === null ? null : Math.min(1, last + 0.01),
      no_bid: last === null ? null : Math.max(0, 0.99 - last),
      no_ask: null,
      volume,
      open_interest: oi,
      dollar_volume: Math.floor(volume),
      dollar_open_interest: oi,
      series_ticker: i % 5 === 0 ? '' : `KXS-${i % 6}`,
      updated_time: BASE_MS + i * 1000,
    });
  }
  const earlier = rows
    .filter((_, i) => i % 6 === 0)
    .map((x) => ({ ...x, dollar_volume: 999_999, last_price: 0.5, status: 'open', title: 'Old' }));
  const keyOf = (x: Row) => String(x.ticker);
  const ids = canonicalIds('beta', rows.map(keyOf));
  const tie = (a: Row, b: Row) => cmpText(keyOf(a), keyOf(b));
  const f: VenueFixture = {
    venue: 'beta',
    table: BETA_MARKETS,
    key: 'ticker',
    rows,
    earlier,
    ids,
    keyOf,
    servedKey: (m) => String(m.ticker),
    defaultSort: 'volume',
    sorts: {
      volume: descBy((x) => x.dollar_volume as number, tie),
      open_interest: descBy((x) => x.dollar_open_interest as number, tie),
      price_desc: nullsLast((x) => x.last_price as number | null, -1, tie),
      price_asc: nullsLast((x) => x.last_price as number | null, 1, tie),
      close_time: nullsLast((x) => x.close_time as number | null, 1, tie),
    },
    filters: [],
    invalid: [
      ['min_price', 'min_price=101'],
      ['max_price', 'max_price=-1'],
      ['min_price', 'min_price=12.5'],
      ['min_volume', 'min_volume=-5'],
      ['ticker', Array.from({ length: 51 }, (_, i) => `ticker=T${i}`).join('&')],
    ],
    noCanonicalId: null,
  };
  const some = rows.filter((_, i) => i % 11 === 3);
  const priced = (lo: number, hi: number) => (x: Row) => {
    const c = cents(x);
    return c !== null && c >= lo && c <= hi;
  };
  f.filters = [
    ...commonFilters(f),
    { name: 'min_price (cents, inclusive)', query: { min_price: 30 }, pred: priced(30, 100) },
    { name: 'max_price (cents, inclusive)', query: { max_price: 45 }, pred: priced(0, 45) },
    {
      name: 'min_price = max_price',
      query: { min_price: cents(rows[1]!)!, max_price: cents(rows[1]!)! },
      pred: priced(cents(rows[1]!)!, cents(rows[1]!)!),
    },
    {
      name: 'min_open_interest (dollars)',
      query: { min_open_interest: 700 },
      pred: (x) => (x.dollar_open_interest as number) >= 700,
    },
    {
      name: 'min_volume (dollars)',
      query: { min_volume: 3000 },
      pred: (x) => (x.dollar_volume as number) >= 3000,
    },
    { name: 'ticker', query: { ticker: [...some.map(keyOf), 'NOPE'] }, pred: (x) => some.includes(x) },
    {
      name: 'event_ticker',
      query: { event_ticker: ['KXEV-3', 'KXEV-4'] },
      pred: (x) => x.event_key === 'KXEV-3' || x.event_key === 'KXEV-4',
    },
    { name: 'series_ticker', query: { series_ticker: 'KXS-2' }, pred: (x) => x.series_ticker === 'KXS-2' },
    {
      name: 'status closed, min_price, series_ticker',
      query: { status: 'closed', min_price: 20, series_ticker: ['KXS-1', 'KXS-3', 'KXS-4'] },
      pred: (x) =>
        closedOrResolved(x) &&
        priced(20, 100)(x) &&
        ['KXS-1', 'KXS-3', 'KXS-4'].includes(x.series_ticker as string),
    },
  ];
  return f;
}

const suite = venueListSuite(build, (m, x, ids) => {
  expect(m).toEqual({
    ticker: x.ticker,
    event_ticker: x.event_key,
    market_id: null,
    title: x.title,
    yes_subtitle: x.yes_subtitle,
    no_subtitle: x.no_subtitle,
    status: x.status,
    result: x.result,
    open_time: iso(x.open_time),
    close_time: iso(x.close_time),
    expected_expiration_time: iso(x.expected_expiration_time),
    settlement_time: iso(x.settlement_time),
    determination_time: null,
    can_close_early: x.can_close_early,
    strike_type: x.strike_type,
    custom_strike: null,
    outcomes: [
      { label: 'Yes', canonical_id: ids[0] || null, bid: x.yes_bid, ask: x.yes_ask },
      { label: 'No', canonical_id: ids[1] || null, bid: x.no_bid, ask: x.no_ask },
    ],
    last_price: x.last_price,
    volume: Math.floor(x.volume as number),
    open_interest: x.open_interest,
    dollar_volume: x.dollar_volume,
    dollar_open_interest: x.dollar_open_interest,
    event: {
      event_ticker: x.event_key,
      series_ticker: x.series_ticker === '' ? null : x.series_ticker,
      title: x.event_title,
      subtitle: x.event_subtitle,
    },
    created_at: iso(x.created_time),
    updated_at: iso(x.updated_time),
  });
});

describe('GET /v2/beta/markets: beta rules', () => {
  it('400 when min_price is above max_price', async () => {
    const res = await suite.get('/v2/beta/markets?min_price=60&max_price=40');
    expect(res.statusCode, res.body).toBe(400);
    expect((res.json() as { message: string }).message).toContain('min_price');
  });
});
