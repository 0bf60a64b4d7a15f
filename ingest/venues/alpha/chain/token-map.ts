/**
 * Outcome token → condition knowledge, used to fill `condition_id`/`outcome_index` on fills and to
 * write `alpha_tokens`; neg-risk market fees and neg-risk UMA questions' conditions beside it. Bounded: a size-capped cache in front of the `alpha_tokens` table; misses of a
 * page are looked up in one query.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';

export interface TokenInfo {
  condition_id: string;
  outcome_index: number;
}

export interface TokenMap {
  get(tokenId: string): TokenInfo | undefined;
  /** Learns a token (from a row written or about to be written). */
  set(tokenId: string, info: TokenInfo): void;
  /** Loads the tokens among `tokenIds` that the cache does not hold, from ClickHouse. */
  resolve(tokenIds: Iterable<string>): Promise<void>;
  readonly size: number;
  /** Fee (bips) of a neg-risk market, when known. */
  marketFee(marketId: string): number | undefined;
  setMarketFee(marketId: string, feeBips: number): void;
  /** Loads the fees of `marketIds` the cache does not hold, from ClickHouse. */
  resolveMarkets(marketIds: Iterable<string>): Promise<void>;
  /**
   * The condition of a neg-risk UMA question, by its UMA question id (the NegRiskOperator's request
   * id, which the operator's QuestionPrepared maps to the neg-risk question), when known.
   */
  questionCondition(requestId: string): string | undefined;
  setQuestionCondition(requestId: string, conditionId: string): void;
  /** Loads the conditions of `requestIds` the cache does not hold, from alpha_neg_risk_questions. */
  resolveQuestions(requestIds: Iterable<string>): Promise<void>;
}

export function createTokenMap(deps: {
  clickhouse?: ClickHouse;
  chainId: number;
  maxEntries?: number;
}): TokenMap {
  const max = deps.maxEntries ?? 500_000;
  const cache = new Map<string, TokenInfo>();
  /** Ids looked up and not found, so a page does not ask twice; cleared when it grows. */
  const missing = new Set<string>();

  function set(tokenId: string, info: TokenInfo): void {
    const prev = cache.get(tokenId);
    // A registration without an outcome index never overrides a derived one.
    if (prev && prev.outcome_index >= 0 && info.outcome_index < 0) return;
    if (cache.size >= max && !prev) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(tokenId, info);
    missing.delete(tokenId);
  }

  const fees = new Map<string, number>();
  // Neg-risk questions are few (thousands on Polygon): kept whole, like the market fees.
  const questions = new Map<string, string>();
  return {
    questionCondition: (id) => questions.get(id),
    setQuestionCondition: (id, conditionId) => {
      questions.set(id, conditionId);
    },
    async resolveQuestions(ids) {
      if (!deps.clickhouse) return;
      const wanted = [...new Set(ids)].filter((id) => !questions.has(id));
      if (wanted.length === 0) return;
      const rows = await deps.clickhouse.query<{ request_id: string; condition_id: string }>(
        'alpha.questions.resolve',
        `SELECT request_id, any(condition_id) AS condition_id FROM alpha_neg_risk_questions
         WHERE chain_id = {chain:UInt32} AND request_id IN {ids:Array(String)} GROUP BY request_id`,
        { chain: deps.chainId, ids: wanted },
      );
      for (const r of rows) questions.set(r.request_id, r.condition_id);
    },
    marketFee: (id) => fees.get(id),
    setMarketFee: (id, bips) => {
      fees.set(id, bips);
    },
    async resolveMarkets(ids) {
      if (!deps.clickhouse) return;
      const wanted = [...new Set(ids)].filter((id) => !fees.has(id));
      if (wanted.length === 0) return;
      const rows = await deps.clickhouse.query<{ market_id: string; fee_bips: number }>(
        'alpha.markets.resolve',
        `SELECT market_id, any(fee_bips) AS fee_bips FROM alpha_neg_risk_markets
         WHERE chain_id = {chain:UInt32} AND market_id IN {ids:Array(String)} GROUP BY market_id`,
        { chain: deps.chainId, ids: wanted },
      );
      for (const r of rows) fees.set(r.market_id, Number(r.fee_bips));
    },
    get: (id) => cache.get(id),
    set,
    get size() {
      return cache.size;
    },
    async resolve(tokenIds) {
      if (!deps.clickhouse) return;
      const wanted: string[] = [];
      for (const id of tokenIds) if (!cache.has(id) && !missing.has(id)) wanted.push(id);
      if (wanted.length === 0) return;
      for (let i = 0; i < wanted.length; i += 5000) {
        const chunk = wanted.slice(i, i + 5000);
        const rows = await deps.clickhouse.query<{
          token_id: string;
          condition_id: string;
          outcome_index: number;
        }>(
          'alpha.tokens.resolve',
          `SELECT token_id, any(condition_id) AS condition_id, max(outcome_index) AS outcome_index
           FROM alpha_tokens WHERE chain_id = {chain:UInt32} AND token_id IN {ids:Array(String)}
           GROUP BY token_id`,
          { chain: deps.chainId, ids: chunk },
        );
        const found = new Set<string>();
        for (const r of rows) {
          set(r.token_id, { condition_id: r.condition_id, outcome_index: Number(r.outcome_index) });
          found.add(r.token_id);
        }
        if (missing.size > 100_000) missing.clear();
        for (const id of chunk) if (!found.has(id)) missing.add(id);
      }
    },
  };
}
