/**
 * The analytics benchmark's chain, generated straight into the engine with INSERT ... SELECT FROM
 * numbers() (no node, no decoding, no JS row loops): what the analytics jobs read, shaped like the chain
 * tables the ingestion writes.
 *
 * - C binary conditions (tokens 2k = YES, outcome 0, and 2k + 1 = NO, outcome 1) in alpha_tokens with
 *   their complements; every condition prepared (alpha_lifecycle condition_prepared, 2 outcome slots).
 *   Conditions k with k mod 10 ≥ 6 are neg-risk: questions 0..3 of market ⌊k/10⌋ (MarketPrepared with a
 *   fee in alpha_neg_risk_markets, QuestionPrepared in alpha_lifecycle; questionId = marketId with its
 *   last byte the question index; the condition's preparation names that question, oracle the adapter).
 * - N maker fills over D days of 2-second blocks, in order of n (block and time grow with n), each its own
 *   transaction; the condition of a fill is Zipf(1)-distributed over the C conditions (condition 0 the
 *   busiest, ≈ ln 2 / ln(C + 1) of the fills), YES 60 % / NO 40 %; the YES price follows a sine of the
 *   condition's own period (3–30 days) and phase plus noise, a NO fill trades at 1 − that; prices in
 *   cents (0.01–0.99), shares heavy-tailed (1–5,001), usd = round(price · shares), both sides. One taker
 *   aggregate row per 3 maker fills (same transaction), as the fills table holds in reality.
 * - N / 4 supply rows (alpha_ctf_supply) over the same blocks and Zipf conditions: standard conditions
 *   by the CTF in USDC.e (split 47 %, merge 30 %, redeem 20 %), neg-risk ones by the NegRiskAdapter
 *   (collateral '') and some of the adapter's own CTF calls in wrapped collateral (which §7.2 ignores),
 *   conversions (3 %) on a neg-risk market with an index set over its 4 questions.
 * - alpha_blocks for every block that has a row; finished backfill range marks over the whole range and
 *   a follow mark at the last block (the chain's progress, in the progress store: core/watermarks.ts).
 * - With the `positions` option (bench/positions.ts): V1 fees on 1 maker fill in 10, resolutions, activity
 *   by wallets, plain and settlement transfers, fee rows (see `activitySql` and its neighbours).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { BACKFILL_STREAM, FOLLOW_STREAM } from '../../core/watermarks.ts';
import { planBackfillRanges } from '../../ingest/chain/backfill.ts';
import { ALPHA_ROLES } from '../../schemas/abi/alpha-addresses.ts';

export const CHAIN_ID = 137;
/** First block of the fills and its time (2026-01-01 00:00 UTC); a block every 2 s. */
export const FIRST_BLOCK = 50_000_000;
export const FIRST_TIME = 1_767_225_600;
export const BLOCK_SECONDS = 2;
export const WALLETS = 50_000;
/** Questions per neg-risk market (conditions k mod 10 = 6..9). */
const QUESTIONS = 4;

const USDC_E = ALPHA_ROLES.usdcE.toLowerCase();
const ADAPTER = ALPHA_ROLES.negRiskAdapter.toLowerCase();
const CTF = ALPHA_ROLES.conditionalTokens.toLowerCase();
const WCOL = ALPHA_ROLES.wcol.toLowerCase();
const EXCHANGE = '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e';
const NEG_RISK_EXCHANGE = '0xc5d563a36ae78145c45a50134d48a1215220f80a';
const UMA_ADAPTER = '0x6a9d222616c90fca5754cd1333cfd9b7fb6a4f74';

/**
 * A generating INSERT runs to the end however long a busy machine makes it: a timeout would leave the
 * blocks written so far, and the wrapper's retry would write them again.
 */
const ONE_STATEMENT = 'SETTINGS max_execution_time = 0';

export interface Shape {
  /** Maker fills. */
  fills: number;
  days: number;
  conditions: number;
}

export function blocksOf(s: Shape): number {
  return Math.round((s.days * 86_400) / BLOCK_SECONDS);
}
export function lastBlockOf(s: Shape): number {
  return FIRST_BLOCK + blocksOf(s) - 1;
}
/** Neg-risk markets: every condition block of 10 has one. */
const marketsOf = (s: Shape) => Math.ceil(s.conditions / 10);
/** First block of the preparations (markets, then conditions), before the first fill. */
export function firstPreparedBlock(s: Shape): number {
  return FIRST_BLOCK - marketsOf(s) - s.conditions - 10;
}
export const timeOfBlock = (block: number) => FIRST_TIME + (block - FIRST_BLOCK) * BLOCK_SECONDS;

