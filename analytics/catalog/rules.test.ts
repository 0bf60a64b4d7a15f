/**
 * The catalog rules on cases a small sim world may not hold: split and absent payouts, events whose
 * markets closed at different times or have none, categories' slugs, rolling sums, tag ranks with ties.
 */
import { describe, expect, it } from 'vitest';
import { canonicalId, questionOutcomeKey, sportsOutcomeKey } from '../../core/canonical-id.ts';
import type { MarketRollingMetrics } from '../../schemas/api/alpha-market-data.ts';
import { canonicalIds } from './canonical.ts';
import { tagHierarchy } from './hierarchy.ts';
import type { MarketSource } from './read.ts';
import {
  categorySlug,
  eventStatus,
  marketStatus,
  ROLLING_FIELDS,
  roundUsd,
  sumRolling,
  winningSide,
} from './rules.ts';

const rolling = (v: number, computedAt: string | null): MarketRollingMetrics => {
  const r = { computed_at: computedAt } as Record<string, number | string | null>;
  for (const f of ROLLING_FIELDS) r[f] = v;
  return r as unknown as MarketRollingMetrics;
};

describe('catalog rules', () => {
  it('market status: resolved on chain wins over the metadata, then closed, then open', () => {
    expect(marketStatus(['1', '0'], false)).toBe('resolved');
    expect(marketStatus(['0', '1'], true)).toBe('resolved');
    expect(marketStatus(null, true)).toBe('closed');
    expect(marketStatus(null, false)).toBe('open');
  });

  it('winning side: the only outcome paying, else null', () => {
    expect(winningSide(['0', '1'], ['Yes', 'No'])).toBe('No');
    expect(winningSide(['1000000', '0'], ['Lakers', 'Celtics'])).toBe('Lakers');
    expect(winningSide(['1', '1'], ['Yes', 'No'])).toBeNull();
    expect(winningSide(['0', '0'], ['Yes', 'No'])).toBeNull();
    expect(winningSide(null, ['Yes', 'No'])).toBeNull();
    expect(winningSide(['0', '0', '1'], ['Yes', 'No'])).toBeNull();
  });

  it('event status: open while a market is open; closed at its markets’ latest close', () => {
    expect(
      eventStatus([
        { status: 'closed', closedTime: 5 },
        { status: 'open', closedTime: null },
      ]),
    ).toEqual({ status: 'open', closedTime: null });
    expect(
      eventStatus([
        { status: 'closed', closedTime: 5 },
        { status: 'resolved', closedTime: 9 },
        { status: 'closed', closedTime: null },
        { status: 'resolved', closedTime: 7 },
      ]),
    ).toEqual({ status: 'closed', closedTime: 9 });
    expect(eventStatus([{ status: 'closed', closedTime: null }])).toEqual({
      status: 'closed',
      closedTime: null,
    });
    expect(eventStatus([])).toEqual({ status: 'closed', closedTime: null });
  });

  it('category slugs are the label’s words joined by -', () => {
    expect(categorySlug('US Politics')).toBe('us-politics');
    expect(categorySlug('  Pop—Culture! ')).toBe('pop-culture');
    expect(categorySlug('Économie')).toBe('economie');
    expect(categorySlug('!!!')).toBe('');
  });

  it('rolling metrics sum field by field with the newest computed_at; none → null', () => {
    expect(sumRolling([null, null])).toBeNull();
    const sum = sumRolling([
      rolling(1, '2026-01-01T00:00:00.000Z'),
      null,
      rolling(2.5, '2026-01-02T00:00:00.000Z'),
    ]);
    for (const f of ROLLING_FIELDS) expect(sum![f]).toBe(3.5);
    expect(sum!.computed_at).toBe('2026-01-02T00:00:00.000Z');
  });

  it('USD sums come out to the base unit, without the noise of adding doubles', () => {
    const parts = [10955.3306, 6514.7066, 4446.1403];
    expect(parts.reduce((a, b) => a + b, 0)).not.toBe(21916.1775);
    expect(roundUsd(parts.reduce((a, b) => a + b, 0))).toBe(21916.1775);
    const sum = sumRolling([rolling(0.1, null), rolling(0.2, null)]);
    for (const f of ROLLING_FIELDS) expect(sum![f]).toBe(0.3);
    expect(roundUsd(42)).toBe(42);
  });
});

