/**
 * Canonical ids of alpha's outcomes in the catalog lists (docs/venues.md "Canonical ids"): the ids
 * `assignCanonical(deps, 'alpha')` stored in canonical_outcomes (ingest/canonical/), which the catalog
 * sync job runs before it enqueues the build, so the lists serve exactly the stored ids. An outcome not
 * assigned yet gets what the assignment would give a new outcome: `canonicalId` of its key, derived by
 * the one cross-venue rule (core/canonical-id.ts `servedKeys`, alpha's fields through
 * `alphaServedMarket`): sports games by the two teams' names, the end day and the side; an alternative
 * of a neg-risk event by the event title and its label; anything else by question, end day and label.
 * Null where there is no key (no end date).
 */
import { alphaServedMarket, canonicalId, servedKeys } from '../../core/canonical-id.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { MarketSource } from './read.ts';

/** Alpha's stored ids: market id → id per outcome index (null where none is stored). */
export type AssignedIds = ReadonlyMap<string, readonly (string | null)[]>;

export async function readAssignedIds(ch: ClickHouse): Promise<AssignedIds> {
  const rows = await ch.read<[string, number | string, string]>(
    'analytics.catalog.canonical',
    `SELECT market, outcome_index, id FROM canonical_outcomes FINAL WHERE venue = 'alpha'`,
  );
  const out = new Map<string, (string | null)[]>();
  for (const [market, index, id] of rows) {
    const ids = out.get(market) ?? [];
    ids[Number(index)] = id;
    out.set(market, ids);
  }
  return out;
}

/** Market id → the canonical id of each outcome (null: no key): the stored one, else the rule's. */
export function canonicalIds(
  markets: readonly MarketSource[],
  eventTitleOf: (m: MarketSource) => string,
  assigned: AssignedIds = new Map(),
): Map<string, (string | null)[]> {
  const keys = servedKeys(
    markets,
    (m) => alphaServedMarket(m, eventTitleOf(m)),
    (m) => m.event_id,
  );
  const out = new Map<string, (string | null)[]>();
  markets.forEach((m, mi) => {
    const stored = assigned.get(m.id);
    out.set(
      m.id,
      keys[mi]!.map((k, i) => stored?.[i] ?? (k === null ? null : canonicalId(k))),
    );
  });
  return out;
}
