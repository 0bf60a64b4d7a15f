import { describe, expect, it } from 'vitest';
import { searchWords } from './search-words.ts';

describe('searchWords', () => {
  it('splits on anything but letters and digits, lowercases and drops repeats', () => {
    expect(searchWords('Will BTC close above $100,000 on Nov. 30? BTC!')).toEqual([
      'will',
      'btc',
      'close',
      'above',
      '100',
      '000',
      'on',
      'nov',
      '30',
    ]);
  });
  it('folds accents so that a query without them finds a title with them', () => {
    expect(searchWords('Atlético Madrid vs. Málaga')).toEqual(['atletico', 'madrid', 'vs', 'malaga']);
  });
  it('gives no word for punctuation only', () => {
    expect(searchWords(' -- ?! ')).toEqual([]);
  });
});