// SQL expressions, all deterministic functions of their arguments.
const hex32 = (prefix: string, expr: string) =>
  `concat('0x', lower(hex(SHA256(concat('${prefix}', toString(${expr}))))))`;
const address = (prefix: string, expr: string) =>
  `concat('0x', lower(hex(substring(SHA256(concat('${prefix}', toString(${expr}))), 1, 20))))`;
const blockHash = (b: string) => hex32('b', b);
const blockTime = (b: string) =>
  `toDateTime64(${FIRST_TIME} + (toInt64(${b}) - ${FIRST_BLOCK}) * ${BLOCK_SECONDS}, 3, 'UTC')`;
/** Token number → token id (a decimal string, as uint256 ids are stored). */
const tokenId = (t: string) => `concat(toString(cityHash64('tok', toUInt32(${t}))), '0000000000000000000')`;
const conditionId = (k: string) => hex32('c', k);
const isNegRisk = (k: string) => `(${k}) % 10 >= ${10 - QUESTIONS}`;
/** Neg-risk market id: its last byte is zero (NegRiskIdLib), questions put their index there. */
const marketId = (m: string) => `concat(substring(${hex32('m', m)}, 1, 64), '00')`;
const questionId = (m: string, i: string) =>
  `concat(substring(${hex32('m', m)}, 1, 64), lower(hex(toUInt8(${i}))))`;
/** Uniform in [0, 1) from a hash. */
const uniform = (args: string) => `(cityHash64(${args}) / 18446744073709551616.0)`;
/** Zipf(1) over [0, C): ⌊(C + 1)^u⌋ − 1, P(k) ∝ ln((k + 2)/(k + 1)) ≈ 1/(k + 1). */
const zipf = (c: number, args: string) =>
  `least(${c - 1}, toUInt32(floor(exp(${uniform(args)} * log(${c + 1})))) - 1)`;
/** Wallet number, a few very active ones and a long tail: ⌊W · u³⌋. */
const skewedWallet = (args: string) => `toUInt32(${WALLETS} * pow(${uniform(args)}, 3))`;

const FILL_COLUMNS = [
  'chain_id',
  'block_number',
  'block_hash',
  'block_time',
  'tx_hash',
  'log_index',
  'exchange',
  'exchange_version',
  'neg_risk',
  'order_hash',
  'maker',
  'taker',
  'role',
  'side',
  'token_id',
  'condition_id',
  'outcome_index',
  'maker_amount',
  'taker_amount',
  'shares',
  'usd',
  'price',
  'fee',
  'fee_asset',
  'builder',
  'metadata',
  'status',
].join(', ');

/**
 * Fills numbered by `n` (the source must give `n`, `b` (block) and `li` (log index)); a maker fill n
 * and the taker aggregate of fill n are drawn from the same hashes (same token, price, amount, tx),
 * the taker's side the other.
 */
