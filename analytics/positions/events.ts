/**
 * The chain events that change positions, read from the chain tables for a block range and merged into
 * chain order (block, log index, batch index):
 * - fills (alpha_fills): every OrderFilled, maker fills and taker aggregates; the account is `maker`;
 * - activity (alpha_activity): split, merge, redeem, convert, by the real user;
 * - plain transfers (alpha_token_transfers): sender, receiver and operator non-protocol, sender ≠
 *   receiver (an exchange settling a match peer to peer moves shares between two wallets too, but as
 *   the operator: the fills account for those);
 * - fee refunds and share fees received (alpha_exchange_events `fee_refunded`, and `fee_charged` with a
 *   token id to a non-protocol receiver).
 * A batch ends on a whole block: each table is read `limit` rows at a time in chain order, and a table
 * that filled its limit ends the batch before its last block (a block alone above the limit is read
 * whole). Rows of a block rewritten twice (the Replacing engines' second guard) count once.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { EventRef } from './accounting.ts';

export interface FillEvent {
  type: 'fill';
  ref: EventRef;
  wallet: string;
  side: 'BUY' | 'SELL';
  tokenId: string;
  conditionId: string;
  outcomeIndex: number;
  shares: bigint;
  usd: bigint;
  fee: bigint;
  feeAsset: 'shares' | 'collateral';
  orderHash: string;
}

export interface ActivityEvent {
  type: 'activity';
  ref: EventRef;
  wallet: string;
  kind: 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERT';
  contract: string;
  conditionId: string | null;
  negRiskMarketId: string | null;
  indexSet: bigint | null;
  amounts: bigint[];
  amount: bigint;
}

export interface TransferEvent {
  type: 'transfer';
  ref: EventRef;
  from: string;
  to: string;
  tokenId: string;
  amount: bigint;
}

export interface RefundEvent {
  type: 'refund';
  ref: EventRef;
  wallet: string;
  /** The refunded asset: a token id, or '0' for collateral. */
  tokenId: string;
  amount: bigint;
  orderHash: string;
}

export interface FeeIncomeEvent {
  type: 'fee_income';
  ref: EventRef;
  wallet: string;
  tokenId: string;
  amount: bigint;
}

export type ChainEvent = FillEvent | ActivityEvent | TransferEvent | RefundEvent | FeeIncomeEvent;

export interface EventBatch {
  events: ChainEvent[];
  /** The last block the batch covers whole. */
  to: number;
}

type Head = [block: string, hash: string, time: string, tx: string, log: number];

const HEAD = 'block_number, block_hash, toUnixTimestamp64Milli(block_time) AS time_ms, tx_hash, log_index';
const RANGE = 'chain_id = {chain:UInt32} AND block_number >= {first:UInt64} AND block_number <= {to:UInt64}';

const refOf = (h: readonly unknown[], batchIndex = 0): EventRef => ({
  block: Number(h[0]),
  blockHash: String(h[1]),
  time: Number(h[2]),
  txHash: String(h[3]),
  logIndex: Number(h[4]),
  batchIndex,
});

interface Source<R extends unknown[]> {
  label: string;
  /** The chain table, the SELECT list (aliased as the stage table's columns), the source's own filter. */
  table: string;
  select: string;
  where: string;
  /** Chain order within the source. */
  order: string;
  /** The row's block number. */
  block(r: R): number;
  /** The row's identity within its block (rows read twice count once). */
  key(r: R): string;
  events(r: R): ChainEvent[];
}

type FillRow = [...Head, string, string, string, string, number, string, string, string, string, string];
const fills: Source<FillRow> = {
  label: 'fills',
  table: 'alpha_fills',
  select: `${HEAD}, maker, toString(side) AS side, token_id, condition_id, outcome_index, shares, usd, fee,
      toString(fee_asset) AS fee_asset, order_hash`,
  where: 'maker NOT IN {protocol:Array(String)}',
  order: 'block_number, log_index',
  block: (r) => Number(r[0]),
  key: (r) => `${r[3]}|${r[4]}`,
  events: (r) => [
    {
      type: 'fill',
      ref: refOf(r),
      wallet: r[5],
      side: r[6] === 'BUY' ? 'BUY' : 'SELL',
      tokenId: r[7],
      conditionId: r[8],
      outcomeIndex: r[9],
      shares: BigInt(r[10]),
      usd: BigInt(r[11]),
      fee: BigInt(r[12]),
      feeAsset: r[13] === 'shares' ? 'shares' : 'collateral',
      orderHash: r[14],
    },
  ],
};

