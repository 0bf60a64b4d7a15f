/**
 * Markets learnt late (docs/positions.md "Markets learnt late"): a position written while its token's market
 * was unknown (condition '' or outcome -1: a fill ingested before its market's ConditionPreparation, a
 * transfer of a token alpha_tokens did not know yet) is repaired by the first run after alpha_tokens knows
 * the token: the position's state is written again with the market (a new version, and the run's states in
 * memory updated), and every change row of the token that lacks it is updated in place (one mutation), so
 * the rows equal those of a computation that knew the market from the start.
 *
 * Cost per run: one scan of `outcome_index` (one byte a row) of alpha_positions without FINAL for the tokens
 * still lacking an outcome; only when some are known now, a FINAL read of those tokens' positions (bloom
 * filter on token_id), their states and one mutation of alpha_position_changes.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { PositionState } from './accounting.ts';
import type { PositionCache } from './cache.ts';
import { loadPositions, writePositions } from './store.ts';

interface Known {
  conditionId: string;
  outcomeIndex: number;
}

/** Returns the tokens whose positions it repaired. */
export async function repairMarkets(
  ch: ClickHouse,
  chainId: number,
  version: number,
  cache: PositionCache | null,
): Promise<string[]> {
  // Tokens of positions without an outcome (superseded versions included: a superset, checked below).
  const rows = await ch.read<[string, string, number]>(
    'analytics.positions.markets.known',
    `SELECT token_id, any(condition_id), max(outcome_index) FROM alpha_tokens
     WHERE chain_id = {chain:UInt32} AND token_id IN (
       SELECT DISTINCT token_id FROM alpha_positions WHERE chain_id = {chain:UInt32} AND outcome_index < 0)
     GROUP BY token_id`,
    { chain: chainId },
  );
  const known = new Map<string, Known>();
  for (const [token, conditionId, outcome] of rows) {
    if (conditionId !== '' || Number(outcome) >= 0) {
      known.set(token, { conditionId, outcomeIndex: Number(outcome) });
    }
  }
  if (known.size === 0) return [];
  const keys = await ch.read<[string, string]>(
    'analytics.positions.markets.keys',
    `SELECT wallet, token_id FROM alpha_positions FINAL
     WHERE chain_id = {chain:UInt32} AND token_id IN {tokens:Array(String)} AND outcome_index < 0`,
    { chain: chainId, tokens: [...known.keys()] },
  );
  const loaded = await loadPositions(
    ch,
    chainId,
    keys.map(([wallet, tokenId]) => ({ wallet, tokenId })),
  );
  const repaired: PositionState[] = [];
  const tokens = new Map<string, Known>();
  for (const stored of loaded.values()) {
    const k = known.get(stored.tokenId);
    if (!k) continue;
    const conditionId = k.conditionId || stored.conditionId;
    const outcomeIndex = k.outcomeIndex >= 0 ? k.outcomeIndex : stored.outcomeIndex;
    if (conditionId === stored.conditionId && outcomeIndex === stored.outcomeIndex) continue;
    // The run's state in memory is the same position: it carries the market from here on.
    const p = cache?.get(stored.wallet, stored.tokenId) ?? stored;
    p.conditionId = cache ? cache.intern(conditionId) : conditionId;
    p.outcomeIndex = outcomeIndex;
    repaired.push(p);
    tokens.set(stored.tokenId, { conditionId, outcomeIndex });
  }
  if (repaired.length === 0) return [];
  const ids = [...tokens.keys()];
  // The change rows first: a crash before the states leaves them to the next run (the states still lack it).
  await ch.command(
    'analytics.positions.markets.changes',
    `ALTER TABLE alpha_position_changes
     UPDATE condition_id = transform(token_id, {tokens:Array(String)}, {conditions:Array(String)}, condition_id),
       outcome_index = transform(token_id, {tokens:Array(String)}, {outcomes:Array(Int8)}, outcome_index)
     WHERE chain_id = {chain:UInt32} AND token_id IN {tokens:Array(String)} AND outcome_index < 0
     SETTINGS mutations_sync = 1`,
    {
      chain: chainId,
      tokens: ids,
      conditions: ids.map((t) => tokens.get(t)?.conditionId ?? ''),
      outcomes: ids.map((t) => tokens.get(t)?.outcomeIndex ?? -1),
    },
  );
  await writePositions(ch, chainId, version, repaired);
  return ids;
}
