/**
 * The positions tables' reads and writes: the states of given (wallet, token) keys (alpha_positions
 * FINAL), change rows and states written as RowBinary, the positions job's checkpoint (the progress store,
 * core/watermarks.ts: source `alpha-positions`, stream `run`), and the rewind to a block: change rows above it deleted, each position they
 * touched restored from its last remaining change (or deleted when none remains).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { ByteWriter } from '../../core/clickhouse/row-binary.ts';
import { insertColumns, rowBinaryEncoder } from '../../core/clickhouse/table.ts';
import { createWatermarks } from '../../core/watermarks.ts';
import { ALPHA_POSITION_CHANGES, ALPHA_POSITIONS } from '../../schemas/tables/alpha-positions.ts';
import { commitRun, RUN_STREAM } from '../shared/chain.ts';
import { emptyPosition, type PositionChange, type PositionState } from './accounting.ts';

/** The positions' source in the progress store (the product's name) and its run's stream. */
export const POSITIONS_SOURCE = 'alpha-positions';

const keyOf = (wallet: string, tokenId: string) => `${wallet}|${tokenId}`;

/** alpha_positions' state columns, in PositionState's order (the SELECT of every state read). */
const STATE_COLUMNS = `wallet, token_id, condition_id, outcome_index, shares, avg_price, realized_pnl, total_bought,
  total_bought_usd, net_fees, fills, toUnixTimestamp64Milli(first_fill_at), toUnixTimestamp64Milli(last_fill_at),
  toUnixTimestamp64Milli(opened_at), open_realized_pnl, first_block, toUnixTimestamp64Milli(first_at), last_block,
  last_log_index, last_batch_index, last_block_hash, toUnixTimestamp64Milli(last_at)`;

type StateRow = [
  string,
  string,
  string,
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  number,
  string | null,
  string | null,
  string,
  string,
  string,
  string,
  string,
  number,
  number,
  string,
  string,
];

const stateOf = (r: StateRow): PositionState => ({
  wallet: r[0],
  tokenId: r[1],
  conditionId: r[2],
  outcomeIndex: Number(r[3]),
  shares: BigInt(r[4]),
  avgPrice: BigInt(r[5]),
  realizedPnl: BigInt(r[6]),
  totalBought: BigInt(r[7]),
  totalBoughtUsd: BigInt(r[8]),
  netFees: BigInt(r[9]),
  fills: Number(r[10]),
  firstFillAt: r[11] === null ? null : Number(r[11]),
  lastFillAt: r[12] === null ? null : Number(r[12]),
  openedAt: Number(r[13]),
  openRealizedPnl: BigInt(r[14]),
  firstBlock: Number(r[15]),
  firstAt: Number(r[16]),
  lastBlock: Number(r[17]),
  lastLogIndex: Number(r[18]),
  lastBatchIndex: Number(r[19]),
  lastBlockHash: r[20],
  lastAt: Number(r[21]),
});

const CHUNK = 2_000;

/** The current states of `keys` (absent: no position yet). */
export async function loadPositions(
  ch: ClickHouse,
  chainId: number,
  keys: readonly { wallet: string; tokenId: string }[],
): Promise<Map<string, PositionState>> {
  const out = new Map<string, PositionState>();
  const wanted = new Set(keys.map((k) => keyOf(k.wallet, k.tokenId)));
  const wallets = [...new Set(keys.map((k) => k.wallet))].sort();
  for (let i = 0; i < wallets.length; i += CHUNK) {
    const part = wallets.slice(i, i + CHUNK);
    const tokens = [...new Set(keys.filter((k) => part.includes(k.wallet)).map((k) => k.tokenId))];
    const rows = await ch.read<StateRow>(
      'analytics.positions.load',
      `SELECT ${STATE_COLUMNS} FROM alpha_positions FINAL
       WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)} AND token_id IN {tokens:Array(String)}`,
      { chain: chainId, wallets: part, tokens },
    );
    for (const r of rows) if (wanted.has(keyOf(r[0], r[1]))) out.set(keyOf(r[0], r[1]), stateOf(r));
  }
  return out;
}

