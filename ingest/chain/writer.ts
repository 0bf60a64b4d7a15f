/**
 * Writes alpha rows to ClickHouse. Inserts are batched per table and bounded: at most `maxInFlight`
 * inserts run at once and `add` waits while that many are running (the pipeline's producer blocks
 * instead of buffering without limit). Ranges are made idempotent by `deleteRange` (delete what a range
 * held, then insert it again); checkpoints (number and hash) are written by the caller only after
 * `flush` returned, i.e. after the data they cover.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { ChainTip } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';
import { COLUMNS, formatOf, RowBatch, type SerializedTable } from '../venues/alpha/chain/serialize.ts';
import type { BlockHeader } from './types.ts';
import { type DirectSink, EVENT_TABLES, type EventTable, type QuarantineRow, type RowSet, type RowSink, STATUS_TABLES } from '../venues/alpha/chain/rows.ts';

export interface ChainWriterOptions {
  /** Where rows are inserted; optional only with `send`. */
  clickhouse?: ClickHouse;
  /**
   * Takes each batch instead of a ClickHouse insert (a page worker hands its batches to the main
   * thread, page-worker.ts); the returned promise holds the batch's slot like an insert would.
   */
  send?: (table: SerializedTable, rows: number, body: Buffer) => Promise<void>;
  log: Logger;
  chainId: number;
  /** Rows per insert. */
  batchRows?: number;
  /** Inserts running at once. */
  maxInFlight?: number;
  /**
   * Called once the rows an insert, a range delete or a confirmation changed are visible, and with the
   * follower's new tip by `markTip` (core/data-version.ts: the API's cache invalidation). A failure
   * fails the write, so the caller retries it and the bump with it.
   */
  onDataChanged?: (tip?: ChainTip) => Promise<void>;
}

export interface Checkpoint {
  pipeline: string;
  blockNumber: number;
  blockHash: string;
}

export interface ChainWriter {
  /** Buffers rows; inserts full batches, waiting while `maxInFlight` inserts run. */
  add(rows: RowSet): Promise<void>;
  /**
   * A sink that serializes each row into its table's batch as it is pushed (rows of `skip` are dropped;
   * with `collect`, every row kept is also pushed there). A full batch is inserted at once when a slot
   * is free; call `drainFull` after a page to insert the rest, waiting for slots (backpressure).
   */
  /**
   * A sink for one mapping call. Its `accepted` counts the rows pushed through it (skipped tables
   * excluded): concurrent range jobs share one writer, so the writer's own count moves with theirs too.
   */
  sink(options?: { skip?: readonly EventTable[]; collect?: RowSet }): RowSink & { readonly accepted: number };
  /** Inserts every full batch, waiting while `maxInFlight` inserts run. */
  drainFull(): Promise<void>;
  /**
   * Adds rows already serialized in `formatOf(table)` (a page worker's batch): inserted as they are
   * when they fill a batch alone, else appended to the table's batch. Waits for a free slot like `add`.
   */
  addSerialized(table: SerializedTable, rows: number, body: Uint8Array): Promise<void>;
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
  /** Reports the follower's new tip (after its checkpoint) to `onDataChanged`. */
  markTip(tip: ChainTip): Promise<void>;
  readCheckpoint(pipeline: string): Promise<Checkpoint | undefined>;
  /** Rows inserted since creation, by table. */
  readonly written: Record<string, number>;
  /** Milliseconds producers spent waiting for a free insert slot (backpressure), since creation. */
  readonly waitedMs: number;
}

/**
 * A batch never holds two rows with one natural key (a log is mapped once; ranges are rewritten by
 * delete-then-insert), so the Replacing engines' collapse of equal keys inside each inserted block is
 * skipped: ~25 % less engine time per alpha_fills insert. Merges still collapse duplicates.
 */
const INSERT_SETTINGS = { optimize_on_insert: 0 };

