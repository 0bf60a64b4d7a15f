/**
 * Beta's record → row rules (ingest/venues/beta/mappers.ts) on records shaped as the upstream serves
 * them: status per upstream status, prices null before the first trade and [last, 1 − last] after,
 * whole-dollar volume and open interest (floored), `result` '' → null, the group label only in a mutually
 * exclusive event of several markets, custom_strike as JSON text, multivariate markets recognised.
 */
import { describe, expect, it } from 'vitest';
import { eventStatus, isMultivariate, marketRow, statusOf } from '../ingest/venues/beta/mappers.ts';
import { CHECKERS, MARKET_STATUSES, type MarketPayload } from '../ingest/venues/beta/payloads.ts';

const market = (over: Partial<MarketPayload> = {}): MarketPayload => ({
  ticker: 'KXT-1',
  event_ticker: 'KXT',
  title: 'Will it rain?',
  yes_sub_title: 'Rain',
  no_sub_title: 'Rain',
  created_time: '2026-04-01T00:00:00.000Z',
  updated_time: '2026-04-01T02:00:00.000Z',
  open_time: '2026-04-01T00:00:00.000Z',
  close_time: '2026-04-02T00:00:00.000Z',
  expected_expiration_time: '2026-04-02T03:00:00.000Z',
  status: 'active',
  notional_value_dollars: '1.0000',
  yes_bid_dollars: '0.4100',
  yes_ask_dollars: '0.4300',
  no_bid_dollars: '0.5700',
  no_ask_dollars: '0.5900',
  last_price_dollars: '0.4200',
  volume_fp: '1234.56',
  open_interest_fp: '99.99',
  result: '',
  can_close_early: false,
  strike_type: 'custom',
  custom_strike: null,
  ...over,
});

const info = (mutuallyExclusive: boolean, markets: number) => ({
  title: 'Rain?',
  subtitle: 'On 2026-04-02',
  series_ticker: 'KXRAIN',
  category: 'Climate',
  mutually_exclusive: mutuallyExclusive,
  markets,
});

describe('beta mappers', () => {
  it('maps every upstream status to open, closed or resolved', () => {
    expect(Object.fromEntries(MARKET_STATUSES.map((s) => [s, statusOf(s)]))).toEqual({
      initialized: 'open',
      inactive: 'open',
      active: 'open',
      closed: 'closed',
      disputed: 'closed',
      determined: 'resolved',
      amended: 'resolved',
      finalized: 'resolved',
    });
    expect(CHECKERS.market.check({ ...market(), status: 'paused' }).ok).toBe(false);
    expect(eventStatus(['open', 'resolved'])).toBe('open');
    expect(eventStatus(['closed', 'resolved'])).toBe('closed');
    expect(eventStatus(['resolved', 'resolved'])).toBe('resolved');
  });

  it('derives prices, whole dollars and the event fields', () => {
    const r = marketRow(market(), info(true, 3), ['Weather']);
    expect(r).toMatchObject({
      status: 'open',
      prices: [0.42, 0.58],
      last_price: 0.42,
      volume: 1234.56,
      dollar_volume: 1234,
      volume_usd: 1234,
      open_interest: 99.99,
      dollar_open_interest: 99,
      result: null,
      group_label: 'Rain',
      event_title: 'Rain?',
      event_subtitle: 'On 2026-04-02',
      series_ticker: 'KXRAIN',
      category: 'Climate',
      tags: ['Weather'],
      outcomes: ['Yes', 'No'],
      token_ids: ['', ''],
      end_time: Date.parse('2026-04-02T00:00:00.000Z'),
      determination_time: null,
    });
    expect(marketRow(market({ notional_value_dollars: '0.5000' }), null, []).dollar_volume).toBe(617);
  });

  it('has no price before the first trade, a result once settled, a label only among alternatives', () => {
    const fresh = marketRow(market({ volume_fp: '0.00', last_price_dollars: '0.0000' }), info(false, 1), []);
    expect([fresh.prices, fresh.last_price, fresh.group_label]).toEqual([[null, null], null, null]);
    const settled = marketRow(
      market({ status: 'finalized', result: 'no', custom_strike: { outcome: 'Rain' } }),
      info(true, 1),
      [],
    );
    expect([settled.status, settled.result, settled.custom_strike, settled.group_label]).toEqual([
      'resolved',
      'no',
      '{"outcome":"Rain"}',
      null,
    ]);
    expect(isMultivariate(market({ mve_collection_ticker: 'KXMVE' }))).toBe(true);
    expect(isMultivariate(market())).toBe(false);
  });
});
