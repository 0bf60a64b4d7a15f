/**
 * The catalog rules on cases a small sim world may not hold: split and absent payouts, events whose
 * markets closed at different times or have none, categories' slugs, rolling sums, tag ranks with ties.
 */
import { describe, expect, it } from 'vitest';
import type { MarketRollingMetrics } from '../../schemas/api/alpha-market-data.ts';
import { tagHierarchy } from './hierarchy.ts';
import { categorySlug, eventStatus, marketStatus, ROLLING_FIELDS, sumRolling, winningSide } from './rules.ts';

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
