import { describe, expect, it } from 'vitest';
import { createRng } from './rng.ts';

function draw(seed: string | number, n: number): number[] {
  const r = createRng(seed);
  return Array.from({ length: n }, () => r.next());
}

describe('rng', () => {
  it('same seed gives the same sequence, another seed a different one', () => {
    expect(draw('alpha', 50)).toEqual(draw('alpha', 50));
    expect(draw('alpha', 50)).not.toEqual(draw('alphb', 50));
    expect(draw(7, 5)).toEqual(draw('7', 5));
  });

  it('int stays within bounds inclusive and hits both ends', () => {
    const r = createRng('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = r.int(3, 6);
      expect(x).toBeGreaterThanOrEqual(3);
      expect(x).toBeLessThanOrEqual(6);
      seen.add(x);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
    expect(() => r.int(5, 4)).toThrow(RangeError);
  });

  it('normal has roughly the requested mean and spread', () => {
    const r = createRng('normal');
    const xs = Array.from({ length: 20000 }, () => r.normal(10, 2));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(mean).toBeCloseTo(10, 1);
    expect(sd).toBeGreaterThan(1.9);
    expect(sd).toBeLessThan(2.1);
  });

  it('shuffle returns a permutation and leaves the input untouched', () => {
    const input = [1, 2, 3, 4, 5, 6, 7, 8];
    const out = createRng('s').shuffle(input);
    expect(input).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...out].sort()).toEqual(input);
    expect(out).not.toEqual(input);
  });

  it('fork is independent of draws already made on the parent', () => {
    const a = createRng('p');
    const b = createRng('p');
    b.next();
    b.next();
    expect(a.fork('x').next()).toBe(b.fork('x').next());
    expect(a.fork('x').next()).not.toBe(a.fork('y').next());
  });

  it('weightedIndex never picks a zero weight and hex32 is 32 bytes', () => {
    const r = createRng('w');
    for (let i = 0; i < 500; i++) expect(r.weightedIndex([0, 1, 0, 3])).not.toBe(0);
    expect(r.hex32()).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
