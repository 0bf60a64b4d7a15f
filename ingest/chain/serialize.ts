/**
 * Rows → insert bytes, columns in their table's described order (core/clickhouse/table.ts). A table
 * written as RowBinary gets an encoder compiled from its description, one typed write per column:
 * amounts are exact integers (numbers up to 2^53, decimal strings above), enums are written as their
 * codes, and the engine parses the bytes with little more than copies. The other tables (few rows) are
 * JSONCompactEachRow through JSON.stringify, which escapes whatever they hold.
 *
 * Rows are serialized as they arrive into a `RowBatch` (one growable byte buffer per table), so row
 * objects die young and a pending insert holds bytes, not objects.
 */
import type { RawInsertFormat } from '../../core/clickhouse/index.ts';
import { ByteWriter } from '../../core/clickhouse/row-binary.ts';
import { jsonLineEncoder, rowBinaryEncoder, type TableDescription } from '../../core/clickhouse/table.ts';

type AnyRow = Record<string, unknown>;

/** Encoders by description, compiled once per process. */
const BINARY = new WeakMap<TableDescription, (w: ByteWriter, r: AnyRow) => void>();
const JSON_LINE = new WeakMap<TableDescription, (r: AnyRow) => string>();

function binaryEncoderOf(t: TableDescription): (w: ByteWriter, r: AnyRow) => void {
  let e = BINARY.get(t);
  if (!e) {
    e = rowBinaryEncoder(t) as (w: ByteWriter, r: AnyRow) => void;
    BINARY.set(t, e);
  }
  return e;
}

function jsonEncoderOf(t: TableDescription): (r: AnyRow) => string {
  let e = JSON_LINE.get(t);
  if (!e) {
    e = jsonLineEncoder(t) as (r: AnyRow) => string;
    JSON_LINE.set(t, e);
  }
  return e;
}

/**
 * The serialized rows of one table, growing as rows are appended, in `format`. `take` hands the bytes
 * over and starts a new buffer, so bytes handed to an insert are never written again.
 */
export class RowBatch {
  rows = 0;
  private readonly bytes: ByteWriter;
  private readonly binary: ((w: ByteWriter, r: AnyRow) => void) | undefined;
  private readonly jsonLine: ((r: AnyRow) => string) | undefined;
  /** JSON lines not yet copied into `bytes`: one write per ~64 KiB instead of one per row. */
  private pending = '';
  constructor(
    readonly table: TableDescription,
    readonly format: RawInsertFormat,
    initialBytes = 1 << 20,
  ) {
    if (format !== 'RowBinary' && format !== 'JSONCompactEachRow')
      throw new Error(`RowBatch writes RowBinary or JSONCompactEachRow, not ${format}`);
    this.bytes = new ByteWriter(initialBytes);
    if (format === 'RowBinary') this.binary = binaryEncoderOf(table);
    else this.jsonLine = jsonEncoderOf(table);
  }

  append(row: object): void {
    this.rows++;
    if (this.binary) {
      this.binary(this.bytes, row as AnyRow);
      return;
    }
    this.pending += this.jsonLine!(row as AnyRow);
    if (this.pending.length >= 65_536) this.copyPending();
  }

  /**
   * The writer of a RowBinary table, for a row written column by column by its caller (a venue's
   * byte-level mapper); `rowWritten` counts it once complete.
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

/** `rows` of `table` as insert bytes of `format` (tests and small callers; the writer appends to a batch). */
export function serializeRows(
  table: TableDescription,
  format: RawInsertFormat,
  rows: readonly object[],
): Buffer {
  const batch = new RowBatch(table, format, 1024);
  for (const r of rows) batch.append(r);
  return batch.take().body;
}
