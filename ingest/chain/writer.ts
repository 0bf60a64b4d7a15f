/**
 * Writes alpha rows to ClickHouse. Inserts are batched per table and bounded: at most `maxInFlight`
 * inserts run at once and `add` waits while that many are running (the pipeline's producer blocks
 * instead of buffering without limit). Ranges are made idempotent by `deleteRange` (delete what a range
 * held, then insert it again); checkpoints (number and hash) are written by the caller only after
 * `flush` returned, i.e. after the data they cover.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouse } from '../../core/clickhouse.ts';
import { ClickHouseQueryError, isRetryable } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { COLUMNS, compactLines } from './serialize.ts';
import {
  type BlockHeader,
  EVENT_TABLES,
  type EventTable,
  emptyRowSet,
  type QuarantineRow,
  type RowSet,
  STATUS_TABLES,
} from './types.ts';

type RawInsert = (params: {
  table: string;
  values: Buffer;
  format: 'JSONCompactEachRow';
  columns: readonly string[];
}) => Promise<unknown>;

export interface ChainWriterOptions {
  clickhouse: ClickHouse;
  log: Logger;
  chainId: number;
  /** Rows per insert. */
  batchRows?: number;
  /** Inserts running at once. */
  maxInFlight?: number;
}

export interface Checkpoint {
  pipeline: string;
  blockNumber: number;
  blockHash: string;
}

export interface ChainWriter {
  /** Buffers rows; inserts full batches, waiting while `maxInFlight` inserts run. */
  add(rows: RowSet): Promise<void>;
  addBlocks(headers: Iterable<BlockHeader>): Promise<void>;
  addQuarantine(rows: QuarantineRow[]): Promise<void>;
  /** Inserts everything buffered and waits for every insert to finish. */
  flush(): Promise<void>;
  /**
   * Deletes the rows of blocks [from, to] (to omitted: everything from `from` up) in the alpha tables
   * (`tables`, default all event tables) and alpha_blocks.
   */
  deleteRange(
    from: number,
    to?: number,
    tables?: readonly EventTable[],
    includeBlocks?: boolean,
  ): Promise<void>;
  /** True when any of `tables` (default all event tables) or alpha_blocks holds rows in [from, to]. */
  hasRows(from: number, to: number, tables?: readonly EventTable[]): Promise<boolean>;
  /** Marks pending rows at or below `block` confirmed (in `tables`, default every table with a status). */
  confirmUpTo(block: number, tables?: readonly EventTable[]): Promise<void>;
  writeCheckpoint(cp: Checkpoint): Promise<void>;
  readCheckpoint(pipeline: string): Promise<Checkpoint | undefined>;
  /** Rows inserted since creation, by table. */
  readonly written: Record<string, number>;
  /** Milliseconds producers spent waiting for a free insert slot (backpressure), since creation. */
  readonly waitedMs: number;
}

