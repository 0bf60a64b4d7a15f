/**
 * Writes a chain's rows to ClickHouse, for the tables its venue declares (ChainTables, tables.ts).
 * Inserts are batched per table and bounded: at most `maxInFlight` inserts run at once and producers
 * wait while that many are running (the pipeline's producer blocks instead of buffering without
 * limit). Ranges are made idempotent by `deleteRange` (delete what a range held, then insert it again).
 *
 * Progress is recorded in one place, `commit`: a mark of the progress store (core/watermarks.ts, source
 * `<venue>-chain`) whose write is the flush of every buffered row and the wait for every insert, so a
 * mark is never visible before the data of the blocks it covers (backfill range jobs and the follower
 * alike; a crash leaves at most rows above the mark, which the next attempt deletes).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { ByteWriter } from '../../core/clickhouse/row-binary.ts';
import { insertColumns } from '../../core/clickhouse/table.ts';
import type { ChainTip } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';
import { countEvents, countRowsWritten } from '../../core/ops/ingest-counts.ts';
import { type BlockSpan, createWatermarks, type Watermarks } from '../../core/watermarks.ts';
import { RowBatch } from './serialize.ts';
import { type ChainTables, chainSource, eventTables, formatOf, writtenTables } from './tables.ts';
import type { BlockHeader, QuarantineRow } from './types.ts';

export interface ChainWriterOptions<T extends string> {
  /** The venue's tables. */
  tables: ChainTables<T>;
  /** Where rows are inserted; optional only with `send`. */
  clickhouse?: ClickHouse;
  /**
   * Takes each batch instead of a ClickHouse insert (a page worker hands its batches to the main
   * thread); the returned promise holds the batch's slot like an insert would.
   */
  send?: (table: string, rows: number, body: Buffer) => Promise<void>;
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
  /** The progress store (default: one on `clickhouse`). */
  watermarks?: Watermarks;
}

/** A chain stream's progress: the follower's head ('follow') or a backfill range's ('backfill', `range`). */
export interface ChainMark {
  stream: string;
  range?: BlockSpan;
  blockNumber: number;
  blockHash: string;
}

/**
 * A table's RowBinary writer, for rows written column by column in insert-column order (a venue's
 * byte-level mapper): `writer` is undefined for a table whose rows are dropped; `written` counts a
 * complete row (and starts the insert of a full batch).
 */
export interface DirectSink<T extends string = string> {
  writer(table: T): ByteWriter | undefined;
  written(table: T): void;
}

/** Where mapped rows go, by event table; `direct` takes rows written column by column. */
export type RowSink<T extends string = string> = { readonly [K in T]: { push(row: object): unknown } } & {
  readonly direct?: DirectSink<T>;
};

