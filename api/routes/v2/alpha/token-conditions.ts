/**
 * token_id → (condition_id, outcome_index) for fills ingested before their token's condition was known
 * (alpha_fills.condition_id = ''). A token's condition never changes, so answers are kept in process;
 * "not known yet" is kept only briefly, since ingestion may learn it any moment. Bounded: the oldest
 * entries go first when the map is full.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';

const MAX_ENTRIES = 200_000;
const UNKNOWN_TTL_MS = 30_000;

export interface TokenCondition {
  conditionId: string;
  outcomeIndex: number;
}

export interface TokenConditions {
  /** The known conditions of `tokens`; tokens not known (yet) are absent from the map. */
  lookup(tokens: readonly string[]): Promise<Map<string, TokenCondition>>;
}

export function createTokenConditions(clickhouse: ClickHouse): TokenConditions {
  const known = new Map<string, TokenCondition>();
  const unknownUntil = new Map<string, number>();

  const remember = <V>(map: Map<string, V>, k: string, v: V) => {
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
    map.set(k, v);
  };

  return {
    async lookup(tokens) {
      const out = new Map<string, TokenCondition>();
      const now = Date.now();
      const missing: string[] = [];
      for (const t of new Set(tokens)) {
        const k = known.get(t);
        if (k) out.set(t, k);
        else if ((unknownUntil.get(t) ?? 0) <= now) missing.push(t);
      }
      if (missing.length === 0) return out;
      const rows = await clickhouse.query<{ token_id: string; condition_id: string; outcome_index: number }>(
        'api.alpha.token-conditions',
        `SELECT token_id, any(condition_id) AS condition_id, any(outcome_index) AS outcome_index
         FROM alpha_tokens WHERE token_id IN {tokens:Array(String)} GROUP BY token_id`,
        { tokens: missing },
      );
      for (const r of rows) {
        const v = { conditionId: r.condition_id, outcomeIndex: Number(r.outcome_index) };
        remember(known, r.token_id, v);
        out.set(r.token_id, v);
      }
      for (const t of missing) if (!out.has(t)) remember(unknownUntil, t, now + UNKNOWN_TTL_MS);
      return out;
    },
  };
}