function fillsSql(
  s: Shape,
  source: string,
  role: 'maker' | 'taker',
  status: 'confirmed' | 'pending',
  fees = false,
): string {
  const taker = role === 'taker';
  // With `fees`, 1 maker fill in 10 pays a V1 fee of 1 %: in shares on a BUY, in collateral on a SELL.
  const fee =
    fees && !taker
      ? `if(cityHash64(n, 11) % 10 = 0, if(side = 'BUY', intDiv(shares, 100), intDiv(usd, 100)), 0)`
      : '0';
  return `
INSERT INTO alpha_fills (${FILL_COLUMNS})
SELECT
  ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')},
  ${hex32('tx', 'n')}, toUInt32(li),
  if(neg, '${NEG_RISK_EXCHANGE}', '${EXCHANGE}'), 1, neg,
  ${hex32(taker ? 'ot' : 'o', 'n')},
  ${taker ? address('w', `cityHash64(n, 9) % ${WALLETS}`) : address('w', skewedWallet('n, 8'))},
  ${taker ? `if(neg, '${NEG_RISK_EXCHANGE}', '${EXCHANGE}')` : address('w', `cityHash64(n, 9) % ${WALLETS}`)},
  '${role}', side,
  ${tokenId('2 * k + outcome')}, ${conditionId('k')}, toInt8(outcome),
  if(side = 'BUY', usd, shares), if(side = 'BUY', shares, usd),
  shares, usd, usd / shares,
  ${fee}, if(side = 'SELL', 'collateral', 'shares'), '', '', '${status}'
FROM (
  SELECT n, b, li, k, neg, outcome, side, shares,
    toUInt64(intDiv(cents * shares + 50, 100)) AS usd
  FROM (
    SELECT n, b, li, k, neg, outcome,
      if(cityHash64(n, 5) % 2 = ${taker ? 1 : 0}, 'BUY', 'SELL') AS side,
      toUInt64(10000 * (100 + toUInt64(500000 * pow(${uniform('n, 6')}, 4)))) AS shares,
      0.5 + 0.4 * sin(2 * pi() * ((toInt64(b) - ${FIRST_BLOCK}) * ${BLOCK_SECONDS}) / (86400 * (3 + cityHash64('period', k) % 28))
        + 2 * pi() * (cityHash64('phase', k) % 1000) / 1000) + ((cityHash64(n, 7) % 41) - 20) / 1000.0 AS yes,
      toUInt64(greatest(1, least(99, round(100 * if(outcome = 0, yes, 1 - yes))))) AS cents
    FROM (
      SELECT n, b, li, ${zipf(s.conditions, 'n, 1')} AS k, ${isNegRisk('k')} AS neg,
        if(cityHash64(n, 3) % 10 < 6, 0, 1) AS outcome
      FROM ${source})))
${ONE_STATEMENT}`;
}

/** Supply rows numbered by `s` (the source gives `s`, `b`, `li`). */
function supplySql(sh: Shape, source: string, status: 'confirmed' | 'pending'): string {
  const markets = marketsOf(sh);
  return `
INSERT INTO alpha_ctf_supply (chain_id, block_number, block_hash, block_time, tx_hash, log_index, kind,
  contract, stakeholder, condition_id, collateral_token, amount, payout, neg_risk_market_id, index_set, status)
SELECT
  ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')}, ${hex32('stx', 's')}, toUInt32(li),
  kind,
  if(convert OR (neg AND NOT echo), '${ADAPTER}', '${CTF}'),
  if(echo, '${ADAPTER}', ${address('w', skewedWallet('s, 24'))}),
  if(convert, NULL, ${conditionId('k')}),
  multiIf(convert OR (neg AND NOT echo), '', echo, '${WCOL}', '${USDC_E}'),
  amount,
  if(kind = 'redeem' AND cityHash64(s, 25) % 2 = 0, amount, 0),
  if(convert, ${marketId(`least(${markets - 1}, intDiv(k, 10))`)}, NULL),
  if(convert, toString(1 + cityHash64(s, 26) % ${2 ** QUESTIONS - 1}), NULL),
  '${status}'
FROM (
  SELECT s, b, li, k, neg, r < 3 AS convert, neg AND NOT convert AND cityHash64(s, 23) % 10 = 0 AS echo,
    multiIf(convert, 'convert', r < 50, 'split', r < 80, 'merge', 'redeem') AS kind,
    toUInt64(1000000 * (1 + toUInt64(5000 * pow(${uniform('s, 27')}, 3)))) AS amount
  FROM (
    SELECT s, b, li, ${zipf(sh.conditions, 's, 21')} AS k, ${isNegRisk('k')} AS neg, cityHash64(s, 22) % 100 AS r
    FROM ${source}))
${ONE_STATEMENT}`;
}

