/**
 * `assignCanonical(deps, venue)`: the canonical id of every stored outcome of a venue, upserted into
 * `canonical_outcomes` (migration 034). Keys come from the venue's served fields (served.ts) by the one
 * rule of core/canonical-id.ts (`servedKeys`). Ids never change once assigned:
 * - an outcome already in the table keeps its id whatever its key is now; a key that changed is logged
 *   (warn, both keys) and stored as the row's key, the id untouched;
 * - a new outcome whose key some stored outcome (any venue) already has takes that outcome's id (the
 *   first assigned), so a listing re-titled after its id was given still matches new listings of the
 *   key; otherwise `canonicalId(key)`.
 * Outcomes without a key (no end time) get no row. Re-running over unchanged rows writes nothing.
 */
import { canonicalId, servedKeys } from '../../core/canonical-id.ts';
import type { Deps } from '../../core/deps.ts';
import { CANONICAL_OUTCOMES } from '../../schemas/tables/venues.ts';
import type { CanonicalVenue } from '../../schemas/venues/index.ts';
import { chTime } from '../rest/store.ts';
import { readStoredMarkets, type StoredMarket } from './served.ts';

export interface AssignOptions {
  /** Assignment time (default Date.now). */
  now?: () => number;
  /** The venue's markets (default: read from its stored tables). */
  markets?: readonly StoredMarket[];
}

export interface AssignSummary {
  venue: CanonicalVenue;
  markets: number;
  outcomes: number;
  /** Rows written: new outcomes, and outcomes whose key or token changed. */
  written: number;
  created: number;
  /** Outcomes whose key changed (their id kept). */
  changedKeys: number;
  /** Outcomes without a key (no end time). */
  unkeyed: number;
  ms: number;
}

interface StoredOutcome {
  market: string;
  outcome_index: number;
  token_id: string;
  key: string;
  id: string;
}

const KEY_CHUNK = 5_000;

/** The outcome row of (market, index). */
const slot = (market: string, index: number) => `${market}\u0000${index}`;

export async function assignCanonical(
  deps: Pick<Deps, 'clickhouse' | 'log'>,
  venue: CanonicalVenue,
  opts: AssignOptions = {},
): Promise<AssignSummary> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const now = (opts.now ?? Date.now)();
  const markets = opts.markets ?? (await readStoredMarkets(ch, venue));
  const keys = servedKeys(
    markets,
    (m) => m.served,
    (m) => m.event,
  );

  const existing = new Map<string, StoredOutcome>();
  for (const r of await ch.query<StoredOutcome>(
    'canonical.outcomes.venue',
    `SELECT market, outcome_index, token_id, key, id FROM ${CANONICAL_OUTCOMES.name} FINAL
     WHERE venue = {venue:String}`,
    { venue },
  )) {
    existing.set(slot(r.market, Number(r.outcome_index)), r);
  }

  // Keys new to this venue: the id some stored outcome of any venue holds for them.
  const fresh = new Set<string>();
  markets.forEach((m, mi) => {
    keys[mi]!.forEach((k, i) => {
      if (k !== null && !existing.has(slot(m.market, i))) fresh.add(k);
    });
  });
  const idOfKey = new Map<string, string>();
  const freshKeys = [...fresh];
  for (let i = 0; i < freshKeys.length; i += KEY_CHUNK) {
    const found = await ch.query<{ key: string; id: string }>(
      'canonical.outcomes.keys',
      `SELECT key, argMin(id, assigned_at) AS id FROM ${CANONICAL_OUTCOMES.name} FINAL
       WHERE key IN {keys:Array(String)} GROUP BY key`,
      { keys: freshKeys.slice(i, i + KEY_CHUNK) },
    );
    for (const f of found) idOfKey.set(f.key, f.id);
  }

  const rows: Record<string, unknown>[] = [];
  let outcomes = 0;
  let created = 0;
  let changedKeys = 0;
  let unkeyed = 0;
  markets.forEach((m, mi) => {
    keys[mi]!.forEach((key, i) => {
      outcomes++;
      if (key === null) {
        unkeyed++;
        return;
      }
      const tokenId = m.tokenIds[i] ?? '';
      const old = existing.get(slot(m.market, i));
      if (old) {
        if (old.key !== key) {
          changedKeys++;
          deps.log.warn(
            { venue, market: m.market, outcomeIndex: i, id: old.id, oldKey: old.key, newKey: key },
            'Canonical key of an outcome changed; its id is kept',
          );
        }
        if (old.key === key && old.token_id === tokenId) return;
        rows.push(row(venue, m.market, i, tokenId, key, old.id, now));
        return;
      }
      let id = idOfKey.get(key);
      if (id === undefined) {
        id = canonicalId(key);
        idOfKey.set(key, id);
      }
      created++;
      rows.push(row(venue, m.market, i, tokenId, key, id, now));
    });
  });
  if (rows.length > 0) await ch.insert('canonical.outcomes.write', CANONICAL_OUTCOMES.name, rows);
  const summary: AssignSummary = {
    venue,
    markets: markets.length,
    outcomes,
    written: rows.length,
    created,
    changedKeys,
    unkeyed,
    ms: Date.now() - started,
  };
  deps.log.debug(summary, 'Assigned canonical ids');
  return summary;
}

function row(
  venue: string,
  market: string,
  index: number,
  tokenId: string,
  key: string,
  id: string,
  now: number,
): Record<string, unknown> {
  return {
    venue,
    market,
    outcome_index: index,
    token_id: tokenId,
    key,
    id,
    assigned_at: chTime(now),
  };
}