export interface ChainWriter<T extends string = string> {
  /** Buffers rows; inserts full batches, waiting while `maxInFlight` inserts run. */
  add(rows: { readonly [K in T]?: readonly object[] }): Promise<void>;
  /**
   * A sink for one mapping call, serializing each row into its table's batch as it is pushed or
   * written (rows of `skip` are dropped). A full batch is inserted at once when a slot is free; call
   * `drainFull` after a page to insert the rest, waiting for slots (backpressure). Its `accepted`
   * counts the rows taken (skipped tables excluded): concurrent range jobs share one writer, so the
   * writer's own count moves with theirs too.
   */
  sink(options?: {
    skip?: readonly T[];
  }): RowSink<T> & { readonly direct: DirectSink<T>; readonly accepted: number };
  /** Inserts every full batch, waiting while `maxInFlight` inserts run. */
  drainFull(): Promise<void>;
  /**
   * Adds rows already serialized in the table's format (a page worker's batch): inserted as they are
   * when they fill a batch alone, else appended to the table's batch. Waits for a free slot like `add`.
   */
  addSerialized(table: string, rows: number, body: Uint8Array): Promise<void>;
  addBlocks(headers: Iterable<BlockHeader>): Promise<void>;
  addQuarantine(rows: readonly QuarantineRow[]): Promise<void>;
  /** Inserts everything buffered and waits for every insert to finish. */
  flush(): Promise<void>;
  /**
   * Deletes the rows of blocks [from, to] (to omitted: everything from `from` up) in `tables` (default
   * every event table) and, unless `includeBlocks` is false, the blocks table.
   */
  deleteRange(from: number, to?: number, tables?: readonly T[], includeBlocks?: boolean): Promise<void>;
  /** True when any of `tables` (default every event table) or the blocks table holds rows in [from, to]. */
  hasRows(from: number, to: number, tables?: readonly T[]): Promise<boolean>;
  /** Marks pending rows at or below `block` confirmed (in `tables`, default every table with a status). */
  confirmUpTo(block: number, tables?: readonly T[]): Promise<void>;
  /** The chain's source in the progress store: `<venue>-chain`. */
  readonly source: string;
  /**
   * Records a stream's progress: flushes every buffered row and waits for every insert, then commits
   * the mark (data before mark, whoever calls).
   */
  commit(mark: ChainMark): Promise<void>;
  /** A stream's mark (a range's, with `range`). */
  readMark(stream: string, range?: BlockSpan): Promise<ChainMark | undefined>;
  /** Deletes a stream's marks (one range's, with `range`): it starts over. */
  forgetMark(stream: string, range?: BlockSpan): Promise<void>;
  /** Reports the follower's new tip (after its mark) to `onDataChanged`. */
  markTip(tip: ChainTip): Promise<void>;
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

export function createChainWriter<T extends string>(o: ChainWriterOptions<T>): ChainWriter<T> {
  const tables = o.tables;
  const venue = tables.venue;
  const events = eventTables(tables);
  const described = writtenTables(tables);
  const blocksTable = tables.blocks.name;
  const columns = new Map([...described].map(([name, d]) => [name, insertColumns(d)]));
  const db = (): ClickHouse => {
    if (!o.clickhouse) throw new Error('This chain writer only hands batches over (no ClickHouse client)');
    return o.clickhouse;
  };
  const batchRows = o.batchRows ?? 15_000;
  const maxInFlight = o.maxInFlight ?? 2;
  // Rows are serialized as they arrive: a buffered or in-flight batch holds bytes, not row objects.
  const makeBatches = () => {
    const out = new Map<string, RowBatch>();
    for (const [name, d] of described) out.set(name, new RowBatch(d, formatOf(tables, name)));
    return out;
  };
  let batches = makeBatches();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const written: Record<string, number> = {};
  const source = chainSource(tables);
  let marks = o.watermarks;
  const store = (): Watermarks => {
    marks ??= createWatermarks(db());
    return marks;
  };

  // The ingest counters (core/ops/ingest-counts.ts): rows once inserted (a page worker's batches are
  // counted by the writer that inserts them); event tables also as events of `<venue>-chain`.
  const eventSet = new Set<string>(events);
  function countInserted(table: string, rows: number): void {
    countRowsWritten(table, rows);
    if (eventSet.has(table)) countEvents(`${venue}-chain`, table.replace(`${venue}_`, ''), rows);
  }

  function launch(table: string): void {
    const batch = batches.get(table)!;
    const { rows, body } = batch.take();
    // Once inserted, the body's buffer holds a later batch of the table (not after a failure: a retry
    // of the caller's may still be reading it).
    launchBody(table, rows, body, () => batch.recycle(body));
  }

  function launchBody(table: string, rows: number, body: Buffer, done?: () => void): void {
    written[table] = (written[table] ?? 0) + rows;
    const p = (
      o.send
        ? o.send(table, rows, body)
        : db().insertRaw(
            `${venue}.insert.${table}`,
            table,
            formatOf(tables, table),
            columns.get(table)!,
            body,
            INSERT_SETTINGS,
          )
    )
      .then(async () => {
        done?.();
        if (!o.send) {
          countInserted(table, rows);
          await o.onDataChanged?.();
        }
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
  async function drain(table: string, all: boolean): Promise<void> {
    const n = batches.get(table)!.rows;
    if (n === 0 || (!all && n < batchRows)) return;
    await waitForSlot();
    launch(table);
  }

  async function append(table: string, rows: Iterable<object>): Promise<void> {
    const batch = batches.get(table)!;
    for (const r of rows) {
      batch.append(r);
      if (batch.rows >= batchRows) await drain(table, false);
    }
  }

  /** Sync append: a full batch goes out now when a slot is free, else at the next drain. */
  function push(table: string, row: object): void {
    const batch = batches.get(table)!;
    batch.append(row);
    if (batch.rows >= batchRows && inFlight.size < maxInFlight && !failure) launch(table);
  }

  async function flush(): Promise<void> {
    for (const t of batches.keys()) await drain(t, true);
    await Promise.all(inFlight);
    if (failure) {
      const err = failure;
      failure = undefined;
      batches = makeBatches();
      throw err;
    }
  }

  return {
    written,
    source,
    sink(options = {}) {
      const skip = new Set<string>(options.skip ?? []);
      let count = 0;
      const out: Record<string, { push(row: object): void }> = {};
      for (const t of events) {
        out[t] = skip.has(t)
          ? { push: () => {} }
          : {
              push: (row) => {
                count++;
                push(t, row);
              },
            };
      }
      const direct: DirectSink<T> = {
        writer: (t) => (skip.has(t) ? undefined : batches.get(t)!.binaryWriter),
        written: (t) => {
          count++;
          const batch = batches.get(t)!;
          batch.rowWritten();
          if (batch.rows >= batchRows && inFlight.size < maxInFlight && !failure) launch(t);
        },
      };
      Object.defineProperty(out, 'direct', { value: direct, enumerable: false });
      Object.defineProperty(out, 'accepted', { get: () => count, enumerable: false });
      return out as unknown as RowSink<T> & { readonly direct: DirectSink<T>; readonly accepted: number };
    },
    async drainFull() {
      for (const t of batches.keys()) await drain(t, false);
      if (failure) throw failure;
    },
    get waitedMs() {
      return waitedMs;
    },
    async addSerialized(table, rows, body) {
      if (rows === 0) return;
      const batch = batches.get(table);
      if (!batch) throw new Error(`${table} is not a table of venue ${venue}'s chain`);
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
      for (const t of events) {
        const src = rows[t];
        if (src && src.length > 0) await append(t, src);
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
      await append(blocksTable, rows);
    },
    async addQuarantine(rows) {
      if (rows.length > 0) await append(tables.quarantine.name, rows);
    },
    flush,
    async deleteRange(from, to, which = events, includeBlocks = true) {
      const params = { chain: o.chainId, from, to: to ?? Number.MAX_SAFE_INTEGER };
      for (const t of which) {
        await db().command(
          `${venue}.delete.${t}`,
          `DELETE FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}`,
          params,
        );
      }
      if (includeBlocks) {
        await db().command(
          `${venue}.delete.${blocksTable}`,
          `DELETE FROM ${blocksTable} WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64}`,
          params,
        );
      }
      await o.onDataChanged?.();
    },
    async hasRows(from, to, which = events) {
      const union = [
        ...which.map(
          (t) =>
            `SELECT 1 FROM ${t} WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1`,
        ),
        `SELECT 1 FROM ${blocksTable} WHERE chain_id = {chain:UInt32} AND number BETWEEN {from:UInt64} AND {to:UInt64} LIMIT 1`,
      ].join(' UNION ALL ');
      const rows = await db().query(`${venue}.has_rows`, `SELECT count() AS n FROM (${union})`, {
        chain: o.chainId,
        from,
        to,
      });
      return Number((rows[0] as { n: string }).n) > 0;
    },
    async confirmUpTo(block, which = tables.status) {
      for (const t of which) {
        await db().command(
          `${venue}.confirm.${t}`,
          `ALTER TABLE ${t} UPDATE status = 'confirmed' WHERE chain_id = {chain:UInt32} AND block_number <= {block:UInt64} AND status = 'pending' SETTINGS mutations_sync = 1`,
          { chain: o.chainId, block },
        );
      }
      await o.onDataChanged?.();
    },
    async markTip(tip) {
      await o.onDataChanged?.(tip);
    },
    async commit(mark) {
      await store().commit(
        {
          source,
          stream: mark.stream,
          kind: mark.range ? 'range' : 'head',
          ...(mark.range ? { from: mark.range.from, to: mark.range.to } : {}),
          block: mark.blockNumber,
          hash: mark.blockHash,
        },
        flush,
      );
    },
    async forgetMark(stream, range) {
      await store().forget(source, stream, range);
    },
    async readMark(stream, range) {
      const m = await store().read(source, stream, range);
      if (m?.block === undefined) return undefined;
      return { stream, ...(range ? { range } : {}), blockNumber: m.block, blockHash: m.hash ?? '' };
    },
  };
}
