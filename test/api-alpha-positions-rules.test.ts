/**
 * The derived-number rules of the position endpoints (api/queries/alpha/position-rows.ts) on edge
 * values the seeded tables do not reach: halves, negative averages (a conversion's yes price can be
 * negative), no price, payouts, addresses.
 */
import { describe, expect, it } from 'vitest';
import { outcomeLabel, parseWallet, positionFigures, roundDiv } from '../api/queries/alpha/position-rows.ts';

const figures = (shares: number, avg: number, price: number | null, source = 'fill') =>
  positionFigures(
    { shares: String(shares), avgPrice: String(avg), realized: '-5', netFees: '7' },
    { price, source },
  );

describe('position rules', () => {
  it('rounds a quotient to the nearest integer, halves away from zero', () => {
    expect([7n, 5n, -5n, -7n, 4n, -4n, 0n].map((a) => roundDiv(a, 2n))).toEqual([
      4n,
      3n,
      -3n,
      -4n,
      2n,
      -2n,
      0n,
    ]);
    expect(roundDiv(1_499_999n, 1_000_000n)).toBe(1n);
    expect(roundDiv(-1_500_000n, 1_000_000n)).toBe(-2n);
  });

  it('costs the shares held at the avg price exactly, a negative avg included', () => {
    const f = figures(3_000_000, -250_000, 0.1);
    expect(f.cost).toBe(-750_000n);
    expect(f.value).toBe(300_000n);
    expect(f.unrealized).toBe(1_050_000n); // 3 × (0.1 − (−0.25))
    expect(f.unrealizedPct).toBe(140); // 1.05 ÷ |−0.75| × 100: the sign of the unrealized P&L
    expect(f.realized).toBe(-5n);
    expect(f.netFees).toBe(7n);
  });

  it('takes unrealized_pct against the cost basis, with the sign of unrealized_usd for every sign of the cost', () => {
    // Positive cost basis: a gain and a loss.
    expect(figures(10_000_000, 500_000, 0.6).unrealizedPct).toBe(20); // 1 ÷ 5
    expect(figures(4_000_000, 450_000, 0.4).unrealizedPct).toBe(-11.111111); // −0.2 ÷ 1.8
    // Negative cost basis (a conversion's negative yes price): a gain is positive, a loss negative.
    const gain = figures(2_000_000_000, -500_000, 0.75); // cost −1000, unrealized +2500
    expect(gain.unrealized).toBe(2_500_000_000n);
    expect(gain.unrealizedPct).toBe(250);
    const loss = figures(1_000_000, -100_000, 0); // cost −0.1, price 0: unrealized −(−0.1)·1 = +0.1
    expect(loss.unrealizedPct).toBe(100);
    const below = figures(1_000_000, -100_000, null); // no price: unrealized 0
    expect(below.unrealizedPct).toBe(0);
    for (const [shares, avg, price] of [
      [3_000_000, -250_000, 0.1],
      [7_000_000, -1_300_000, 0.02],
      [5_000_000, 200_000, 0.9],
      [5_000_000, 900_000, 0.1],
    ] as const) {
      const f = figures(shares, avg, price);
      expect(Math.sign(f.unrealizedPct), `${shares} at ${avg}, price ${price}`).toBe(
        Math.sign(Number(f.unrealized)),
      );
    }
    // Zero cost basis (no shares, or shares at an avg price of 0): 0, whatever the unrealized P&L.
    expect(figures(0, 400_000, 0.9).unrealizedPct).toBe(0);
    const free = figures(2_000_000, 0, 0.5);
    expect(free.unrealized).toBe(1_000_000n);
    expect(free.unrealizedPct).toBe(0);
  });

  it('prices a token without a price at its avg: value = cost, unrealized 0, open', () => {
    const f = figures(2_000_002, 333_333, null, 'payout');
    expect(f.price).toBe(0.333333);
    expect(f.value).toBe(f.cost);
    expect(f.cost).toBe(666_667n); // 2.000002 × 0.333333 = 0.666666666666 → 0.666667
    expect(f.unrealized).toBe(0n);
    expect(f.status).toBe('open');
  });

  it('reads resolved_win and resolved_loss from payout prices only', () => {
    expect(figures(1, 1, 1, 'payout').status).toBe('resolved_win');
    expect(figures(1, 1, 0.5, 'payout').status).toBe('resolved_win');
    expect(figures(1, 1, 0, 'payout').status).toBe('resolved_loss');
    expect(figures(1, 1, 0, 'fill').status).toBe('open');
    expect(figures(1, 1, 1, 'book').status).toBe('open');
    expect(figures(0, 0, 0.5).unrealizedPct).toBe(0);
  });

  it('labels outcomes from the catalog, else Yes / No', () => {
    expect(outcomeLabel({ slug: '', title: '', labels: ['Up', 'Down'] }, 1)).toBe('Down');
    expect(outcomeLabel({ slug: '', title: '', labels: [] }, 0)).toBe('Yes');
    expect(outcomeLabel({ slug: '', title: '', labels: ['', ''] }, 1)).toBe('No');
  });

  it('accepts one address in any case and names a bad one', () => {
    expect(parseWallet(' 0xABCDEF0000000000000000000000000000000001 ', 'wallet')).toBe(
      '0xabcdef0000000000000000000000000000000001',
    );
    expect(() => parseWallet('0x12', 'wallet')).toThrow(/Invalid address in wallet: "0x12"/);
  });
});
