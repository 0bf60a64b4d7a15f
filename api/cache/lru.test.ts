import { describe, expect, it } from 'vitest';
import { createResponseLru } from './lru.ts';

const entry = (bytes: number) => ({
  body: Buffer.alloc(bytes, 1),
  contentType: 'application/json; charset=utf-8',
  etag: '"x"',
});

describe('response LRU', () => {
  it('stays within its byte budget by evicting the least recently used entries', () => {
    const lru = createResponseLru(10_000);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, entry(1_500), Number.POSITIVE_INFINITY);
    expect(lru.bytes).toBeLessThanOrEqual(10_000);
    expect(lru.size).toBeLessThan(10);
    expect(lru.get('k0', 0)).toBeUndefined();
    expect(lru.get('k9', 0)).toBeDefined();
  });

  it('keeps an entry that was read over older unread ones', () => {
    const lru = createResponseLru(6_000);
    lru.set('a', entry(1_200), Number.POSITIVE_INFINITY);
    lru.set('b', entry(1_200), Number.POSITIVE_INFINITY);
    lru.set('c', entry(1_200), Number.POSITIVE_INFINITY);
    expect(lru.get('a', 0)).toBeDefined();
    lru.set('d', entry(1_200), Number.POSITIVE_INFINITY);
    lru.set('e', entry(1_200), Number.POSITIVE_INFINITY);
    expect(lru.get('a', 0)).toBeDefined();
    expect(lru.get('b', 0)).toBeUndefined();
  });

  it('forgets an entry once it expired, and does not keep one above a quarter of the budget', () => {
    const lru = createResponseLru(100_000);
    lru.set('a', entry(10), 1_000);
    expect(lru.get('a', 999)).toBeDefined();
    expect(lru.get('a', 1_000)).toBeUndefined();
    expect(lru.bytes).toBe(0);
    lru.set('big', entry(30_000), Number.POSITIVE_INFINITY);
    expect(lru.get('big', 0)).toBeUndefined();
  });

  it('charges a replaced entry once', () => {
    const lru = createResponseLru(100_000);
    lru.set('a', entry(1_000), Number.POSITIVE_INFINITY);
    const once = lru.bytes;
    lru.set('a', entry(1_000), Number.POSITIVE_INFINITY);
    expect(lru.bytes).toBe(once);
    expect(lru.size).toBe(1);
  });
});
