/**
 * Rows → insert bytes, columns in each table's described order (COLUMNS, from schemas/tables/
 * alpha-chain.ts). The hot tables (fills, activity, ERC-1155 transfers, collateral, exchange events,
 * blocks) are written as RowBinary by encoders compiled from their descriptions, one typed write per
 * column (core/clickhouse/table.ts, row-binary.ts): amounts are exact integers (numbers up to 2^53, decimal strings
 * above), enums are written as their codes, and the engine parses the bytes with little more than
 * copies. test/chain-row-binary.test.ts proves each encoder against the migrated tables. The other
 * tables (few rows) are JSONCompactEachRow through JSON.stringify, which escapes whatever they hold.
 *
 * Rows are serialized as they arrive into a `RowBatch` (one growable byte buffer per table), so row
 * objects die young and a pending insert holds bytes, not objects.
 */
import type { RawInsertFormat } from '../../../../core/clickhouse/index.ts';
import { ByteWriter } from '../../../../core/clickhouse/row-binary.ts';
import { insertColumns, rowBinaryEncoder, type TableDescription } from '../../../../core/clickhouse/table.ts';
import {
  ALPHA_ACTIVITY,
  ALPHA_BLOCKS,
  ALPHA_CHAIN_TABLES,
  ALPHA_COLLATERAL,
  ALPHA_EXCHANGE_EVENTS,
  ALPHA_FILLS,
  ALPHA_TOKEN_TRANSFERS,
} from '../../../../schemas/tables/alpha-chain.ts';
import type { EventTable } from './rows.ts';

type AnyRow = Record<string, unknown>;

type WrittenTable = EventTable | 'alpha_blocks' | 'quarantine';

/**
 * The tables the chain pipeline writes (their descriptions: schemas/tables/alpha-chain.ts); progress
 * (alpha_checkpoints) goes through the writer's own statements, alpha_fill_hashes through a view.
 */
const { alpha_checkpoints: _progress, alpha_fill_hashes: _view, ...WRITTEN } = ALPHA_CHAIN_TABLES;
WRITTEN satisfies Record<WrittenTable, TableDescription>;

/**
 * Column order of each table as written: its description's written columns (alpha_fills' `price` is
 * computed by the engine, 021_fill_insert_cost.sql).
 */
export const COLUMNS = Object.fromEntries(
  Object.entries(WRITTEN).map(([name, t]) => [name, insertColumns(t)]),
) as Record<WrittenTable, readonly string[]>;

/** RowBinary encoders of the hot tables, compiled from their descriptions. */
const BINARY: Partial<Record<string, (w: ByteWriter, r: AnyRow) => void>> = Object.fromEntries(
  (
    [
      ALPHA_FILLS,
      ALPHA_ACTIVITY,
      ALPHA_TOKEN_TRANSFERS,
      ALPHA_COLLATERAL,
      ALPHA_EXCHANGE_EVENTS,
      ALPHA_BLOCKS,
    ] as TableDescription[]
  ).map((t) => [t.name, rowBinaryEncoder(t) as (w: ByteWriter, r: AnyRow) => void]),
);

export type SerializedTable = keyof typeof COLUMNS;

/** The insert format of `table`'s bytes. */
export function formatOf(table: SerializedTable): RawInsertFormat {
  return BINARY[table] ? 'RowBinary' : 'JSONCompactEachRow';
}

/** One row of a JSONCompactEachRow table as its line. */
function jsonLine(table: SerializedTable, row: object): string {
  const cols = COLUMNS[table];
  const r = row as AnyRow;
  const values = new Array(cols.length);
  for (let i = 0; i < cols.length; i++) values[i] = r[cols[i]!];
  return `${JSON.stringify(values)}\n`;
}

/** `rows` as insert bytes of `formatOf(table)` (tests and small callers; the writer appends to a RowBatch). */
export function serializeRows(table: SerializedTable, rows: readonly object[]): Buffer {
  const batch = new RowBatch(table, 1024);
  for (const r of rows) batch.append(r);
  return batch.take().body;
}

/**
 * The serialized rows of one table, growing as rows are appended: RowBinary for the hot tables, UTF-8
 * JSON lines for the rest. `take` hands the bytes over and starts a new buffer, so bytes handed to an
 * insert are never written again.
 */
export class RowBatch {
  rows = 0;
  private readonly bytes: ByteWriter;
  private readonly binary: ((w: ByteWriter, r: AnyRow) => void) | undefined;
  /** JSON lines not yet copied into `bytes`: one write per ~64 KiB instead of one per row. */
  private pending = '';
  constructor(
    readonly table: SerializedTable,
    initialBytes = 1 << 20,
  ) {
    this.bytes = new ByteWriter(initialBytes);
    this.binary = BINARY[table];
  }

  append(row: object): void {
    this.rows++;
    if (this.binary) {
      this.binary(this.bytes, row as AnyRow);
      return;
    }
    this.pending += jsonLine(this.table, row);
    if (this.pending.length >= 65_536) this.copyPending();
  }

  /**
   * The RowBinary writer of a hot table, for a row written column by column by its caller (the direct
   * lane); `rowWritten` counts it once complete.
   */
  get binaryWriter(): ByteWriter | undefined {
    return this.binary ? this.bytes : undefined;
  }

  rowWritten(): void {
    this.rows++;
  }

  /** `rows` rows already serialized in this table's format (a page worker's batch). */
  appendSerialized(rows: number, body: Uint8Array): void {
    this.copyPending();
    this.bytes.bytes(body);
    this.rows += rows;
  }

  private copyPending(): void {
    if (this.pending === '') return;
    this.bytes.raw(this.pending);
    this.pending = '';
  }

  /** Gives back a body `take` returned once it is inserted (ByteWriter.recycle). */
  recycle(body: Buffer): void {
    this.bytes.recycle(body);
  }

  /** The bytes written so far; the batch is empty afterwards. */
  take(): { rows: number; body: Buffer } {
    this.copyPending();
    const out = { rows: this.rows, body: this.bytes.take() };
    this.rows = 0;
    return out;
  }
}