/** Markets, questions, conditions and tokens: what the reference pass teaches, before the first fill. */
function preparationSql(s: Shape): string[] {
  const p = firstPreparedBlock(s);
  const markets = marketsOf(s);
  const lifecycleColumns =
    'chain_id, block_number, block_hash, block_time, tx_hash, log_index, kind, version, neg_risk, contract, condition_id, question_id, market_id, oracle, outcome_slot_count, tokens, payout_numerators, args, status';
  // Market m in block p + m; condition k in block p + markets + k (its QuestionPrepared: log 1).
  const conditionBlock = `toUInt64(${p + markets} + k)`;
  return [
    `INSERT INTO alpha_neg_risk_markets (chain_id, market_id, oracle, fee_bips, block_number, tx_hash, log_index)
     SELECT ${CHAIN_ID}, ${marketId('number')}, '${UMA_ADAPTER}', toUInt32((number % 3) * 50), ${p} + number, ${hex32('mtx', 'number')}, 0
     FROM numbers(${markets}) ${ONE_STATEMENT}`,
    `INSERT INTO alpha_lifecycle (${lifecycleColumns})
     SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')}, ${hex32('mtx', 'number')}, 0,
       'neg_risk_market_prepared', 1, true, '${ADAPTER}', '', '', ${marketId('number')}, '${UMA_ADAPTER}', 0, NULL, [],
       concat('{"marketId":"', ${marketId('number')}, '","oracle":"${UMA_ADAPTER}","feeBips":"', toString((number % 3) * 50), '","data":"0x"}'),
       'confirmed'
     FROM (SELECT number, toUInt64(${p} + number) AS b FROM numbers(${markets})) ${ONE_STATEMENT}`,
    `INSERT INTO alpha_lifecycle (${lifecycleColumns})
     SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')}, ${hex32('ctx', 'k')}, 0,
       'condition_prepared', 1, neg, '${CTF}', ${conditionId('k')}, q, '', if(neg, '${ADAPTER}', '${UMA_ADAPTER}'), 2,
       concat('[{"token_id":"', ${tokenId('2 * k')}, '","label":"Yes"},{"token_id":"', ${tokenId('2 * k + 1')}, '","label":"No"}]'),
       [], concat('{"conditionId":"', ${conditionId('k')}, '","questionId":"', q, '","outcomeSlotCount":"2"}'), 'confirmed'
     FROM (
       SELECT number AS k, ${conditionBlock} AS b, ${isNegRisk('k')} AS neg,
         if(neg, ${questionId('intDiv(k, 10)', `k % 10 - ${10 - QUESTIONS}`)}, ${hex32('q', 'k')}) AS q
       FROM numbers(${s.conditions})) ${ONE_STATEMENT}`,
    `INSERT INTO alpha_lifecycle (${lifecycleColumns})
     SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')}, ${hex32('ctx', 'k')}, 1,
       'neg_risk_question_prepared', 1, true, '${ADAPTER}', '', q, ${marketId('intDiv(k, 10)')}, '', 0, NULL, [],
       concat('{"marketId":"', ${marketId('intDiv(k, 10)')}, '","questionId":"', q, '","index":"', toString(i), '","data":"0x"}'),
       'confirmed'
     FROM (
       SELECT number AS k, ${conditionBlock} AS b, k % 10 - ${10 - QUESTIONS} AS i, ${questionId('intDiv(k, 10)', 'i')} AS q
       FROM numbers(${s.conditions}) WHERE ${isNegRisk('k')}) ${ONE_STATEMENT}`,
    `INSERT INTO alpha_tokens (chain_id, token_id, condition_id, outcome_index, complement_token_id, neg_risk, source, block_number, tx_hash, log_index)
     SELECT ${CHAIN_ID}, ${tokenId('t')}, ${conditionId('intDiv(t, 2)')}, toInt8(t % 2), ${tokenId('bitXor(t, 1)')},
       ${isNegRisk('intDiv(t, 2)')}, 'condition_prepared', ${p + markets} + intDiv(t, 2), ${hex32('ctx', 'intDiv(t, 2)')}, 0
     FROM (SELECT number AS t FROM numbers(${2 * s.conditions})) ${ONE_STATEMENT}`,
  ];
}

/**
 * With the `positions` option (bench/positions.ts), what the positions job reads besides the fills, each
 * drawn from the maker fills already written (`source`: a SELECT over alpha_fills giving every column
 * plus `nb` (the new row's block) and `nli` (its log index)), so the wallets that act hold the tokens:
 * - resolutions: a third of the conditions resolve (alpha_lifecycle `condition_resolved`, payouts [1, 0]
 *   or [0, 1]) at a block between 20 % and 100 % of the span (`resolvedSql`);
 * - activity by the fill's maker on its condition, some blocks later: REDEEM once the condition resolved
 *   (the NegRiskAdapter's with per-outcome amounts), else on neg-risk NO fills 30 % CONVERT (index set: the
 *   fill's question), else SPLIT 60 % / MERGE 40 %, amount the fill's shares;
 * - plain transfers: the maker of a BUY sends half its shares to another wallet (operator the sender), 4 in
 *   5 to one of 10 wallets fixed by the sender's address (its cluster), 1 in 5 to a stranger that never
 *   trades;
 * - the exchange's settlement transfer of every maker fill (operator the exchange: the job reads past them);
 * - fee rows: FeeCharged of every fee-paying fill to one fee receiver (a share fee: its fee income), and a
 *   FeeRefunded of half the fee to the maker for 1 in 4 of them, after the fill.
 */
