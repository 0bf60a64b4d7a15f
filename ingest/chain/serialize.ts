/**
 * Rows → insert bytes, columns in a fixed order (COLUMNS). The hot tables (fills, activity, ERC-1155
 * transfers, collateral, exchange events, blocks) are written as RowBinary by hand-written encoders, one typed
 * write per column (row-binary.ts): amounts are exact integers (numbers up to 2^53, decimal strings
 * above), enums are written as their codes, and the engine parses the bytes with little more than
 * copies. test/chain-row-binary.test.ts proves each encoder against the migrated tables. The other
 * tables (few rows) are JSONCompactEachRow through JSON.stringify, which escapes whatever they hold.
 *
 * Rows are serialized as they arrive into a `RowBatch` (one growable byte buffer per table), so row
 * objects die young and a pending insert holds bytes, not objects.
 */
import type { RawInsertFormat } from '../../core/clickhouse/index.ts';
import { ByteWriter, enum8 } from '../../core/clickhouse/row-binary.ts';
import type { EventTable, U64 } from './types.ts';

type AnyRow = Record<string, unknown>;

const EVENT_KEY = ['chain_id', 'block_number', 'block_hash', 'block_time', 'tx_hash', 'log_index'] as const;

/** Column order of each table as written (a subset order is fine: ClickHouse maps by the column list). */
export const COLUMNS: Record<EventTable | 'alpha_blocks' | 'quarantine', readonly string[]> = {
  // `price` is not written: the engine computes it from usd and shares (021_fill_insert_cost.sql).
  alpha_fills: [
    ...EVENT_KEY,
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
    'fee',
    'fee_asset',
    'builder',
    'metadata',
    'status',
  ],
  alpha_activity: [
    ...EVENT_KEY,
    'type',
    'version',
    'neg_risk',
    'wallet',
    'stakeholder',
    'contract',
    'condition_id',
    'market_id',
    'neg_risk_market_id',
    'index_set',
    'collateral_token',
    'partition',
    'amounts',
    'amount',
    'payout',
    'status',
  ],
  alpha_lifecycle: [
    ...EVENT_KEY,
    'kind',
    'version',
    'neg_risk',
    'contract',
    'condition_id',
    'question_id',
    'market_id',
    'oracle',
    'outcome_slot_count',
    'tokens',
    'payout_numerators',
    'args',
    'status',
  ],
  alpha_oracle: [
    ...EVENT_KEY,
    'kind',
    'contract',
    'neg_risk',
    'question_id',
    'requester',
    'proposer',
    'disputer',
    'identifier',
    'request_timestamp',
    'ancillary_data',
    'price',
    'payouts',
    'args',
    'status',
  ],
  alpha_collateral: [
    ...EVENT_KEY,
    'kind',
    'token',
    'symbol',
    'from_address',
    'to_address',
    'caller',
    'asset',
    'amount',
    'status',
  ],
  alpha_token_transfers: [
    ...EVENT_KEY,
    'batch_index',
    'operator',
    'from_address',
    'to_address',
    'token_id',
    'amount',
    'status',
  ],
  alpha_exchange_events: [
    ...EVENT_KEY,
    'kind',
    'contract',
    'exchange_version',
    'neg_risk',
    'order_hash',
    'account',
    'token_id',
    'amount',
    'args',
    'status',
  ],
  alpha_tokens: [
    'chain_id',
    'token_id',
    'condition_id',
    'outcome_index',
    'complement_token_id',
    'neg_risk',
    'source',
    'block_number',
    'tx_hash',
    'log_index',
  ],
  alpha_neg_risk_markets: [
    'chain_id',
    'market_id',
    'oracle',
    'fee_bips',
    'block_number',
    'tx_hash',
    'log_index',
  ],
  alpha_blocks: ['chain_id', 'number', 'hash', 'parent_hash', 'timestamp'],
  quarantine: ['source', 'kind', 'record_id', 'reason', 'payload'],
};

/** Enum8 codes of the columns the direct lane writes itself (direct-lane.ts). */
export const CODES = {
  status: { pending: 0, confirmed: 1 },
  role: { maker: 1, taker: 2 },
  side: { BUY: 1, SELL: 2 },
  feeAsset: { shares: 1, collateral: 2 },
  collateralKind: { transfer: 1, wrap: 2, unwrap: 3 },
} as const;

