/**
 * Canonical outcome ids (DESIGN §6, interface-shapes §0.5): `"pmc_"` + the first 12 characters of the
 * lowercase RFC 4648 base32 (no padding) of sha256(key), where the key names the real-world outcome, not
 * a venue's listing of it. The same outcome listed on two venues gets the same id; re-ingesting a record
 * never changes it, since the key is built only from normalized fields that identify the outcome:
 * - sports (`sportsOutcomeKey`): league, the two teams (in either order), the game's UTC date and the side
 *   the outcome pays on; team A's YES and team B's NO of a two-way game are both "A wins" and share an id;
 * - every other outcome (`questionOutcomeKey`): the normalized question, the UTC resolution date and the
 *   normalized outcome label.
 * Shared by all venues: a venue's mapper picks the kind of key and passes its fields; nothing here knows
 * a venue.
 */
import { createHash } from 'node:crypto';

export const CANONICAL_ID_PREFIX = 'pmc_';
/** Base32 characters after the prefix. */
export const CANONICAL_HASH_CHARS = 12;
/** What every canonical id matches. */
export const CANONICAL_ID_PATTERN = /^pmc_[a-z2-7]{12}$/;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** Lowercase RFC 4648 base32 of `bytes`, without padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = ((buffer & 0xff) << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The canonical id of an outcome key (built by one of the key functions below). */
export function canonicalId(key: string): string {
  const digest = createHash('sha256').update(key, 'utf8').digest();
  return CANONICAL_ID_PREFIX + base32(digest).slice(0, CANONICAL_HASH_CHARS);
}

/**
 * Text as it identifies something across venues: Unicode-compatibility folded, accents removed,
 * lowercase, every run of characters other than letters and digits one space, trimmed.
 * "Will  the Lakers win?" and "will the lakers win" are the same question.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The UTC calendar day of a date (an ISO string, Unix ms or a Date): venues differ in time of day. */
export function utcDay(date: string | number | Date): string {
  const d = date instanceof Date ? date : new Date(date);
  const ms = d.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`Not a date: ${String(date)}`);
  return d.toISOString().slice(0, 10);
}

/** Fields are normalized, so they hold no '|': the joined key is unambiguous. */
const joinKey = (kind: string, parts: readonly string[]) => [kind, ...parts].join('|');

export interface QuestionOutcome {
  /** The market's question as listed ("Will X happen by June 30?"). */
  question: string;
  /** When the question resolves (the market's end date). */
  resolutionDate: string | number | Date;
  /** The outcome's label ("Yes", "No", "Over 2.5"). */
  outcome: string;
}

/** The key of a non-sports outcome: normalized question, UTC resolution day, normalized label. */
export function questionOutcomeKey(o: QuestionOutcome): string {
  return joinKey('question', [normalizeText(o.question), utcDay(o.resolutionDate), normalizeText(o.outcome)]);
}

export interface SportsOutcome {
  /** The league ("NBA", "Premier League"). */
  league: string;
  /** The two teams of the game, in any order. */
  teams: readonly [string, string];
  /** The game's date (its start). */
  date: string | number | Date;
  /** What the outcome pays on: one of the teams (that team wins), or another result such as "draw". */
  side: string;
}

/**
 * The key of a sports outcome: league, the teams sorted (home/away order differs across venues), the
 * UTC day of the game and the normalized side.
 */
export function sportsOutcomeKey(o: SportsOutcome): string {
  const teams = o.teams.map(normalizeText).sort();
  return joinKey('sports', [normalizeText(o.league), ...teams, utcDay(o.date), normalizeText(o.side)]);
}

/** The canonical id of a non-sports outcome. */
export const questionOutcomeId = (o: QuestionOutcome): string => canonicalId(questionOutcomeKey(o));

/** The canonical id of a sports outcome. */
export const sportsOutcomeId = (o: SportsOutcome): string => canonicalId(sportsOutcomeKey(o));