const FEE_RECEIVER = '0x00000000000000000000000000000000000fee01';
const FEE_MODULE = '0x00000000000000000000000000000000000fee02';
const resolvedOf = (c: string) => `cityHash64('res', ${c}) % 3 = 0`;
const resolutionBlockOf = (s: Shape, c: string) =>
  `toUInt64(${FIRST_BLOCK} + intDiv(${blocksOf(s)} * (20 + cityHash64('resb', ${c}) % 80), 100))`;

function resolvedSql(s: Shape): string {
  return `
INSERT INTO alpha_lifecycle (chain_id, block_number, block_hash, block_time, tx_hash, log_index, kind, version,
  neg_risk, contract, condition_id, question_id, market_id, oracle, outcome_slot_count, tokens, payout_numerators,
  args, status)
SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockTime('b')}, ${hex32('rtx', 'condition_id')}, 0, 'condition_resolved',
  1, neg_risk, '${CTF}', condition_id, question_id, '', oracle, 2, NULL, nums,
  concat('{"conditionId":"', condition_id, '","payoutNumerators":["', arrayStringConcat(nums, '","'), '"]}'), 'confirmed'
FROM (
  SELECT condition_id, question_id, oracle, neg_risk, ${resolutionBlockOf(s, 'condition_id')} AS b,
    if(cityHash64('win', condition_id) % 2 = 0, ['1', '0'], ['0', '1']) AS nums
  FROM alpha_lifecycle WHERE kind = 'condition_prepared' AND ${resolvedOf('condition_id')})
${ONE_STATEMENT}`;
}

function activitySql(s: Shape, source: string, status: 'confirmed' | 'pending'): string {
  return `
INSERT INTO alpha_activity (chain_id, block_number, block_hash, block_time, tx_hash, log_index, type, version,
  neg_risk, wallet, stakeholder, contract, condition_id, market_id, neg_risk_market_id, index_set,
  collateral_token, partition, amounts, amount, payout, status)
SELECT ${CHAIN_ID}, nb, ${blockHash('nb')}, ${blockTime('nb')}, ${hex32('atx', 'tx_hash')}, toUInt32(nli), type, 1,
  neg_risk, maker, maker, if(neg_risk, '${ADAPTER}', '${CTF}'),
  if(type = 'CONVERT', NULL, condition_id), if(type = 'CONVERT', NULL, condition_id),
  if(type = 'CONVERT', concat(substring(q, 1, 64), '00'), NULL),
  if(type = 'CONVERT', toString(bitShiftLeft(1, reinterpretAsUInt8(unhex(substring(q, 65, 2))))), NULL),
  if(neg_risk, '', '${USDC_E}'), if(type = 'CONVERT', [], ['1', '2']),
  if(type = 'REDEEM' AND neg_risk, if(outcome_index = 0, [shares, 0], [0, shares]), []),
  shares, if(type = 'REDEEM', shares, 0), '${status}'
FROM (
  SELECT f.*, p.q AS q,
    multiIf(${resolvedOf('condition_id')} AND nb > ${resolutionBlockOf(s, 'condition_id')}, 'REDEEM',
      neg_risk AND outcome_index = 1 AND q != '' AND cityHash64(tx_hash, 'cv') % 10 < 3, 'CONVERT',
      cityHash64(tx_hash, 'sm') % 10 < 6, 'SPLIT', 'MERGE') AS type
  FROM (${source}) AS f
  LEFT JOIN (SELECT condition_id, any(question_id) AS q FROM alpha_lifecycle
             WHERE kind = 'condition_prepared' AND neg_risk GROUP BY condition_id) AS p USING condition_id)
${ONE_STATEMENT}`;
}

function plainTransfersSql(source: string, status: 'confirmed' | 'pending'): string {
  const n = `reinterpretAsUInt32(substring(unhex(substring(maker, 3, 8)), 1, 4))`;
  return `
INSERT INTO alpha_token_transfers (chain_id, block_number, block_hash, block_time, tx_hash, log_index, batch_index,
  operator, from_address, to_address, token_id, amount, status)
SELECT ${CHAIN_ID}, nb, ${blockHash('nb')}, ${blockTime('nb')}, ${hex32('ptx', 'tx_hash')}, toUInt32(nli), 0,
  maker, maker,
  if(cityHash64(tx_hash, 'st') % 5 = 0, ${address('x', 'tx_hash')},
     ${address('w', `(${n} + 1 + cityHash64(tx_hash, 'cl') % 10) % ${WALLETS}`)}),
  token_id, intDiv(shares, 2), '${status}'
FROM (${source})
${ONE_STATEMENT}`;
}