const encodeChange = rowBinaryEncoder(ALPHA_POSITION_CHANGES);
const encodePosition = rowBinaryEncoder(ALPHA_POSITIONS);
const WRITE_ROWS = 50_000;

export async function writeChanges(ch: ClickHouse, chainId: number, changes: readonly PositionChange[]) {
  for (let i = 0; i < changes.length; i += WRITE_ROWS) {
    const w = new ByteWriter();
    for (const c of changes.slice(i, i + WRITE_ROWS)) {
      const s = c.state;
      encodeChange(w, {
        chain_id: chainId,
        wallet: s.wallet,
        token_id: s.tokenId,
        condition_id: s.conditionId,
        outcome_index: s.outcomeIndex,
        block_number: c.ref.block,
        block_hash: c.ref.blockHash,
        block_time: c.ref.time,
        tx_hash: c.ref.txHash,
        log_index: c.ref.logIndex,
        batch_index: c.ref.batchIndex,
        kind: c.kind,
        fill: c.fill ? 1 : 0,
        price: c.price as never,
        amount: c.amount as never,
        usd: c.usd as never,
        delta_shares: c.deltaShares as never,
        delta_realized_pnl: c.deltaRealized as never,
        delta_fees: c.deltaFees as never,
        delta_bought_usd: c.deltaBoughtUsd as never,
        shares: s.shares as never,
        avg_price: s.avgPrice as never,
        realized_pnl: s.realizedPnl as never,
        total_bought: s.totalBought as never,
        total_bought_usd: s.totalBoughtUsd as never,
        net_fees: s.netFees as never,
        fills: s.fills,
        opened_at: s.openedAt,
        open_realized_pnl: s.openRealizedPnl as never,
      });
    }
    await ch.insertRaw(
      'analytics.positions.write_changes',
      ALPHA_POSITION_CHANGES.name,
      'RowBinary',
      insertColumns(ALPHA_POSITION_CHANGES),
      w.take(),
    );
  }
}

/** Writes states at `version` (newest wins); `deleted` keys get a deleted row. */
export async function writePositions(
  ch: ClickHouse,
  chainId: number,
  version: number,
  states: readonly PositionState[],
  deleted: readonly { wallet: string; tokenId: string }[] = [],
) {
  const rows = [
    ...states.map((s) => ({ s, deleted: 0 as const })),
    ...deleted.map((k) => ({ s: emptyPosition(k.wallet, k.tokenId, '', -1), deleted: 1 as const })),
  ];
  for (let i = 0; i < rows.length; i += WRITE_ROWS) {
    const w = new ByteWriter();
    for (const { s, deleted: d } of rows.slice(i, i + WRITE_ROWS)) {
      encodePosition(w, {
        chain_id: chainId,
        wallet: s.wallet,
        token_id: s.tokenId,
        condition_id: s.conditionId,
        outcome_index: s.outcomeIndex,
        shares: s.shares as never,
        avg_price: s.avgPrice as never,
        realized_pnl: s.realizedPnl as never,
        total_bought: s.totalBought as never,
        total_bought_usd: s.totalBoughtUsd as never,
        net_fees: s.netFees as never,
        fills: s.fills,
        first_fill_at: s.firstFillAt,
        last_fill_at: s.lastFillAt,
        opened_at: s.openedAt,
        open_realized_pnl: s.openRealizedPnl as never,
        first_block: Math.max(0, s.firstBlock),
        first_at: s.firstAt,
        last_block: Math.max(0, s.lastBlock),
        last_log_index: s.lastLogIndex,
        last_batch_index: s.lastBatchIndex,
        last_block_hash: s.lastBlockHash,
        last_at: s.lastAt,
        version: version as never,
        deleted: d,
      });
    }
    await ch.insertRaw(
      'analytics.positions.write_positions',
      ALPHA_POSITIONS.name,
      'RowBinary',
      insertColumns(ALPHA_POSITIONS),
      w.take(),
    );
  }
}

export interface PositionsCheckpoint {
  number: number;
  /** '' for a checkpoint below every block (a rewind to the start). */
  hash: string;
}

export async function readPositionsCheckpoint(ch: ClickHouse): Promise<PositionsCheckpoint | null> {
  const m = await createWatermarks(ch).read(POSITIONS_SOURCE, RUN_STREAM);
  return m?.block === undefined ? null : { number: m.block, hash: m.hash ?? '' };
}

