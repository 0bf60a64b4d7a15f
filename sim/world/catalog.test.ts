import { describe, expect, it } from 'vitest';
import { generateCatalog, indexCatalog, VENUES } from './catalog.ts';
import {
  binaryPositionIds,
  conditionId,
  NEG_RISK_ORACLE,
  negRiskQuestionId,
  STANDARD_ORACLE,
} from './ids.ts';

const START = Date.UTC(2026, 3, 1);

describe('catalog', () => {
  it('same seed gives a deep-equal catalog; another seed differs', () => {
    const a = generateCatalog({ seed: 42, size: 'small', startTime: START });
    const b = generateCatalog({ seed: 42, size: 'small', startTime: START });
    const c = generateCatalog({ seed: 43, size: 'small', startTime: START });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a.venues.alpha.markets)).not.toBe(JSON.stringify(c.venues.alpha.markets));
  });

  it("horizonDays spreads the same topics over more days; the default is the size's", () => {
    const day = 86_400_000;
    const a = generateCatalog({ seed: 42, size: 'small', startTime: START });
    const same = generateCatalog({ seed: 42, size: 'small', startTime: START, horizonDays: 3 });
    const b = generateCatalog({ seed: 42, size: 'small', startTime: START, horizonDays: 6 });
    expect(JSON.stringify(same)).toBe(JSON.stringify(a));
    expect(a.endTime - a.startTime).toBe(3 * day);
    expect(b.endTime - b.startTime).toBe(6 * day);
    expect(b.venues.alpha.markets.map((m) => m.question.replace(/\d/g, ''))).toEqual(
      a.venues.alpha.markets.map((m) => m.question.replace(/\d/g, '')),
    );
    const lastEnd = (c: typeof a) => Math.max(...c.venues.alpha.markets.map((m) => m.endTime));
    expect(lastEnd(b)).toBeGreaterThan(lastEnd(a));
    for (const bad of [0, 1.5, -2])
      expect(() => generateCatalog({ seed: 42, size: 'small', startTime: START, horizonDays: bad })).toThrow(
        /horizonDays/,
      );
  });

  it('a small world has about 20 alpha markets and every venue lists markets', () => {
    const cat = generateCatalog({ seed: 1, size: 'small', startTime: START });
    expect(cat.venues.alpha.markets.length).toBeGreaterThanOrEqual(15);
    expect(cat.venues.alpha.markets.length).toBeLessThanOrEqual(30);
    for (const v of VENUES) expect(cat.venues[v].markets.length).toBeGreaterThan(0);
  });

  it('alpha ids are derived from the questions exactly as the chain derives them', () => {
    const cat = generateCatalog({ seed: 2, size: 'small', startTime: START });
    for (const m of cat.venues.alpha.markets) {
      const a = m.alpha!;
      expect(m.key).toBe(a.conditionId);
      expect(conditionId(a.oracle, a.questionId, 2)).toBe(a.conditionId);
      expect(binaryPositionIds(a.oracle, a.questionId, a.collateral).tokenIds).toEqual(m.tokenIds);
      if (a.negRisk) {
        expect(a.oracle).toBe(NEG_RISK_ORACLE);
        expect(negRiskQuestionId(a.negRiskMarketId!, a.negRiskIndex!)).toBe(a.questionId);
      } else {
        expect(a.oracle).toBe(STANDARD_ORACLE);
        expect(a.umaQuestionId).toBe(a.questionId);
      }
    }
  });

  it('neg-risk events hold 3 to 6 markets sharing one market id with exactly one planned winner', () => {
    const cat = generateCatalog({ seed: 3, size: 'medium', startTime: START });
    const idx = indexCatalog(cat);
    const negRisk = cat.venues.alpha.events.filter((e) => e.negRisk);
    expect(negRisk.length).toBeGreaterThan(0);
    for (const e of negRisk) {
      expect(e.marketKeys.length).toBeGreaterThanOrEqual(3);
      expect(e.marketKeys.length).toBeLessThanOrEqual(6);
      const ms = e.marketKeys.map((k) => idx.market('alpha', k)!);
      expect(new Set(ms.map((m) => m.alpha!.negRiskMarketId)).size).toBe(1);
      if (ms.every((m) => m.resolution)) {
        expect(ms.filter((m) => m.resolution!.winningIndex === 0)).toHaveLength(1);
      }
    }
  });

  it('plans at least one disputed and at least one unresolved alpha market', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const cat = generateCatalog({ seed, size: 'small', startTime: START });
      const ms = cat.venues.alpha.markets;
      expect(ms.some((m) => m.resolution?.disputed)).toBe(true);
      expect(ms.some((m) => m.resolution === null)).toBe(true);
      for (const m of ms) if (m.resolution) expect(m.resolution.time).toBeGreaterThan(START);
    }
  });

  it('series recur daily, weekly and monthly, and tags have parents', () => {
    const cat = generateCatalog({ seed: 4, size: 'medium', startTime: START });
    const rec = new Set(cat.venues.alpha.series.map((s) => s.recurrence));
    expect([...rec].sort()).toEqual(['daily', 'monthly', 'weekly']);
    const slugs = new Set(cat.venues.alpha.tags.map((t) => t.slug));
    const children = cat.venues.alpha.tags.filter((t) => t.parentSlug !== null);
    expect(children.length).toBeGreaterThan(0);
    for (const t of children) expect(slugs.has(t.parentSlug!)).toBe(true);
  });

  it('sports markets carry league, teams and date, and topics are shared across venues', () => {
    const cat = generateCatalog({ seed: 5, size: 'medium', startTime: START });
    const sports = cat.venues.alpha.markets.filter((m) => m.sports);
    expect(sports.length).toBeGreaterThan(0);
    for (const m of sports) {
      expect(m.sports!.league).toBeTruthy();
      expect(m.sports!.homeTeam.name).not.toBe(m.sports!.awayTeam.name);
      expect(m.sports!.gameDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const alphaTopics = new Set(cat.venues.alpha.markets.map((m) => m.topicId));
    const shared = cat.venues.beta.markets.filter((m) => alphaTopics.has(m.topicId));
    expect(shared.length).toBeGreaterThan(0);
    expect(cat.venues.gamma.markets.some((m) => m.kind === 'amm')).toBe(true);
    expect(cat.venues.gamma.markets.some((m) => m.kind === 'clob')).toBe(true);
  });

  it('market keys and token ids are unique per venue', () => {
    const cat = generateCatalog({ seed: 6, size: 'medium', startTime: START });
    for (const v of VENUES) {
      const ms = cat.venues[v].markets;
      expect(new Set(ms.map((m) => m.key)).size).toBe(ms.length);
      expect(new Set(ms.flatMap((m) => m.tokenIds)).size).toBe(ms.length * 2);
      expect(new Set(cat.venues[v].events.map((e) => e.key)).size).toBe(cat.venues[v].events.length);
    }
  });
});