/** Settlement transfers of the maker fills in `where` (the exchange moves the shares, operator itself). */
function settlementSql(where: string, status: 'confirmed' | 'pending'): string {
  return `
INSERT INTO alpha_token_transfers (chain_id, block_number, block_hash, block_time, tx_hash, log_index, batch_index,
  operator, from_address, to_address, token_id, amount, status)
SELECT chain_id, block_number, block_hash, block_time, tx_hash, log_index, 0, exchange,
  if(side = 'BUY', taker, maker), if(side = 'BUY', maker, taker), token_id, shares, '${status}'
FROM alpha_fills WHERE role = 'maker' AND ${where}
${ONE_STATEMENT}`;
}

/** FeeCharged of the fee-paying maker fills in `where`, and FeeRefunded (log index + `refundLog`) of 1 in 4. */
function feeSql(where: string, refundLog: number, status: 'confirmed' | 'pending'): string[] {
  const columns =
    'chain_id, block_number, block_hash, block_time, tx_hash, log_index, kind, contract, exchange_version, neg_risk, order_hash, account, token_id, amount, args, status';
  const asset = `if(fee_asset = 'shares', token_id, '0')`;
  return [
    `INSERT INTO alpha_exchange_events (${columns})
     SELECT chain_id, block_number, block_hash, block_time, tx_hash, log_index, 'fee_charged', exchange, 1, neg_risk,
       '', '${FEE_RECEIVER}', ${asset}, fee, '{}', '${status}'
     FROM alpha_fills WHERE role = 'maker' AND fee > 0 AND ${where}
     ${ONE_STATEMENT}`,
    `INSERT INTO alpha_exchange_events (${columns})
     SELECT chain_id, block_number, block_hash, block_time, tx_hash, toUInt32(log_index + ${refundLog}), 'fee_refunded',
       '${FEE_MODULE}', 1, neg_risk, order_hash, maker, ${asset}, intDiv(fee, 2), '{}', '${status}'
     FROM alpha_fills WHERE role = 'maker' AND fee > 1 AND cityHash64(tx_hash, 'rf') % 4 = 0 AND ${where}
     ${ONE_STATEMENT}`,
  ];
}

/** Header rows of the given blocks (a SELECT giving `block_number`). */
const blocksSql = (blocks: string) => `
INSERT INTO alpha_blocks (chain_id, number, hash, parent_hash, timestamp)
SELECT ${CHAIN_ID}, b, ${blockHash('b')}, ${blockHash('b - 1')}, ${blockTime('b')}
FROM (SELECT DISTINCT block_number AS b FROM (${blocks}))
${ONE_STATEMENT}`;

export interface Checkpoint {
  /** FOLLOW_STREAM (the follower's head mark) or BACKFILL_STREAM (with `range`: a range's mark). */
  stream: string;
  range?: { from: number; to: number };
  block: number;
}

/** Commits the chain's marks (block hash by the blocks' formula), `updatedMs` their `at`. */
export async function writeCheckpoints(ch: ClickHouse, cps: Checkpoint[], updatedMs: number): Promise<void> {
  await ch.command(
    'bench.analytics.checkpoints',
    `INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
     SELECT 'alpha-chain', m.1, if(m.2 = 1, 'range', 'head'), m.3, m.4, b, ${blockHash('b')}, NULL,
       fromUnixTimestamp64Milli({ms:Int64}, 'UTC')
     FROM (SELECT arrayJoin(arrayZip({streams:Array(String)}, {ranged:Array(UInt8)}, {froms:Array(UInt64)},
       {tos:Array(UInt64)}, {blocks:Array(UInt64)})) AS m, m.5 AS b)`,
    {
      streams: cps.map((c) => c.stream),
      ranged: cps.map((c) => (c.range ? 1 : 0)),
      froms: cps.map((c) => c.range?.from ?? 0),
      tos: cps.map((c) => c.range?.to ?? 0),
      blocks: cps.map((c) => c.block),
      ms: updatedMs,
    },
  );
}

