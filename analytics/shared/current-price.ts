/**
 * The current price of venue alpha's outcome tokens: the one function that the catalog's outcome prices
 * (issue 35) and the positions' unrealized P&L (issue 36) use. Per token, at `now` (Unix ms):
 * 1. payout: once its condition resolved on chain (alpha_lifecycle `condition_resolved` at or before now),
 *    the token's share of the payout, numerator ÷ Σ numerators at its outcome index (alpha_tokens);
 * 2. book: else the midpoint of its latest alpha_book_quotes observation, if observed less than 10 minutes
 *    before now (and at or before it) and the book has both sides;
 * 3. fill: else the price of the newest maker fill at or before now of the token (usd ÷ shares) or of its
 *    complement (1 − usd ÷ shares), whichever is newer by (block, log index);
 * 4. else null.
 * A batch costs at most three statements per CHUNK tokens (one per rule, each asked only about the tokens
 * the rules before it left without a price), never one per token. `sinceBlock` (a caller that knows the
 * tokens traded since that block, as the positions job does for the tokens a run touched) bounds the fills
 * read; a token none of whose pair traded since is read again in full (a fourth statement).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';

/** How old a book observation may be and still give the price, ms. */
export const BOOK_FRESH_MS = 10 * 60_000;
/** Tokens per statement. */
export const CHUNK = 2_000;

export type PriceSource = 'payout' | 'book' | 'fill';
export interface CurrentPrice {
  price: number;
  source: PriceSource;
}

const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;

/** Per token: its complement, its outcome index and its condition's payout numerators ([] unresolved). */
type TokenRow = [token: string, complement: string, outcomeIndex: number, numerators: string[]];
const TOKENS_SQL = `
  SELECT t.token_id, t.complement_token_id, t.outcome_index, r.numerators
  FROM (
    SELECT token_id, any(condition_id) AS condition_id, any(complement_token_id) AS complement_token_id,
           any(outcome_index) AS outcome_index
    FROM alpha_tokens WHERE token_id IN {tokens:Array(String)} GROUP BY token_id
  ) AS t
  LEFT JOIN (
    SELECT condition_id, argMax(payout_numerators, (block_number, log_index)) AS numerators
    FROM alpha_lifecycle
    WHERE kind = 'condition_resolved' AND block_time <= ${at('now_ms')}
      AND condition_id IN (SELECT condition_id FROM alpha_tokens WHERE token_id IN {tokens:Array(String)})
    GROUP BY condition_id
  ) AS r ON r.condition_id = t.condition_id`;

/** Per token: the midpoint of its latest observation in the window (null: a one-sided book). */
type BookRow = [token: string, mid: number | null];
const BOOKS_SQL = `
  SELECT token_id, argMax(tuple(mid), observed_at).1
  FROM alpha_book_quotes
  WHERE token_id IN {tokens:Array(String)} AND observed_at <= ${at('now_ms')} AND observed_at > ${at('fresh_ms')}
  GROUP BY token_id`;

/** Per token: its newest maker fill as (block, log index, usd, shares). */
type FillRow = [token: string, newest: [string, number, string, string]];
const FILLS_SQL = `
  SELECT token_id, max(tuple(block_number, log_index, usd, shares))
  FROM alpha_fills
  WHERE token_id IN {tokens:Array(String)} AND role = 'maker' AND shares > 0 AND block_time <= ${at('now_ms')}
    AND block_number >= {since:UInt64}
  GROUP BY token_id`;

/** numerator ÷ Σ numerators at `index`, or null when the payout does not give one. */
export function payoutShare(numerators: readonly string[], index: number): number | null {
  if (index < 0 || index >= numerators.length) return null;
  const values = numerators.map((n) => BigInt(n));
  const sum = values.reduce((s, v) => s + v, 0n);
  if (sum === 0n) return null;
  return Number(values[index]!) / Number(sum);
}

interface Fill {
  block: bigint;
  logIndex: number;
  usd: bigint;
  shares: bigint;
}

/** The newest maker fill of each token at or before now (and at or after block `since`). */
async function newestFills(
  ch: ClickHouse,
  tokens: string[],
  now: number,
  since: number,
): Promise<Map<string, Fill>> {
  const rows = await ch.read<FillRow>('analytics.prices.fills', FILLS_SQL, { tokens, now_ms: now, since });
  return new Map<string, Fill>(
    rows.map(([token, [block, logIndex, usd, shares]]) => [
      token,
      { block: BigInt(block), logIndex, usd: BigInt(usd), shares: BigInt(shares) },
    ]),
  );
}

const newer = (a: Fill, b: Fill) => a.block > b.block || (a.block === b.block && a.logIndex > b.logIndex);

/** The current price of each token (every token asked for is a key; null when no rule gives one). */
export async function currentPrices(
  ch: ClickHouse,
  tokenIds: readonly string[],
  now: number,
  o: { sinceBlock?: number } = {},
): Promise<Map<string, CurrentPrice | null>> {
  const tokens = [...new Set(tokenIds)];
  const out = new Map<string, CurrentPrice | null>(tokens.map((t) => [t, null]));
  for (let i = 0; i < tokens.length; i += CHUNK) {
    await priceChunk(ch, tokens.slice(i, i + CHUNK), now, out, o.sinceBlock ?? 0);
  }
  return out;
}

async function priceChunk(
  ch: ClickHouse,
  tokens: string[],
  now: number,
  out: Map<string, CurrentPrice | null>,
  sinceBlock: number,
): Promise<void> {
  const complements = new Map<string, string>();
  const known = await ch.read<TokenRow>('analytics.prices.tokens', TOKENS_SQL, { tokens, now_ms: now });
  for (const [token, complement, index, numerators] of known) {
    if (complement !== '' && complement !== token) complements.set(token, complement);
    const share = payoutShare(numerators, index);
    if (share !== null) out.set(token, { price: share, source: 'payout' });
  }

  let open = tokens.filter((t) => out.get(t) === null);
  if (open.length === 0) return;
  const books = await ch.read<BookRow>('analytics.prices.books', BOOKS_SQL, {
    tokens: open,
    now_ms: now,
    fresh_ms: now - BOOK_FRESH_MS,
  });
  for (const [token, mid] of books) if (mid !== null) out.set(token, { price: mid, source: 'book' });

  open = open.filter((t) => out.get(t) === null);
  if (open.length === 0) return;
  const pair = (t: string) => [t, ...(complements.has(t) ? [complements.get(t) as string] : [])];
  const asked = [...new Set(open.flatMap(pair))];
  const fills = await newestFills(ch, asked, now, sinceBlock);
  if (sinceBlock > 0) {
    // Tokens whose pair has no fill since that block: their newest fill is older, read it in full.
    const older = [...new Set(open.filter((t) => pair(t).every((x) => !fills.has(x))).flatMap(pair))];
    if (older.length > 0) for (const [t, f] of await newestFills(ch, older, now, 0)) fills.set(t, f);
  }
  for (const token of open) {
    const own = fills.get(token);
    const complement = complements.get(token);
    const other = complement === undefined ? undefined : fills.get(complement);
    if (other && (!own || newer(other, own))) {
      out.set(token, { price: Number(other.shares - other.usd) / Number(other.shares), source: 'fill' });
    } else if (own) {
      out.set(token, { price: Number(own.usd) / Number(own.shares), source: 'fill' });
    }
  }
}
