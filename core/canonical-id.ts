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
  /** Which of several games of the same teams on that day (1, 2, …); absent when it is the only one. */
  game?: number;
}

/**
 * The key of a sports outcome: league, the teams sorted (home/away order differs across venues), the
 * UTC day of the game and the normalized side.
 */
export function sportsOutcomeKey(o: SportsOutcome): string {
  const teams = o.teams.map(normalizeText).sort();
  const day = o.game === undefined ? utcDay(o.date) : `${utcDay(o.date)} game ${o.game}`;
  return joinKey('sports', [normalizeText(o.league), ...teams, day, normalizeText(o.side)]);
}

/** The canonical id of a non-sports outcome. */
export const questionOutcomeId = (o: QuestionOutcome): string => canonicalId(questionOutcomeKey(o));

/** The canonical id of a sports outcome. */
export const sportsOutcomeId = (o: SportsOutcome): string => canonicalId(sportsOutcomeKey(o));

// ---------------------------------------------------------------------------------------------------
// Keys from what a venue serves (one rule for all five venues; ingest/canonical/ maps each venue's
// stored rows to `ServedMarket`, analytics/catalog/canonical.ts maps alpha's catalog rows the same way).

/** The fields of one stored market that its outcomes' keys are derived from (every venue serves them). */
export interface ServedMarket {
  /** The market's own question/title as served. */
  title: string;
  /** Outcome labels in index order. */
  outcomes: readonly string[];
  /** When trading ends / the question resolves (Unix ms); null: no key. */
  endTime: number | null;
  /** The parent event's title ('' when none). */
  eventTitle: string;
  /** The market's label as one alternative of a mutually exclusive multi-market event; null otherwise. */
  groupLabel: string | null;
}

const isYesNo = (outcomes: readonly string[]) =>
  outcomes.length === 2 &&
  normalizeText(outcomes[0] ?? '') === 'yes' &&
  normalizeText(outcomes[1] ?? '') === 'no';

const MATCHUP_SEPARATORS = [/\s+vs\.?\s+/i, /\s+v\.?\s+/i, /\s+at\s+/i, /\s+@\s+/];

/**
 * The two sides of a game named "A vs. B", "A vs B", "A v B", "A at B" or "A @ B" (a trailing "?" or
 * date in parentheses ignored), or the two sides inside "Will X win the A vs B game …?"; null otherwise.
 */
export function matchupTeams(text: string): [string, string] | null {
  const inner = /\bthe\s+(.+?)\s+(?:vs\.?|at|@)\s+(.+?)\s+(?:game|match)\b/i.exec(text);
  if (inner) return [inner[1]!.trim(), inner[2]!.trim()];
  const plain = text
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/\?\s*$/, '')
    .trim();
  for (const sep of MATCHUP_SEPARATORS) {
    const parts = plain.split(sep);
    if (parts.length === 2 && parts[0]!.trim() !== '' && parts[1]!.trim() !== '') {
      return [parts[0]!.trim(), parts[1]!.trim()];
    }
  }
  return null;
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const x = a.map(normalizeText).sort();
  const y = b.map(normalizeText).sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/**
 * The league part of sports keys. Delta serves no tags, labels or series for a game listed as a group
 * and beta's markets none either, so no league is served by every venue: the key carries none (two
 * teams' full names and the day identify a game), and `sportsOutcomeKey` keeps the field for callers
 * with a league of their own.
 */
export const SERVED_LEAGUE = '';

/** How the outcomes of one market are keyed, before any game number. */
interface ServedKind {
  /** The outcome sides, index order (a label, "not <label>", the other alternative). */
  sides: string[];
  /** A game: its two teams; null: a question. */
  teams: [string, string] | null;
  question: string;
  date: number;
}

function servedKind(m: ServedMarket, alternatives: readonly string[]): ServedKind | null {
  if (m.endTime === null || !Number.isFinite(m.endTime)) return null;
  const date = m.endTime;
  const label = m.groupLabel?.trim() ?? '';
  if (label !== '' && isYesNo(m.outcomes) && alternatives.length >= 2) {
    const own = normalizeText(label);
    const others = alternatives.filter((a) => normalizeText(a) !== own);
    const no = alternatives.length === 2 && others.length === 1 ? others[0]! : `not ${label}`;
    const sides = [label, no];
    const teams = matchupTeams(m.eventTitle) ?? matchupTeams(m.title);
    if (teams !== null) {
      const allowed = new Set([...teams.map(normalizeText), 'draw']);
      if (alternatives.every((a) => allowed.has(normalizeText(a)))) {
        return { sides, teams, question: '', date };
      }
    }
    const question = m.eventTitle.trim() !== '' ? m.eventTitle : m.title;
    return { sides, teams: null, question, date };
  }
  if (m.outcomes.length === 2 && !isYesNo(m.outcomes)) {
    const teams = matchupTeams(m.title);
    if (teams !== null && sameSet(teams, m.outcomes)) {
      return { sides: [...m.outcomes], teams, question: '', date };
    }
  }
  return { sides: [...m.outcomes], teams: null, question: m.title, date };
}

