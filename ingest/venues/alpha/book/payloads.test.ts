import { describe, expect, it } from 'vitest';
import { checkBook, recordTokenId } from './payloads.ts';

const book = {
  market: '0xabc',
  asset_id: '123',
  timestamp: '1703875200000',
  hash: '0xh',
  bids: [{ price: '0.48', size: '1200' }],
  asks: [{ price: '0.52', size: '900' }],
  min_order_size: '5',
  tick_size: '0.01',
  neg_risk: false,
  last_trade_price: '0.50',
};

describe('book payloads', () => {
  it('accepts the documented example and a book with empty sides', () => {
    expect(checkBook(book)).toEqual({ ok: true, book });
    expect(checkBook({ ...book, bids: [], asks: [] }).ok).toBe(true);
  });

  it('refuses a field of the wrong type, a non-decimal price, a date-time timestamp and a price above 1', () => {
    const reasons = [
      { ...book, market: 404 },
      { ...book, bids: [{ price: 'abc', size: '1' }] },
      { ...book, timestamp: '2026-01-01T00:00:00Z' },
      { ...book, asks: [{ price: '1.5', size: '1' }] },
      { ...book, asks: undefined },
    ].map((r) => checkBook(r));
    expect(reasons.map((r) => r.ok)).toEqual([false, false, false, false, false]);
    expect(reasons.map((r) => (r.ok ? '' : r.reason))).toEqual([
      expect.stringMatching(/^\/market: /),
      expect.stringMatching(/^\/bids\/0\/price: /),
      expect.stringMatching(/^\/timestamp: /),
      'price 1.5 is above 1',
      expect.stringMatching(/^\/asks: /),
    ]);
  });

  it("names a record's token when it has one", () => {
    expect(recordTokenId({ asset_id: '7' })).toBe('7');
    expect(recordTokenId({ asset_id: 7 })).toBeNull();
    expect(recordTokenId(null)).toBeNull();
  });
});
