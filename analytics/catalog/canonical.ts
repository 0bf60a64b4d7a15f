/**
 * Canonical ids of alpha's outcomes (core/canonical-id.ts; docs/catalog.md "Rules"):
 * - a sports game (both team ids, the game's start, the event in a series naming the league):
 *   - a two-way moneyline (one short outcome per team): side = the outcome's short outcome (team id);
 *   - a Yes/No market of one result of the game (its group item title: a team or "Draw"): Yes = that
 *     result, No = "not <result>";
 *   keyed by league, the two teams, the game's day and the side;
 * - every other outcome: question, resolution day (the market's end date) and label; null without an
 *   end date.
 * Keys name the real-world outcome, so two markets of one catalog can share one (the same teams twice on
 * one day; the same question twice on one day). Ids stay one per outcome: of the markets sharing a key,
 * the first created (then the lowest id) keeps the key's id, each other one's key gets its condition id
 * appended — an id that stays as long as that first market is in the catalog.
 */
import { canonicalId, questionOutcomeKey, sportsOutcomeKey } from '../../core/canonical-id.ts';
import type { MarketSource } from './read.ts';

function sportsSide(m: MarketSource, index: number): string | null {
  if (m.outcomes.length !== 2) return null;
  if (m.group_item_title === '' && m.short_outcomes.length === 2) return m.short_outcomes[index] || null;
  const yesNo = m.outcomes.map((o) => o.trim().toLowerCase());
  if (m.group_item_title !== '' && yesNo[0] === 'yes' && yesNo[1] === 'no') {
    return index === 0 ? m.group_item_title : `not ${m.group_item_title}`;
  }
  return null;
}

/** The canonical key of outcome `index` of `m` (league: the slug of its event's first series), or null. */
export function outcomeKey(m: MarketSource, league: string | null, index: number): string | null {
  const side = sportsSide(m, index);
  if (
    side !== null &&
    league !== null &&
    m.team_a_id !== '' &&
    m.team_b_id !== '' &&
    m.game_start_time !== null
  ) {
    return sportsOutcomeKey({ league, teams: [m.team_a_id, m.team_b_id], date: m.game_start_time, side });
  }
  if (m.end_date === null) return null;
  return questionOutcomeKey({
    question: m.question,
    resolutionDate: m.end_date,
    outcome: m.outcomes[index] ?? '',
  });
}

const compareIds = (a: string, b: string) =>
  a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;

/** Market id → the canonical id of each outcome (null: no key), one id per outcome across `markets`. */
export function canonicalIds(
  markets: readonly MarketSource[],
  leagueOf: (m: MarketSource) => string | null,
): Map<string, (string | null)[]> {
  const first = [...markets].sort(
    (a, b) =>
      (a.created_at ?? Number.MAX_SAFE_INTEGER) - (b.created_at ?? Number.MAX_SAFE_INTEGER) ||
      compareIds(a.id, b.id),
  );
  const taken = new Set<string>();
  const out = new Map<string, (string | null)[]>();
  for (const m of first) {
    const league = leagueOf(m);
    const keys = m.outcomes.map((_, i) => outcomeKey(m, league, i));
    // A market whose key another took gets its condition id in every outcome's key.
    const shared = keys.some((k) => k !== null && taken.has(k));
    out.set(
      m.id,
      keys.map((k) => {
        if (k === null) return null;
        if (!shared) {
          taken.add(k);
          return canonicalId(k);
        }
        return canonicalId(`${k}|${m.condition_id}`);
      }),
    );
  }
  return out;
}