const STATUS = enum8('status', CODES.status);
const ROLE = enum8('role', CODES.role);
const SIDE = enum8('side', CODES.side);
const FEE_ASSET = enum8('fee_asset', CODES.feeAsset);
const ACTIVITY_TYPE = enum8('type', { SPLIT: 1, MERGE: 2, REDEEM: 3, CONVERT: 4 });
const COLLATERAL_KIND = enum8('kind', CODES.collateralKind);

/** The event key columns (EVENT_KEY), in order. */
function eventKey(w: ByteWriter, r: AnyRow): void {
  w.u32(r.chain_id as number);
  w.u64(r.block_number as number);
  w.ascii(r.block_hash as string);
  w.dateTime64ms(r.block_time as number);
  w.ascii(r.tx_hash as string);
  w.u32(r.log_index as number);
}

function fillRow(w: ByteWriter, r: AnyRow): void {
  eventKey(w, r);
  w.ascii(r.exchange as string);
  w.u8(r.exchange_version as number);
  w.bool(r.neg_risk as boolean);
  w.ascii(r.order_hash as string);
  w.ascii(r.maker as string);
  w.ascii(r.taker as string);
  ROLE(w, r.role);
  SIDE(w, r.side);
  w.ascii(r.token_id as string);
  w.ascii(r.condition_id as string);
  w.i8(r.outcome_index as number);
  w.u64(r.maker_amount as U64);
  w.u64(r.taker_amount as U64);
  w.u64(r.shares as U64);
  w.u64(r.usd as U64);
  w.u64(r.fee as U64);
  FEE_ASSET(w, r.fee_asset);
  w.ascii(r.builder as string);
  w.ascii(r.metadata as string);
  STATUS(w, r.status);
}

function activityRow(w: ByteWriter, r: AnyRow): void {
  eventKey(w, r);
  ACTIVITY_TYPE(w, r.type);
  w.u8(r.version as number);
  w.bool(r.neg_risk as boolean);
  w.ascii(r.wallet as string);
  w.ascii(r.stakeholder as string);
  w.ascii(r.contract as string);
  w.nullableAscii(r.condition_id as string | null);
  w.nullableAscii(r.market_id as string | null);
  w.nullableAscii(r.neg_risk_market_id as string | null);
  w.nullableAscii(r.index_set as string | null);
  w.ascii(r.collateral_token as string);
  w.asciiArray(r.partition as string[]);
  w.u64Array(r.amounts as U64[]);
  w.u64(r.amount as U64);
  w.u64(r.payout as U64);
  STATUS(w, r.status);
}

function tokenTransferRow(w: ByteWriter, r: AnyRow): void {
  eventKey(w, r);
  w.u32(r.batch_index as number);
  w.ascii(r.operator as string);
  w.ascii(r.from_address as string);
  w.ascii(r.to_address as string);
  w.ascii(r.token_id as string);
  w.u64(r.amount as U64);
  STATUS(w, r.status);
}

function collateralRow(w: ByteWriter, r: AnyRow): void {
  eventKey(w, r);
  COLLATERAL_KIND(w, r.kind);
  w.ascii(r.token as string);
  w.str(r.symbol as string);
  w.ascii(r.from_address as string);
  w.ascii(r.to_address as string);
  w.ascii(r.caller as string);
  w.ascii(r.asset as string);
  w.u64(r.amount as U64);
  STATUS(w, r.status);
}

function exchangeEventRow(w: ByteWriter, r: AnyRow): void {
  eventKey(w, r);
  w.str(r.kind as string);
  w.ascii(r.contract as string);
  w.u8(r.exchange_version as number);
  w.bool(r.neg_risk as boolean);
  w.ascii(r.order_hash as string);
  w.ascii(r.account as string);
  w.ascii(r.token_id as string);
  w.u64(r.amount as U64);
  w.str(r.args as string);
  STATUS(w, r.status);
}

function blockRow(w: ByteWriter, r: AnyRow): void {
  w.u32(r.chain_id as number);
  w.u64(r.number as number);
  w.ascii(r.hash as string);
  w.ascii(r.parent_hash as string);
  w.dateTime64ms(r.timestamp as number);
}

/** RowBinary encoders of the hot tables: every COLUMNS entry, in order, as its column's type. */
const BINARY: Partial<Record<string, (w: ByteWriter, r: AnyRow) => void>> = {
  alpha_fills: fillRow,
  alpha_activity: activityRow,
  alpha_token_transfers: tokenTransferRow,
  alpha_collateral: collateralRow,
  alpha_exchange_events: exchangeEventRow,
  alpha_blocks: blockRow,
};

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