type ActivityRow = [
  ...Head,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string[],
  string,
];
const activity: Source<ActivityRow> = {
  label: 'activity',
  table: 'alpha_activity',
  select: `${HEAD}, toString(type) AS type, wallet, contract, condition_id, neg_risk_market_id, index_set,
      amounts, amount`,
  where: 'wallet NOT IN {protocol:Array(String)}',
  order: 'block_number, log_index',
  block: (r) => Number(r[0]),
  key: (r) => `${r[3]}|${r[4]}`,
  events: (r) => [
    {
      type: 'activity',
      ref: refOf(r),
      kind: r[5] as ActivityEvent['kind'],
      wallet: r[6],
      contract: r[7],
      conditionId: r[8],
      negRiskMarketId: r[9],
      indexSet: r[10] === null ? null : BigInt(r[10]),
      amounts: r[11].map((a) => BigInt(a)),
      amount: BigInt(r[12]),
    },
  ],
};

type TransferRow = [...Head, number, string, string, string, string];
const transfers: Source<TransferRow> = {
  label: 'transfers',
  table: 'alpha_token_transfers',
  select: `${HEAD}, batch_index, from_address, to_address, token_id, amount`,
  where: `from_address != to_address AND from_address NOT IN {protocol:Array(String)}
      AND to_address NOT IN {protocol:Array(String)} AND operator NOT IN {protocol:Array(String)}`,
  order: 'block_number, log_index, batch_index',
  block: (r) => Number(r[0]),
  key: (r) => `${r[3]}|${r[4]}|${r[5]}`,
  events: (r) => [
    { type: 'transfer', ref: refOf(r, r[5]), from: r[6], to: r[7], tokenId: r[8], amount: BigInt(r[9]) },
  ],
};

type FeeRow = [...Head, string, string, string, string, string];
const fees: Source<FeeRow> = {
  label: 'fees',
  table: 'alpha_exchange_events',
  select: `${HEAD}, toString(kind) AS kind, account, token_id, amount, order_hash`,
  where: `account NOT IN {protocol:Array(String)}
      AND (kind = 'fee_refunded' OR (kind = 'fee_charged' AND token_id NOT IN ('', '0')))`,
  order: 'block_number, log_index',
  block: (r) => Number(r[0]),
  key: (r) => `${r[3]}|${r[4]}`,
  events: (r) => {
    const amount = BigInt(r[8]);
    if (amount === 0n) return [];
    return r[5] === 'fee_refunded'
      ? [{ type: 'refund', ref: refOf(r), wallet: r[6], tokenId: r[7], amount, orderHash: r[9] }]
      : [{ type: 'fee_income', ref: refOf(r), wallet: r[6], tokenId: r[7], amount }];
  },
};

const SOURCES = [fills, activity, transfers, fees] as Source<unknown[]>[];

const order = (a: ChainEvent, b: ChainEvent) =>
  a.ref.block - b.ref.block || a.ref.logIndex - b.ref.logIndex || a.ref.batchIndex - b.ref.batchIndex;

const stageOf = (s: Source<unknown[]>) => `alpha_positions_stage_${s.label}`;

/** A source's rows of a block range in chain order, from its chain table or its stage table. */
function sourceSql(s: Source<unknown[]>, staged: boolean): string {
  return staged
    ? `SELECT * FROM ${stageOf(s)} WHERE block_number >= {first:UInt64} AND block_number <= {to:UInt64}
       ORDER BY ${s.order} LIMIT {limit:UInt64}`
    : // The block range first, alone: the engine reads the block numbers of the whole table (its parts are
      // sorted by wallet or token) and the other columns only of the granules that hold the range.
      `SELECT ${s.select} FROM ${s.table} PREWHERE block_number >= {first:UInt64} AND block_number <= {to:UInt64}
       WHERE chain_id = {chain:UInt32} AND ${s.where} ORDER BY ${s.order} LIMIT {limit:UInt64}`;
}