/** A game's identity without its number: the two teams and the day. */
const gameOf = (k: ServedKind) =>
  k.teams === null
    ? null
    : sportsOutcomeKey({ league: SERVED_LEAGUE, teams: k.teams, date: k.date, side: '' });

function keysOf(k: ServedKind | null, outcomes: number, game?: number): (string | null)[] {
  if (k === null) return Array.from({ length: outcomes }, () => null);
  const { teams, date } = k;
  if (teams !== null) {
    return k.sides.map((side) => sportsOutcomeKey({ league: SERVED_LEAGUE, teams, date, side, game }));
  }
  return k.sides.map((outcome) =>
    questionOutcomeKey({ question: k.question, resolutionDate: date, outcome }),
  );
}

/**
 * The canonical key of each outcome of `m` (null where it has none: no end time), given the labels of
 * every alternative of its event (`alternatives`, this market's included; empty when it is none):
 * - an alternative (a Yes/No market with a group label in an event of ≥ 2 alternatives): its Yes is the
 *   label, its No "not <label>", or the other alternative when the event has exactly two; a game when
 *   the event title names two teams and every alternative is one of them or "Draw" (sports key), else
 *   keyed by the event title (question key);
 * - a two-outcome market titled "A vs. B" whose outcomes are A and B: a game, side = the outcome;
 * - anything else: the title, the end day and the outcome label.
 * A game's day is the UTC day of the market's end time (the only time every venue serves for it);
 * `game` numbers one of several games of the same teams on one day (`servedKeys`).
 */
export function servedOutcomeKeys(
  m: ServedMarket,
  alternatives: readonly string[],
  game?: number,
): (string | null)[] {
  return keysOf(servedKind(m, alternatives), m.outcomes.length, game);
}

/**
 * Keys of many markets of one venue: `eventOf` names a market's event ('' when none); the alternatives
 * of an event are the group labels of its markets. When the venue lists more than one game of the same
 * two teams on one day (a doubleheader; one game = one event, or one market without an event), the
 * games are numbered 1, 2, … in order of their end time and the number is part of their keys.
 * Returns the keys in `markets` order.
 */
export function servedKeys<T>(
  markets: readonly T[],
  served: (m: T) => ServedMarket,
  eventOf: (m: T) => string,
): (string | null)[][] {
  const rows = markets.map((m) => ({ m: served(m), event: eventOf(m) }));
  const labels = new Map<string, string[]>();
  for (const r of rows) {
    const label = r.m.groupLabel?.trim() ?? '';
    if (r.event === '' || label === '') continue;
    const list = labels.get(r.event) ?? [];
    if (!list.some((l) => normalizeText(l) === normalizeText(label))) list.push(label);
    labels.set(r.event, list);
  }
  const kinds = rows.map((r) => servedKind(r.m, r.event === '' ? [] : (labels.get(r.event) ?? [])));
  // Games of the same teams and day: the listings (event, else market) of each, by end time.
  const listings = new Map<string, Map<string, number>>();
  kinds.forEach((k, i) => {
    const game = k === null ? null : gameOf(k);
    if (game === null) return;
    const listing = rows[i]!.event !== '' ? `e|${rows[i]!.event}` : `m|${i}`;
    const of = listings.get(game) ?? new Map<string, number>();
    of.set(listing, Math.min(of.get(listing) ?? Number.POSITIVE_INFINITY, k!.date));
    listings.set(game, of);
  });
  const numberOf = new Map<string, number>();
  for (const [game, of] of listings) {
    if (of.size < 2) continue;
    [...of.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .forEach(([listing], n) => {
        numberOf.set(`${game}\u0000${listing}`, n + 1);
      });
  }
  return kinds.map((k, i) => {
    const game = k === null ? null : gameOf(k);
    const listing = rows[i]!.event !== '' ? `e|${rows[i]!.event}` : `m|${i}`;
    const n = game === null ? undefined : numberOf.get(`${game}\u0000${listing}`);
    return keysOf(k, rows[i]!.m.outcomes.length, n);
  });
}

/** The fields of an alpha catalog market (alpha_markets, its event's title) its keys come from. */
export interface AlphaServedFields {
  question: string;
  outcomes: readonly string[];
  end_date: number | null;
  group_item_title: string;
  neg_risk: boolean;
}

/**
 * Alpha's market as served: a group item title counts as an alternative's label only in a neg-risk
 * (mutually exclusive) event; alpha's team ids and game start are not used (the other venues serve
 * neither), so alpha keys a game like every venue does.
 */
export function alphaServedMarket(m: AlphaServedFields, eventTitle: string): ServedMarket {
  return {
    title: m.question,
    outcomes: m.outcomes,
    endTime: m.end_date,
    eventTitle,
    groupLabel: m.neg_risk && m.group_item_title.trim() !== '' ? m.group_item_title : null,
  };
}
