/**
 * What the accounting needs besides the events, read from the chain tables for the keys of a batch and
 * kept for the run: a token's condition and outcome, a condition's two tokens (binary conditions only,
 * from alpha_tokens), its payout numerators (the newest `condition_resolved` at or before the batch's
 * end), and a neg-risk market's fee (alpha_neg_risk_markets) and questions in preparation order (each
 * question's condition, from `neg_risk_question_prepared` and `condition_prepared`).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { ChainEvent } from './events.ts';

export interface TokenInfo {
  conditionId: string;
  outcomeIndex: number;
}

export interface Question {
  index: number;
  conditionId: string;
  block: number;
  logIndex: number;
}

export interface Reference {
  token(tokenId: string): TokenInfo | undefined;
  /** [outcome 0 token, outcome 1 token] of a binary condition. */
  tokensOf(conditionId: string): [string, string] | undefined;
  payouts(conditionId: string): bigint[] | undefined;
  feeBips(marketId: string): bigint;
  /** The market's questions prepared before (block, log index). */
  questions(marketId: string, block: number, logIndex: number): Question[];
  /** Loads what the events need and is not known yet; `upTo` bounds the resolutions read. */
  load(events: readonly ChainEvent[], upTo: number): Promise<void>;
}

const CHUNK = 5_000;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

export function createReference(ch: ClickHouse, chainId: number): Reference {
  const tokens = new Map<string, TokenInfo>();
  const conditions = new Map<string, [string, string]>();
  const askedTokens = new Set<string>();
  const askedConditions = new Set<string>();
  const payouts = new Map<string, bigint[]>();
  const fees = new Map<string, bigint>();
  const questions = new Map<string, Question[]>();

  async function loadTokens(tokenIds: string[], conditionIds: string[]) {
    const newTokens = tokenIds.filter((t) => !askedTokens.has(t));
    const newConditions = conditionIds.filter((c) => !askedConditions.has(c));
    for (const t of newTokens) askedTokens.add(t);
    for (const c of newConditions) askedConditions.add(c);
    if (newTokens.length === 0 && newConditions.length === 0) return;
    for (const part of chunks([...newTokens, ...newConditions])) {
      const rows = await ch.read<[string, string, number]>(
        'analytics.positions.tokens',
        `SELECT token_id, any(condition_id), max(outcome_index) FROM alpha_tokens
         WHERE chain_id = {chain:UInt32} AND (token_id IN {keys:Array(String)} OR condition_id IN {keys:Array(String)})
         GROUP BY token_id`,
        { chain: chainId, keys: part },
      );
      for (const [token, condition, outcome] of rows) {
        tokens.set(token, { conditionId: condition, outcomeIndex: outcome });
        if (outcome === 0 || outcome === 1) {
          const pair = conditions.get(condition) ?? ['', ''];
          pair[outcome] = token;
          conditions.set(condition, pair);
        }
      }
    }
  }

  async function loadPayouts(conditionIds: string[], upTo: number) {
    const open = conditionIds.filter((c) => !payouts.has(c));
    for (const part of chunks(open)) {
      const rows = await ch.read<[string, string[]]>(
        'analytics.positions.payouts',
        `SELECT condition_id, argMax(payout_numerators, (block_number, log_index)) FROM alpha_lifecycle
         WHERE chain_id = {chain:UInt32} AND kind = 'condition_resolved' AND block_number <= {upTo:UInt64}
           AND condition_id IN {conditions:Array(String)}
         GROUP BY condition_id`,
        { chain: chainId, upTo, conditions: part },
      );
      for (const [condition, nums] of rows)
        payouts.set(
          condition,
          nums.map((n) => BigInt(n)),
        );
    }
  }

  async function loadMarkets(marketIds: string[], upTo: number) {
    if (marketIds.length === 0) return;
    const feeRows = await ch.read<[string, number]>(
      'analytics.positions.neg_risk_fees',
      `SELECT market_id, any(fee_bips) FROM alpha_neg_risk_markets
       WHERE chain_id = {chain:UInt32} AND market_id IN {markets:Array(String)} GROUP BY market_id`,
      { chain: chainId, markets: marketIds },
    );
    for (const [m, bips] of feeRows) fees.set(m, BigInt(bips));
    const rows = await ch.read<[string, string, string, number, string | null]>(
      'analytics.positions.neg_risk_questions',
      `SELECT q.market_id, q.question_id, q.prepared.1, q.prepared.2, c.condition_id
       FROM (
         SELECT market_id, question_id, min(tuple(block_number, log_index)) AS prepared
         FROM alpha_lifecycle
         WHERE chain_id = {chain:UInt32} AND kind = 'neg_risk_question_prepared' AND block_number <= {upTo:UInt64}
           AND market_id IN {markets:Array(String)}
         GROUP BY market_id, question_id
       ) AS q
       LEFT JOIN (
         SELECT question_id, any(condition_id) AS condition_id FROM alpha_lifecycle
         WHERE chain_id = {chain:UInt32} AND kind = 'condition_prepared' GROUP BY question_id
       ) AS c ON c.question_id = q.question_id
       SETTINGS join_use_nulls = 1`,
      { chain: chainId, upTo, markets: marketIds },
    );
    const byMarket = new Map<string, Question[]>();
    for (const [m, questionId, block, logIndex, condition] of rows) {
      if (!condition) continue;
      const list = byMarket.get(m) ?? [];
      list.push({
        index: Number.parseInt(questionId.slice(-2), 16),
        conditionId: condition,
        block: Number(block),
        logIndex,
      });
      byMarket.set(m, list);
    }
    for (const m of marketIds) {
      questions.set(
        m,
        (byMarket.get(m) ?? []).sort((a, b) => a.block - b.block || a.logIndex - b.logIndex),
      );
    }
    await loadTokens(
      [],
      [...byMarket.values()].flat().map((q) => q.conditionId),
    );
  }

  return {
    token: (t) => tokens.get(t),
    tokensOf(c) {
      const pair = conditions.get(c);
      return pair && pair[0] !== '' && pair[1] !== '' ? pair : undefined;
    },
    payouts: (c) => payouts.get(c),
    feeBips: (m) => fees.get(m) ?? 0n,
    questions: (m, block, logIndex) =>
      (questions.get(m) ?? []).filter((q) => q.block < block || (q.block === block && q.logIndex < logIndex)),
    async load(events, upTo) {
      const tokenIds = new Set<string>();
      const conditionIds = new Set<string>();
      const redeemed = new Set<string>();
      const markets = new Set<string>();
      for (const e of events) {
        if (e.type === 'fill') {
          // A fill ingested before its token's market was known: the market from alpha_tokens now.
          if (e.conditionId === '' || e.outcomeIndex < 0) tokenIds.add(e.tokenId);
        } else if (e.type === 'activity') {
          if (e.conditionId) conditionIds.add(e.conditionId);
          if (e.kind === 'REDEEM' && e.conditionId) redeemed.add(e.conditionId);
          if (e.kind === 'CONVERT' && e.negRiskMarketId) markets.add(e.negRiskMarketId);
        } else {
          tokenIds.add(e.tokenId);
        }
      }
      await loadTokens([...tokenIds], [...conditionIds]);
      await loadPayouts([...redeemed], upTo);
      // A market's questions can grow between batches: read them again for each batch that converts.
      await loadMarkets([...markets], upTo);
    },
  };
}