export function createChainWriter(o: ChainWriterOptions): ChainWriter {
  const ch = o.clickhouse;
  const batchRows = o.batchRows ?? 20_000;
  const maxInFlight = o.maxInFlight ?? 2;
  const buffers = emptyRowSet();
  let blocks: { chain_id: number; number: number; hash: string; parent_hash: string; timestamp: number }[] =
    [];
  let quarantine: QuarantineRow[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const written: Record<string, number> = {};
  // Checkpoints are read with argMax(updated_at): keep the timestamps strictly increasing.
  let lastCheckpointAt = 0;

  /**
   * The embedded engine's raw insert (chdb's documented `connection.chdb.rawInsert`): the payload goes
   * to the engine as bytes and its parser does the work, instead of the query-text path the
   * @clickhouse/client connection uses (several times slower for big batches). Server mode, or a
   * connection without it, uses the wrapper's JSONEachRow insert.
   */
  const raw = ch.embedded
    ? ((ch.client as unknown as { connection?: { chdb?: { rawInsert?: RawInsert } } }).connection?.chdb
        ?.rawInsert ?? undefined)
    : undefined;

  async function rawInsert(table: keyof typeof COLUMNS, rows: object[]): Promise<void> {
    const values = Buffer.from(compactLines(table, rows));
    for (let attempt = 1; ; attempt++) {
      try {
        await raw!({ table, values, format: 'JSONCompactEachRow', columns: COLUMNS[table] });
        return;
      } catch (err) {
        const typed = new ClickHouseQueryError(`alpha.insert.${table}`, err);
        if (!isRetryable(err) || attempt >= 4) throw typed;
        await sleep(Math.min(4000, 100 * 2 ** attempt) * (0.5 + Math.random()));
      }
    }
  }

  function launch(table: keyof typeof COLUMNS, rows: object[]): void {
    written[table] = (written[table] ?? 0) + rows.length;
    const p = (raw ? rawInsert(table, rows) : ch.insert(`alpha.insert.${table}`, table, rows))
      .catch((err) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  let waitedMs = 0;
  async function waitForSlot(): Promise<void> {
    if (inFlight.size >= maxInFlight) {
      const t = performance.now();
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      waitedMs += performance.now() - t;
    }
    if (failure) throw failure;
  }

  async function drain(table: EventTable | 'alpha_blocks' | 'quarantine', all: boolean): Promise<void> {
    for (;;) {
      const buf: object[] =
        table === 'alpha_blocks'
          ? blocks
          : table === 'quarantine'
            ? quarantine
            : (buffers[table] as object[]);
      if (buf.length === 0 || (!all && buf.length < batchRows)) return;
      await waitForSlot();
      const chunk = buf.splice(0, batchRows);
      launch(table, chunk);
    }
  }

  return {
    written,
    get waitedMs() {
      return waitedMs;
    },
    async add(rows) {
      for (const t of EVENT_TABLES) {
        const src = rows[t] as object[];
        if (src.length === 0) continue;
        const dst = buffers[t] as object[];
        for (const r of src) dst.push(r);
        await drain(t, false);
      }
    },
    async addBlocks(headers) {
      for (const h of headers) {
        blocks.push({
          chain_id: o.chainId,
          number: h.number,
          hash: h.hash,
          parent_hash: h.parentHash,
          timestamp: h.timestampMs,
        });
      }
      await drain('alpha_blocks', false);
    },
    async addQuarantine(rows) {
      if (rows.length === 0) return;
      for (const r of rows) quarantine.push(r);
      await drain('quarantine', false);
    },
    async flush() {
      for (const t of EVENT_TABLES) await drain(t, true);
      await drain('alpha_blocks', true);
      await drain('quarantine', true);
      await Promise.all(inFlight);
      if (failure) {
        const err = failure;
        failure = undefined;
        for (const t of EVENT_TABLES) buffers[t].length = 0;
        blocks = [];
        quarantine = [];
        throw err;
      }
    },
    async deleteRange(from, to, tables = EVENT_TABLES, includeBlocks = true) {
      const params = { chain: o.chainId, from, to: to ?? Number.MAX_SAFE_INTEGER };
      for (const t of tables) {
        await ch.command(
          `alpha.delete.${t}`,
          `DELETE FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}`,
          params,
        );
      }
      if (!includeBlocks) return;
      await ch.command(
        'alpha.delete.alpha_blocks',
        'DELETE FROM alpha_blocks WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64}',
        params,
      );
    },
    async hasRows(from, to, tables = EVENT_TABLES) {
      const union = [
        ...tables.map(
          (t) =>
            `SELECT 1 FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1`,
        ),
        'SELECT 1 FROM alpha_blocks WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1',
      ].join(' UNION ALL ');
      const rows = await ch.query('alpha.has_rows', `SELECT count() AS n FROM (${union})`, {
        chain: o.chainId,
        from,
        to,
      });
      return Number((rows[0] as { n: string }).n) > 0;
    },
    async confirmUpTo(block, tables = STATUS_TABLES) {
      for (const t of tables) {
        await ch.command(
          `alpha.confirm.${t}`,
          `ALTER TABLE ${t} UPDATE status = 'confirmed' WHERE chain_id = {chain:UInt32} AND block_number <= {block:UInt64} AND status = 'pending' SETTINGS mutations_sync = 1`,
          { chain: o.chainId, block },
        );
      }
    },
    async writeCheckpoint(cp) {
      lastCheckpointAt = Math.max(Date.now(), lastCheckpointAt + 1);
      await ch.insert('alpha.checkpoint', 'alpha_checkpoints', [
        {
          chain_id: o.chainId,
          pipeline: cp.pipeline,
          block_number: cp.blockNumber,
          block_hash: cp.blockHash,
          updated_at: lastCheckpointAt,
        },
      ]);
    },
    async readCheckpoint(pipeline) {
      const rows = await ch.query<{ block_number: string; block_hash: string }>(
        'alpha.checkpoint.read',
        `SELECT argMax(block_number, updated_at) AS block_number, argMax(block_hash, updated_at) AS block_hash
         FROM alpha_checkpoints WHERE chain_id = {chain:UInt32} AND pipeline = {pipeline:String}
         GROUP BY pipeline`,
        { chain: o.chainId, pipeline },
      );
      const r = rows[0];
      return r ? { pipeline, blockNumber: Number(r.block_number), blockHash: r.block_hash } : undefined;
    },
  };
}