/**
 * Copies the rows of blocks (from, to] that the positions read into the stage tables (migration 033),
 * sorted by block: the chain tables are sorted by wallet or token, so a read of a block range scans them
 * whole; a long range (a recomputation, a catch-up) copies its rows once and reads its batches from the
 * stage tables by their primary key.
 */
export async function stageEvents(
  ch: ClickHouse,
  q: { chainId: number; from: number; to: number; protocol: readonly string[] },
): Promise<void> {
  const params = { chain: q.chainId, first: q.from + 1, to: q.to, protocol: q.protocol };
  for (const s of SOURCES) {
    await ch.command(`analytics.positions.stage.clear.${s.label}`, `TRUNCATE TABLE ${stageOf(s)}`);
    await ch.command(
      `analytics.positions.stage.${s.label}`,
      `INSERT INTO ${stageOf(s)} SELECT ${s.select} FROM ${s.table} WHERE ${RANGE} AND ${s.where}`,
      params,
    );
  }
}

/**
 * The events of blocks (from, to] (from −1: from the first block), at most about `limit` rows per table:
 * the batch may end below `to` (`EventBatch.to`), always on a whole block. `staged`: read from the stage
 * tables `stageEvents` filled for a range that holds (from, to].
 */
export async function readEvents(
  ch: ClickHouse,
  q: {
    chainId: number;
    from: number;
    to: number;
    limit: number;
    protocol: readonly string[];
    staged?: boolean;
  },
): Promise<EventBatch> {
  if (q.staged && q.limit !== Number.MAX_SAFE_INTEGER) {
    // The stage tables are sorted by block: find where each table's `limit`-th row lies (its block
    // numbers alone), end the batch on the whole block before the first of those, then read it whole.
    const marks = await Promise.all(
      SOURCES.map((s) =>
        ch.read<[string]>(
          `analytics.positions.stage_mark.${s.label}`,
          `SELECT block_number FROM ${stageOf(s)} WHERE block_number >= {first:UInt64} AND block_number <= {to:UInt64}
           ORDER BY block_number LIMIT 1 OFFSET {limit:UInt64}`,
          { first: q.from + 1, to: q.to, limit: q.limit },
        ),
      ),
    );
    const blocks = marks.flatMap((m) => (m[0] ? [Number(m[0][0])] : []));
    const first = blocks.length === 0 ? q.to + 1 : Math.min(...blocks);
    const end = Math.min(q.to, first - 1 > q.from ? first - 1 : first);
    return readEvents(ch, { ...q, to: end, limit: Number.MAX_SAFE_INTEGER });
  }
  const params = { chain: q.chainId, first: q.from + 1, to: q.to, limit: q.limit, protocol: q.protocol };
  const results = await Promise.all(
    SOURCES.map((s) =>
      ch.read<unknown[]>(`analytics.positions.${s.label}`, sourceSql(s, q.staged ?? false), params),
    ),
  );
  // A table that returned its whole limit may have more rows in its last block: end before it.
  let end = q.to;
  SOURCES.forEach((s, i) => {
    const rows = results[i] as unknown[][];
    if (rows.length >= q.limit) end = Math.min(end, s.block(rows[rows.length - 1] as unknown[]) - 1);
  });
  if (end <= q.from) {
    // One block holds more rows than the limit: read that block whole.
    const block = Math.min(
      ...SOURCES.flatMap((s, i) => {
        const rows = results[i] as unknown[][];
        return rows.length >= q.limit ? [s.block(rows[rows.length - 1] as unknown[])] : [];
      }),
    );
    return readEvents(ch, { ...q, to: block, limit: Number.MAX_SAFE_INTEGER });
  }
  const events: ChainEvent[] = [];
  SOURCES.forEach((s, i) => {
    const seen = new Set<string>();
    for (const r of results[i] as unknown[][]) {
      if (s.block(r) > end) break;
      const key = s.key(r);
      if (seen.has(key)) continue;
      seen.add(key);
      events.push(...s.events(r));
    }
  });
  events.sort(order);
  return { events, to: end };
}