/** Rows per generating statement. */
const CHUNK = 1_000_000;
/** [first, count] pieces of 0..total − 1, at most CHUNK each. */
function chunks(total: number): [number, number][] {
  const out: [number, number][] = [];
  for (let from = 0; from < total; from += CHUNK) out.push([from, Math.min(CHUNK, total - from)]);
  return out;
}

export interface Generated {
  seconds: { step: string; s: number }[];
  lastBlock: number;
}

/** What the generator adds for other readers than the market analytics. */
export interface GenerateOptions {
  /** The positions' inputs too: fee-paying fills, resolutions, activity, transfers, fee rows (above). */
  positions?: boolean;
}

/** The whole dataset into an empty, migrated database. */
export async function generate(
  ch: ClickHouse,
  s: Shape,
  say: (line: string) => void,
  o: GenerateOptions = {},
): Promise<Generated> {
  const blocks = blocksOf(s);
  const supply = Math.floor(s.fills / 4);
  const takers = Math.floor(s.fills / 3);
  const seconds: { step: string; s: number }[] = [];
  const step = async (name: string, sqls: string[]) => {
    const t0 = performance.now();
    for (const sql of sqls) await ch.command(`bench.analytics.generate.${name}`, sql);
    const took = (performance.now() - t0) / 1000;
    seconds.push({ step: name, s: took });
    say(`  generated ${name} in ${took.toFixed(1)} s`);
  };
  await step('preparations', preparationSql(s));
  // Maker fill n in block FIRST + ⌊n · blocks / N⌋ (log index 2n); taker aggregate of fill 3j: log 6j + 1.
  // In statements of at most CHUNK rows (bounded memory per insert).
  await step(
    'maker fills',
    chunks(s.fills).map(([from, count]) =>
      fillsSql(
        s,
        `(SELECT number AS n, ${FIRST_BLOCK} + intDiv(number * ${blocks}, ${s.fills}) AS b, 2 * number AS li FROM numbers(${from}, ${count}))`,
        'maker',
        'confirmed',
        o.positions,
      ),
    ),
  );
  await step(
    'taker fills',
    chunks(takers).map(([from, count]) =>
      fillsSql(
        s,
        `(SELECT 3 * number AS n, ${FIRST_BLOCK} + intDiv(n * ${blocks}, ${s.fills}) AS b, 2 * n + 1 AS li FROM numbers(${from}, ${count}))`,
        'taker',
        'confirmed',
      ),
    ),
  );
  await step('supply', [
    supplySql(
      s,
      `(SELECT number AS s, ${FIRST_BLOCK} + intDiv(number * ${blocks}, ${Math.max(1, supply)}) AS b, ${2 * s.fills} + number AS li FROM numbers(${supply}))`,
      'confirmed',
    ),
  ]);
  const lastBlock = lastBlockOf(s);
  if (o.positions) {
    const later = (salt: string) =>
      `least(${lastBlock}, block_number + 1 + cityHash64(tx_hash, '${salt}') % 2000)`;
    await step('resolutions', [resolvedSql(s)]);
    await step('activity', [
      activitySql(
        s,
        `SELECT *, ${later('actd')} AS nb, ${3 * s.fills} + log_index AS nli FROM alpha_fills
         WHERE role = 'maker' AND cityHash64(tx_hash, 'act') % 5 = 0`,
        'confirmed',
      ),
    ]);
    await step('transfers', [
      plainTransfersSql(
        `SELECT *, ${later('trd')} AS nb, ${4 * s.fills} + log_index AS nli FROM alpha_fills
         WHERE role = 'maker' AND side = 'BUY' AND cityHash64(tx_hash, 'tr') % 10 = 0`,
        'confirmed',
      ),
      settlementSql('1', 'confirmed'),
    ]);
    await step('fee events', feeSql('1', 5 * s.fills, 'confirmed'));
  }
  await step('blocks', [
    blocksSql(
      `SELECT block_number FROM alpha_fills UNION ALL SELECT block_number FROM alpha_ctf_supply
       UNION ALL SELECT block_number FROM alpha_lifecycle${
         o.positions
           ? ' UNION ALL SELECT block_number FROM alpha_activity UNION ALL SELECT block_number FROM alpha_token_transfers'
           : ''
       }`,
    ),
  ]);
  const t0 = performance.now();
  const ranges = planBackfillRanges(firstPreparedBlock(s), lastBlock, 100_000);
  await writeCheckpoints(
    ch,
    [
      ...ranges.map((r) => ({ stream: BACKFILL_STREAM, range: r, block: r.to })),
      { stream: FOLLOW_STREAM, block: lastBlock },
    ],
    Date.now(),
  );
  seconds.push({ step: 'checkpoints', s: (performance.now() - t0) / 1000 });
  return { seconds, lastBlock };
}