/** Runs `write` (the rows up to `cp`), then commits the checkpoint `cp` (its `at`: the wall clock). */
export async function writePositionsCheckpoint(
  ch: ClickHouse,
  cp: PositionsCheckpoint,
  write?: () => Promise<void>,
) {
  await commitRun(ch, POSITIONS_SOURCE, { kind: 'head', block: cp.number, hash: cp.hash }, write);
}

/** Empties the positions tables and forgets the checkpoint (a full recomputation follows). */
export async function resetPositions(ch: ClickHouse) {
  await ch.command('analytics.positions.reset.changes', 'TRUNCATE TABLE alpha_position_changes');
  await ch.command('analytics.positions.reset.positions', 'TRUNCATE TABLE alpha_positions');
  await createWatermarks(ch).forget(POSITIONS_SOURCE, RUN_STREAM);
}

/**
 * Rewinds the positions to block `to`: every change above it is deleted and each position those changes
 * touched is restored from its last remaining change (its fills, first fill and first change recounted
 * from the remaining ones), or deleted when none remains. Returns how many positions it restored and
 * deleted.
 */
export async function rewindPositions(
  ch: ClickHouse,
  chainId: number,
  to: number,
  version: number,
): Promise<{ restored: number; deleted: number }> {
  const keys = await ch.read<[string, string]>(
    'analytics.positions.rewind.keys',
    `SELECT DISTINCT wallet, token_id FROM alpha_position_changes
     WHERE chain_id = {chain:UInt32} AND block_number > {to:UInt64}`,
    { chain: chainId, to },
  );
  if (keys.length === 0) return { restored: 0, deleted: 0 };
  await ch.command(
    'analytics.positions.rewind.delete',
    'DELETE FROM alpha_position_changes WHERE chain_id = {chain:UInt32} AND block_number > {to:UInt64}',
    { chain: chainId, to },
  );
  const restored: PositionState[] = [];
  const wallets = [...new Set(keys.map(([w]) => w))].sort();
  for (let i = 0; i < wallets.length; i += CHUNK) {
    const part = wallets.slice(i, i + CHUNK);
    const rows = await ch.read<StateRow>(
      'analytics.positions.rewind.restore',
      `SELECT wallet, token_id, s.1, s.2, s.3, s.4, s.5, s.6, s.7, s.8, fills,
         if(fills = 0, NULL, toUnixTimestamp64Milli(first_fill)), if(fills = 0, NULL, toUnixTimestamp64Milli(last_fill)),
         toUnixTimestamp64Milli(s.9), s.10, first_block, toUnixTimestamp64Milli(first_at), s.11, s.12, s.13, s.14,
         toUnixTimestamp64Milli(s.15)
       FROM (
         SELECT wallet, token_id,
           argMax(tuple(condition_id, outcome_index, shares, avg_price, realized_pnl, total_bought,
             total_bought_usd, net_fees, opened_at, open_realized_pnl, block_number, log_index, batch_index,
             block_hash, block_time), (block_number, log_index, batch_index)) AS s,
           countIf(fill = 1) AS fills, minIf(block_time, fill = 1) AS first_fill, maxIf(block_time, fill = 1) AS last_fill,
           min(block_number) AS first_block, min(block_time) AS first_at
         FROM alpha_position_changes
         WHERE chain_id = {chain:UInt32} AND wallet IN {wallets:Array(String)} AND block_number <= {to:UInt64}
         GROUP BY wallet, token_id
       )`,
      { chain: chainId, wallets: part, to },
    );
    for (const r of rows) restored.push(stateOf(r));
  }
  const kept = new Set(restored.map((s) => keyOf(s.wallet, s.tokenId)));
  const touched = new Set(keys.map(([w, t]) => keyOf(w, t)));
  const states = restored.filter((s) => touched.has(keyOf(s.wallet, s.tokenId)));
  const gone = keys
    .filter(([w, t]) => !kept.has(keyOf(w, t)))
    .map(([wallet, tokenId]) => ({ wallet, tokenId }));
  await writePositions(ch, chainId, version, states, gone);
  return { restored: states.length, deleted: gone.length };
}