describe('tag hierarchy', () => {
  const tag = (id: string, slug: string, eventCount: number, isCategory = false) => ({
    id,
    slug,
    eventCount,
    isCategory,
  });

  it('ranks category tags first, then more events, then the lower numeric id', () => {
    // "politics" has fewer events than "elections" but is a category: it is the parent.
    const places = tagHierarchy(
      [
        tag('10', 'elections', 50),
        tag('2', 'politics', 5, true),
        tag('100', 'us', 50),
        tag('9', 'senate', 50),
      ],
      [
        ['10', '2'],
        ['2', '10'],
        ['10', '100'],
        ['9', '10'],
        ['9', '100'],
        ['9', '9'],
        ['9', 'unknown'],
      ],
    );
    expect(places.get('2')).toEqual({ parentSlug: null, children: ['elections'] });
    // Same events: lower id ranks higher (9 < 10 < 100, numerically).
    expect(places.get('9')).toEqual({ parentSlug: null, children: ['elections', 'us'] });
    expect(places.get('10')).toEqual({ parentSlug: 'politics', children: ['us'] });
    expect(places.get('100')).toEqual({ parentSlug: 'senate', children: [] });
  });
});

describe('canonical ids', () => {
  const market = (o: Partial<MarketSource>): MarketSource => ({
    id: '1',
    event_id: '',
    condition_id: '0xc1',
    question_id: '',
    slug: '',
    question: 'Will it rain in Paris?',
    description: '',
    image: '',
    outcomes: ['Yes', 'No'],
    short_outcomes: [],
    clob_token_ids: [],
    group_item_title: '',
    start_date: null,
    end_date: Date.UTC(2026, 5, 30, 12),
    closed_time: null,
    created_at: 1,
    closed: false,
    enable_order_book: true,
    neg_risk: false,
    sports_market_type: '',
    game_start_time: null,
    team_a_id: '',
    team_b_id: '',
    ...o,
  });
  const game = {
    team_a_id: 'CHE',
    team_b_id: 'TOT',
    game_start_time: Date.UTC(2026, 3, 29, 19),
    sports_market_type: 'moneyline',
    end_date: Date.UTC(2026, 3, 29, 22),
  };
  const titles: Record<string, string> = { e1: 'Chelsea vs. Tottenham', e2: 'Paris weather' };

  it('keys games by the two teams, end day and side; other outcomes by question, end day and label', () => {
    const ids = canonicalIds(
      [
        market({ id: '1' }),
        market({
          id: '2',
          event_id: 'e1',
          condition_id: '0xc2',
          ...game,
          question: 'Chelsea vs. Tottenham',
          outcomes: ['Chelsea', 'Tottenham'],
          short_outcomes: ['CHE', 'TOT'],
        }),
        ...['Chelsea', 'Draw', 'Tottenham'].map((label, i) =>
          market({
            id: `3${i}`,
            event_id: 'e1',
            condition_id: `0xd${i}`,
            ...game,
            question: `Will ${label} win?`,
            group_item_title: label,
            neg_risk: true,
          }),
        ),
        market({ id: '4', condition_id: '0xc4', end_date: null }),
      ],
      (m) => titles[m.event_id] ?? '',
    );
    const day = { league: '', teams: ['Tottenham', 'Chelsea'] as const, date: '2026-04-29' };
    expect(ids.get('1')).toEqual(
      ['Yes', 'No'].map((outcome) =>
        canonicalId(
          questionOutcomeKey({ question: 'Will it rain in Paris?', resolutionDate: '2026-06-30', outcome }),
        ),
      ),
    );
    expect(ids.get('2')).toEqual(
      ['Chelsea', 'Tottenham'].map((side) => canonicalId(sportsOutcomeKey({ ...day, side }))),
    );
    // The Yes of "Chelsea" in the three-way group is the moneyline's Chelsea; its No is "not Chelsea".
    expect(ids.get('30')![0]).toBe(ids.get('2')![0]);
    expect(ids.get('31')).toEqual(
      ['Draw', 'not Draw'].map((side) => canonicalId(sportsOutcomeKey({ ...day, side }))),
    );
    expect(ids.get('4')).toEqual([null, null]);
  });

  it('gives one id to one outcome whatever market lists it, and serves the stored id first', () => {
    const ids = canonicalIds(
      [
        market({ id: '10', condition_id: '0xaa', created_at: 5 }),
        market({ id: '9', condition_id: '0xbb', created_at: 5 }),
        market({ id: '2', condition_id: '0xcc', created_at: 7 }),
      ],
      () => '',
      new Map([['2', ['pmc_aaaaaaaaaaaa', null]]]),
    );
    const key = (outcome: string) =>
      questionOutcomeKey({ question: 'Will it rain in Paris?', resolutionDate: '2026-06-30', outcome });
    expect(ids.get('9')).toEqual(['Yes', 'No'].map((o) => canonicalId(key(o))));
    expect(ids.get('10')).toEqual(ids.get('9'));
    expect(ids.get('2')).toEqual(['pmc_aaaaaaaaaaaa', canonicalId(key('No'))]);
  });
});
