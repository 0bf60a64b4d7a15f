import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  base32,
  CANONICAL_ID_PATTERN,
  canonicalId,
  normalizeText,
  questionOutcomeId,
  questionOutcomeKey,
  sportsOutcomeId,
  sportsOutcomeKey,
} from './canonical-id.ts';

/**
 * RFC 4648 base32 written independently of the module: the bytes as one bit string, cut in groups of
 * five (the last padded with zeros), each group an index into the lowercase alphabet.
 */
function referenceBase32(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

const referenceId = (key: string) =>
  `pmc_${referenceBase32(createHash('sha256').update(key, 'utf8').digest()).slice(0, 12)}`;

describe('base32', () => {
  it('encodes the RFC 4648 test vectors (lowercase, no padding)', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'my'],
      ['fo', 'mzxq'],
      ['foo', 'mzxw6'],
      ['foob', 'mzxw6yq'],
      ['fooba', 'mzxw6ytb'],
      ['foobar', 'mzxw6ytboi'],
    ];
    for (const [input, encoded] of vectors) expect(base32(Buffer.from(input))).toBe(encoded);
  });

  it('equals the bit-string encoding for every length up to 40 bytes', () => {
    for (let n = 0; n <= 40; n++) {
      const bytes = createHash('sha512').update(`bytes-${n}`).digest().subarray(0, n);
      expect(base32(bytes)).toBe(referenceBase32(bytes));
    }
  });
});

describe('canonicalId', () => {
  it('is pmc_ and the first 12 base32 characters of sha256(key)', () => {
    for (const key of [
      '',
      'a',
      'question|will it rain|2026-06-30|yes',
      'sports|nba|celtics|lakers|2026-04-01|lakers',
    ]) {
      expect(canonicalId(key)).toBe(referenceId(key));
      expect(canonicalId(key)).toMatch(CANONICAL_ID_PATTERN);
    }
  });

  it('is the same for the same key, call after call', () => {
    const key = questionOutcomeKey({
      question: 'Will BTC close above 100k?',
      resolutionDate: '2026-12-31',
      outcome: 'Yes',
    });
    const first = canonicalId(key);
    for (let i = 0; i < 5; i++) expect(canonicalId(key)).toBe(first);
  });

  it('gives 20,000 distinct keys 20,000 distinct ids, each of the documented form', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      for (const outcome of ['Yes', 'No']) {
        const id = questionOutcomeId({
          question: `Question number ${i}?`,
          resolutionDate: Date.UTC(2026, 0, 1),
          outcome,
        });
        expect(id).toMatch(CANONICAL_ID_PATTERN);
        ids.add(id);
      }
    }
    expect(ids.size).toBe(20_000);
  });
});

describe('outcome keys', () => {
  it('normalizes case, accents, punctuation and spacing of text', () => {
    expect(normalizeText('  Will  Zoë win — the “Élysée” race?! ')).toBe('will zoe win the elysee race');
  });

  it('gives one id to the same question listed differently on two venues', () => {
    const a = questionOutcomeId({
      question: 'Will the Fed cut rates in June?',
      resolutionDate: '2026-06-30T23:59:59Z',
      outcome: 'Yes',
    });
    const b = questionOutcomeId({
      question: 'will the fed cut rates in june',
      resolutionDate: Date.UTC(2026, 5, 30, 12),
      outcome: 'YES',
    });
    expect(a).toBe(b);
  });

  it('separates the outcomes, dates and questions that differ', () => {
    const base = {
      question: 'Will the Fed cut rates in June?',
      resolutionDate: '2026-06-30',
      outcome: 'Yes',
    };
    const ids = new Set([
      questionOutcomeId(base),
      questionOutcomeId({ ...base, outcome: 'No' }),
      questionOutcomeId({ ...base, resolutionDate: '2026-07-01' }),
      questionOutcomeId({ ...base, question: 'Will the Fed cut rates in July?' }),
    ]);
    expect(ids.size).toBe(4);
  });

  it('gives team A winning one id whichever team lists it and in whichever order', () => {
    const game = { league: 'NBA', date: '2026-04-01T23:30:00Z' };
    // Venue 1 lists "Lakers vs Celtics", Lakers' YES; venue 2 lists "Celtics @ Lakers", Celtics' NO.
    const lakersYes = sportsOutcomeId({ ...game, teams: ['Lakers', 'Celtics'], side: 'Lakers' });
    const celticsNo = sportsOutcomeId({
      ...game,
      league: 'nba',
      teams: ['Celtics', 'Lakers'],
      side: 'lakers',
    });
    expect(lakersYes).toBe(celticsNo);
    expect(sportsOutcomeId({ ...game, teams: ['Lakers', 'Celtics'], side: 'Celtics' })).not.toBe(lakersYes);
    expect(sportsOutcomeId({ ...game, teams: ['Lakers', 'Celtics'], side: 'Draw' })).not.toBe(lakersYes);
  });

  it('keeps sports and question keys apart and says what they hold', () => {
    expect(
      sportsOutcomeKey({ league: 'NBA', teams: ['Lakers', 'Celtics'], date: '2026-04-01', side: 'Lakers' }),
    ).toBe('sports|nba|celtics|lakers|2026-04-01|lakers');
    expect(
      questionOutcomeKey({ question: 'Rain in Paris?', resolutionDate: '2026-04-01', outcome: 'No' }),
    ).toBe('question|rain in paris|2026-04-01|no');
  });

  it('refuses a date that is not one', () => {
    expect(() => questionOutcomeKey({ question: 'q', resolutionDate: 'soon', outcome: 'Yes' })).toThrow(
      RangeError,
    );
  });
});
