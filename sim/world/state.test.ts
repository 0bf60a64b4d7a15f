import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateCatalog } from './catalog.ts';
import { createWorldState } from './state.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const catalog = generateCatalog({ seed: 9, size: 'small', startTime: START });

function digest(x: unknown): string {
  return createHash('sha256').update(JSON.stringify(x)).digest('hex');
}

describe('world state', () => {
  it('same catalog and same calls give the same state', () => {
    const run = () => {
      const s = createWorldState(catalog);
      const m = catalog.venues.alpha.markets[0]!;
      s.recordTrade({
        venue: 'alpha',
        marketKey: m.key,
        tokenId: m.tokenIds[1],
        side: 'buy',
        price: 0.4,
        shares: 10,
        time: START + 1000,
      });
      s.advanceTime(6 * HOUR);
      return digest(s.exportState());
    };
    expect(run()).toBe(run());
  });

  it('self-driven trading does not depend on how time is cut into ticks', () => {
    const a = createWorldState(catalog);
    const b = createWorldState(catalog);
    a.tick(START + 12 * HOUR);
    for (let t = START; t <= START + 12 * HOUR; t += 17 * 60_000) b.tick(t);
    b.tick(START + 12 * HOUR);
    expect(a.trades('beta').length).toBeGreaterThan(0);
    expect(digest(a.exportState())).toBe(digest(b.exportState()));
  });

  it('beta trades, bars and books move over time without a chain; alpha waits for the chain', () => {
    const s = createWorldState(catalog);
    const beta = catalog.venues.beta.markets[0]!;
    const before = s.book('beta', beta.key);
    s.advanceTime(6 * HOUR);
    expect(s.trades('beta', beta.key).length).toBeGreaterThan(0);
    expect(s.bars('beta', beta.key).length).toBeGreaterThan(0);
    expect(s.book('beta', beta.key).version).not.toBe(before.version);
    expect(s.trades('alpha')).toHaveLength(0);
  });

  it('recordTrade on the no token moves outcome 0 to the complement price and adds volume', () => {
    const s = createWorldState(catalog);
    const m = catalog.venues.alpha.markets[0]!;
    s.recordTrade({
      venue: 'alpha',
      tokenId: m.tokenIds[1],
      side: 'buy',
      price: 0.3,
      shares: 100,
      time: START + 60_000,
    });
    expect(s.price('alpha', m.key).last).toBeCloseTo(0.7, 10);
    expect(s.volume('alpha', m.key)).toEqual({ notional: 30, shares: 100, count: 1 });
    const book = s.book('alpha', m.key);
    expect(book.bids[0]!.price).toBeLessThan(book.asks[0]!.price);
    expect(Math.abs(book.bids[0]!.price - 0.7)).toBeLessThan(0.05);
    const no = s.book('alpha', m.key, 1);
    expect(no.bids[0]!.price).toBeCloseTo(1 - book.asks[0]!.price, 10);
  });

  it('a resolution closes the market, empties its book and sets the winner price', () => {
    const s = createWorldState(catalog);
    const m = catalog.venues.alpha.markets[0]!;
    s.setUmaStatus(m.alpha!.conditionId, 'proposed', START + HOUR);
    s.recordResolution({ conditionId: m.alpha!.conditionId, winningIndex: 1, time: START + 2 * HOUR });
    const st = s.status('alpha', m.key);
    expect(st.status).toBe('resolved');
    expect(st.umaHistory.map((h) => h.status)).toEqual(['proposed', 'resolved']);
    expect(s.price('alpha', m.key).last).toBe(0);
    expect(s.book('alpha', m.key).bids).toHaveLength(0);
  });

  it("non-alpha markets resolve at their planned time; alpha does in 'self' mode with the dispute history", () => {
    const s = createWorldState(catalog, { alpha: 'self' });
    s.tick(catalog.endTime);
    const planned = catalog.venues.beta.markets.find((m) => m.resolution)!;
    expect(s.status('beta', planned.key).status).toBe('resolved');
    const disputed = catalog.venues.alpha.markets.find((m) => m.resolution?.disputed)!;
    expect(s.status('alpha', disputed.key).umaHistory.map((h) => h.status)).toEqual([
      'proposed',
      'disputed',
      'proposed',
      'resolved',
    ]);
    const open = catalog.venues.alpha.markets.find((m) => !m.resolution)!;
    expect(s.status('alpha', open.key).status).not.toBe('resolved');
  });
});