export function createChainWriter(o: ChainWriterOptions): ChainWriter {
  const db = (): ClickHouse => {
    if (!o.clickhouse) throw new Error('This chain writer only hands batches over (no ClickHouse client)');
    return o.clickhouse;
  };
  const batchRows = o.batchRows ?? 15_000;
  const maxInFlight = o.maxInFlight ?? 2;
  // Rows are serialized as they arrive: a buffered or in-flight batch holds bytes, not row objects.
  const makeBatches = () => {
    const out = {} as Record<SerializedTable, RowBatch>;
    for (const t of Object.keys(COLUMNS) as SerializedTable[]) out[t] = new RowBatch(t);
    return out;
  };
  let batches = makeBatches();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const written: Record<string, number> = {};
  // Checkpoints are read with argMax(updated_at): keep the timestamps strictly increasing.
  let lastCheckpointAt = 0;

  function launch(table: SerializedTable): void {
    const batch = batches[table];
    const { rows, body } = batch.take();
    // Once inserted, the body's buffer holds a later batch of the table (not after a failure: a retry
    // of the caller's may still be reading it).
    launchBody(table, rows, body, () => batch.recycle(body));
  }

  function launchBody(table: SerializedTable, rows: number, body: Buffer, done?: () => void): void {
    written[table] = (written[table] ?? 0) + rows;
    const p = (
      o.send
        ? o.send(table, rows, body)
        : db().insertRaw(
            `alpha.insert.${table}`,
            table,
            formatOf(table),
            COLUMNS[table],
            body,
            INSERT_SETTINGS,
          )
    )
      .then(async () => {
        done?.();
        if (!o.send) await o.onDataChanged?.();
      })
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

  /** Inserts the table's batch when it is full (`all`: whenever it holds rows). */
  async function drain(table: SerializedTable, all: boolean): Promise<void> {
    const n = batches[table].rows;
    if (n === 0 || (!all && n < batchRows)) return;
    await waitForSlot();
    launch(table);
  }

  async function append(table: SerializedTable, rows: Iterable<object>): Promise<void> {
    const batch = batches[table];
    for (const r of rows) {
      batch.append(r);
      if (batch.rows >= batchRows) await drain(table, false);
    }
  }

  /** Sync append: a full batch goes out now when a slot is free, else at the next drain. */
  function push(table: SerializedTable, row: object): void {
    const batch = batches[table];
    batch.append(row);
    if (batch.rows >= batchRows && inFlight.size < maxInFlight && !failure) launch(table);
  }

  return {
    written,
    sink(options = {}) {
      const skip = new Set(options.skip ?? []);
      const collect = options.collect as Record<EventTable, object[]> | undefined;
      let count = 0;
      const out = {} as Record<EventTable, { push(row: object): void }>;
      for (const t of EVENT_TABLES) {
        out[t] = skip.has(t)
          ? { push: () => {} }
          : collect
            ? {
                push: (row) => {
                  count++;
                  push(t, row);
                  collect[t].push(row);
                },
              }
            : {
                push: (row) => {
                  count++;
                  push(t, row);
                },
              };
      }
      Object.defineProperty(out, 'accepted', { get: () => count, enumerable: false });
      // Rows written column by column into a batch (the direct lane); not while rows are collected.
      if (!collect) {
        const direct: DirectSink = {
          writer: (t) => (skip.has(t) ? undefined : batches[t].binaryWriter),
          written: (t) => {
            count++;
            const batch = batches[t];
            batch.rowWritten();
            if (batch.rows >= batchRows && inFlight.size < maxInFlight && !failure) launch(t);
          },
        };
        Object.defineProperty(out, 'direct', { value: direct, enumerable: false });
      }
      return out as unknown as RowSink & { readonly accepted: number };
    },
    async drainFull() {
      for (const t of Object.keys(batches) as SerializedTable[]) await drain(t, false);
      if (failure) throw failure;
    },
    get waitedMs() {
      return waitedMs;
    },
    async addSerialized(table, rows, body) {
      if (rows === 0) return;
      const batch = batches[table];
      const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      if (batch.rows === 0 && rows >= batchRows) {
        await waitForSlot();
        launchBody(table, rows, bytes);
        return;
      }
      batch.appendSerialized(rows, bytes);
      if (batch.rows >= batchRows) await drain(table, false);
    },
    async add(rows) {
      for (const t of EVENT_TABLES) {
        const src = rows[t] as object[];
        if (src.length > 0) await append(t, src);
      }
    },
    async addBlocks(headers) {
      const rows: object[] = [];
      for (const h of headers) {
        rows.push({
          chain_id: o.chainId,
          number: h.number,
          hash: h.hash,
          parent_hash: h.parentHash,
          timestamp: h.timestampMs,
        });
      }
      await append('alpha_blocks', rows);
    },
    async addQuarantine(rows) {
      if (rows.length > 0) await append('quarantine', rows);
    },
    async flush() {
      for (const t of EVENT_TABLES) await drain(t, true);
      await drain('alpha_blocks', true);
      await drain('quarantine', true);
      await Promise.all(inFlight);
      if (failure) {
        const err = failure;
        failure = undefined;
        batches = makeBatches();
        throw err;
      }
    },
    async deleteRange(from, to, tables = EVENT_TABLES, includeBlocks = true) {
      const params = { chain: o.chainId, from, to: to ?? Number.MAX_SAFE_INTEGER };
      for (const t of tables) {
        await db().command(
          `alpha.delete.${t}`,
          `DELETE FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}`,
          params,
        );
      }
      if (includeBlocks) {
        await db().command(
          'alpha.delete.alpha_blocks',
          'DELETE FROM alpha_blocks WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64}',
          params,
        );
      }
      await o.onDataChanged?.();
    },
    async hasRows(from, to, tables = EVENT_TABLES) {
      const union = [
        ...tables.map(
          (t) =>
            `SELECT 1 FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1`,
        ),
        'SELECT 1 FROM alpha_blocks WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1',
      ].join(' UNION ALL ');
      const rows = await db().query('alpha.has_rows', `SELECT count() AS n FROM (${union})`, {
        chain: o.chainId,
        from,
        to,
      });
      return Number((rows[0] as { n: string }).n) > 0;
    },
    async confirmUpTo(block, tables = STATUS_TABLES) {
      for (const t of tables) {
        await db().command(
          `alpha.confirm.${t}`,
          `ALTER TABLE ${t} UPDATE status = 'confirmed' WHERE chain_id = {chain:UInt32} AND block_number <= {block:UInt64} AND status = 'pending' SETTINGS mutations_sync = 1`,
          { chain: o.chainId, block },
        );
      }
      await o.onDataChanged?.();
    },
    async markTip(tip) {
      await o.onDataChanged?.(tip);
    },
    async writeCheckpoint(cp) {
      lastCheckpointAt = Math.max(Date.now(), lastCheckpointAt + 1);
      await db().insert('alpha.checkpoint', 'alpha_checkpoints', [
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
      const rows = await db().query<{ block_number: string; block_hash: string }>(
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
