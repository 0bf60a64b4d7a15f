import { describe, expect, it } from 'vitest';
import { etagOf, ifNoneMatchHits } from './etag.ts';

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  const tag = etagOf(Buffer.from('{"trades":[]}'));

  it('builds a strong ETag from the bytes', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf(Buffer.from('{"trades":[]}'))).toBe(tag);
    expect(etagOf(Buffer.from('{"trades":[1]}'))).not.toBe(tag);
  });

  it.each([
    ['the tag itself', tag],
    ['the weak form (weak comparison)', `W/${tag}`],
    ['a list naming it', `"a", ${tag}, "b"`],
    ['a list whose members hold commas', `"a,b",W/"c, d",${tag}`],
    ['a list split over header lines', ['"a"', tag]],
    ['a wildcard', '*'],
    ['a wildcard with spaces', ' * '],
  ])('matches %s', (_name, header) => {
    expect(ifNoneMatchHits(header, tag)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another tag', '"other"'],
    ['the tag without its quotes', tag.slice(1, -1)],
    ['an unterminated tag', tag.slice(0, -1)],
    ['garbage', 'W/ ,,'],
    ['a wildcard inside a list', `"a", *`],
  ])('does not match %s', (_name, header) => {
    expect(ifNoneMatchHits(header, tag)).toBe(false);
  });
});