/**
 * One new block after the last: `fills` maker fills (Zipf over the conditions like the history, fill
 * numbers after every earlier one), a taker aggregate per 3, a supply row per 4, its header; then the
 * follow checkpoint moves to it. Rows pending, as the follower writes blocks within the finality depth.
 * With `positions`, also the positions' inputs drawn as in the history: activity rows (one per 5 fills)
 * and plain transfers (one per 20) by makers of the last 2,000 blocks, the block's settlement transfers
 * and fee rows.
 */
export async function appendBlock(
  ch: ClickHouse,
  s: Shape,
  o: { block: number; index: number; fills: number; updatedMs: number; positions?: boolean },
): Promise<void> {
  const n0 = s.fills + o.index * o.fills;
  const s0 = Math.floor(s.fills / 4) + o.index * Math.ceil(o.fills / 4);
  await ch.command(
    'bench.analytics.append.makers',
    fillsSql(
      s,
      `(SELECT ${n0} + number AS n, toUInt64(${o.block}) AS b, 2 * number AS li FROM numbers(${o.fills}))`,
      'maker',
      'pending',
      o.positions,
    ),
  );
  await ch.command(
    'bench.analytics.append.takers',
    fillsSql(
      s,
      `(SELECT ${n0} + 3 * number AS n, toUInt64(${o.block}) AS b, 6 * number + 1 AS li FROM numbers(${Math.floor(o.fills / 3)}))`,
      'taker',
      'pending',
    ),
  );
  await ch.command(
    'bench.analytics.append.supply',
    supplySql(
      s,
      `(SELECT ${s0} + number AS s, toUInt64(${o.block}) AS b, ${2 * o.fills} + number AS li FROM numbers(${Math.ceil(o.fills / 4)}))`,
      'pending',
    ),
  );
  if (o.positions) {
    const recent = (salt: string, where: string, rows: number, log: number) =>
      `SELECT *, toUInt64(${o.block}) AS nb, ${log} + rowNumberInAllBlocks() AS nli FROM (
         SELECT * FROM alpha_fills WHERE role = 'maker' AND ${where}
           AND block_number >= ${o.block - 2000} AND block_number < ${o.block}
         ORDER BY cityHash64(tx_hash, '${salt}', ${o.block}) LIMIT ${rows})`;
    await ch.command(
      'bench.analytics.append.activity',
      activitySql(s, recent('act', '1', Math.ceil(o.fills / 5), 3 * o.fills), 'pending'),
    );
    await ch.command(
      'bench.analytics.append.transfers',
      plainTransfersSql(recent('tr', `side = 'BUY'`, Math.ceil(o.fills / 20), 4 * o.fills), 'pending'),
    );
    const here = `block_number = ${o.block}`;
    await ch.command('bench.analytics.append.settlement', settlementSql(here, 'pending'));
    for (const sql of feeSql(here, 5 * o.fills, 'pending'))
      await ch.command('bench.analytics.append.fees', sql);
  }
  await ch.command('bench.analytics.append.block', blocksSql(`SELECT toUInt64(${o.block}) AS block_number`));
  await writeCheckpoints(ch, [{ stream: FOLLOW_STREAM, block: o.block }], o.updatedMs);
}

/** The busiest condition and token by maker fills (from the chain table: what the derived ones must show). */
export async function busiest(
  ch: ClickHouse,
): Promise<{ conditionId: string; tokenId: string; fills: number }> {
  const [c] = await ch.query<{ id: string; n: string }>(
    'bench.analytics.busiest-condition',
    `SELECT condition_id AS id, count() AS n FROM alpha_fills WHERE role = 'maker' GROUP BY id ORDER BY n DESC LIMIT 1`,
  );
  const [t] = await ch.query<{ id: string }>(
    'bench.analytics.busiest-token',
    `SELECT token_id AS id FROM alpha_fills WHERE role = 'maker' AND condition_id = {c:String}
     GROUP BY id ORDER BY count() DESC LIMIT 1`,
    { c: c!.id },
  );
  return { conditionId: c!.id, tokenId: t!.id, fills: Number(c!.n) };
}
