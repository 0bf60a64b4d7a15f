/**
 * Rows → insert bytes, columns in a fixed order (COLUMNS). The hot tables (fills, ERC-1155 transfers,
 * collateral, exchange events, blocks) are written as TabSeparated lines by hand-written templates: every string value
 * there is a lowercase hex, decimal or enum literal produced by the decoders (no tab, newline or
 * backslash can occur), amounts are exact integers (numbers up to 2^53, decimal strings above), and
 * TSV is both the cheapest text to build and the cheapest for the engine to parse. The other tables
 * (few rows) are JSONCompactEachRow through JSON.stringify, which escapes whatever they hold.
 *
 * Rows are serialized as they arrive into a `RowBatch` (one growable byte buffer per table), so row
 * objects die young and a pending insert holds bytes, not objects.
 */
import type { RawInsertFormat } from '../../core/clickhouse.ts';
import type { EventTable } from './types.ts';

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

/** DateTime64(3) text: seconds with a 3-digit fraction (unambiguous whatever the magnitude). */
function time3(ms: number): string {
  const frac = ms % 1000;
  return `${(ms - frac) / 1000}.${frac < 10 ? `00${frac}` : frac < 100 ? `0${frac}` : frac}`;
}

function fillLine(r: AnyRow): string {
  return `${r.chain_id}\t${r.block_number}\t${r.block_hash}\t${time3(r.block_time as number)}\t${r.tx_hash}\t${r.log_index}\t${r.exchange}\t${r.exchange_version}\t${r.neg_risk}\t${r.order_hash}\t${r.maker}\t${r.taker}\t${r.role}\t${r.side}\t${r.token_id}\t${r.condition_id}\t${r.outcome_index}\t${r.maker_amount}\t${r.taker_amount}\t${r.shares}\t${r.usd}\t${r.fee}\t${r.fee_asset}\t${r.builder}\t${r.metadata}\t${r.status}\n`;
}

function tokenTransferLine(r: AnyRow): string {
  return `${r.chain_id}\t${r.block_number}\t${r.block_hash}\t${time3(r.block_time as number)}\t${r.tx_hash}\t${r.log_index}\t${r.batch_index}\t${r.operator}\t${r.from_address}\t${r.to_address}\t${r.token_id}\t${r.amount}\t${r.status}\n`;
}

function collateralLine(r: AnyRow): string {
  return `${r.chain_id}\t${r.block_number}\t${r.block_hash}\t${time3(r.block_time as number)}\t${r.tx_hash}\t${r.log_index}\t${r.kind}\t${r.token}\t${tsvString(r.symbol)}\t${r.from_address}\t${r.to_address}\t${r.caller}\t${r.asset}\t${r.amount}\t${r.status}\n`;
}

/** `args` is JSON (escaped for TSV); every other value is a hex, decimal or enum literal. */
function exchangeEventLine(r: AnyRow): string {
  return `${r.chain_id}\t${r.block_number}\t${r.block_hash}\t${time3(r.block_time as number)}\t${r.tx_hash}\t${r.log_index}\t${r.kind}\t${r.contract}\t${r.exchange_version}\t${r.neg_risk}\t${r.order_hash}\t${r.account}\t${r.token_id}\t${r.amount}\t${tsvString(r.args)}\t${r.status}\n`;
}

function blockLine(r: AnyRow): string {
  return `${r.chain_id}\t${r.number}\t${r.hash}\t${r.parent_hash}\t${time3(r.timestamp as number)}\n`;
}

/** A free-text value (a configured token label) in TSV: backslash, tab and newline escaped. */
export function tsvString(v: unknown): string {
  const s = String(v);
  return /[\\\t\n\r]/.test(s)
    ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : s;
}

const TSV: Partial<Record<string, (r: AnyRow) => string>> = {
  alpha_fills: fillLine,
  alpha_token_transfers: tokenTransferLine,
  alpha_collateral: collateralLine,
  alpha_exchange_events: exchangeEventLine,
  alpha_blocks: blockLine,
};

export type SerializedTable = keyof typeof COLUMNS;

/** The insert format of `table`'s bytes. */
export function formatOf(table: SerializedTable): RawInsertFormat {
  return TSV[table] ? 'TabSeparated' : 'JSONCompactEachRow';
}

/** One row as a line of `formatOf(table)`. */
export function rowLine(table: SerializedTable, row: object): string {
  const fast = TSV[table];
  if (fast) return fast(row as AnyRow);
  const cols = COLUMNS[table];
  const r = row as AnyRow;
  const values = new Array(cols.length);
  for (let i = 0; i < cols.length; i++) values[i] = r[cols[i]!];
  return `${JSON.stringify(values)}\n`;
}

/** Lines of `rows` (tests and small callers; the writer appends row by row to a RowBatch). */
export function serializeRows(table: SerializedTable, rows: readonly object[]): string {
  let out = '';
  for (const r of rows) out += rowLine(table, r);
  return out;
}

/**
 * A growable byte buffer of serialized rows of one table. Lines are UTF-8 (JSON may hold any text;
 * the TSV templates are ASCII). `take` hands the bytes over and starts a new buffer, so bytes handed
 * to an insert are never written again.
 */
const EMPTY = Buffer.alloc(0);

export class RowBatch {
  rows = 0;
  private buf: Buffer;
  private used = 0;
  /** Lines not yet copied into `buf`: one write per ~64 KiB instead of one per row. */
  private pending = '';
  /** Size of the last batch handed over: the next buffer starts there (no regrowth, no idle memory). */
  private lastBytes = 0;
  constructor(
    readonly table: SerializedTable,
    private readonly initialBytes = 1 << 20,
  ) {
    this.buf = EMPTY;
  }

  append(row: object): void {
    this.pending += rowLine(this.table, row);
    this.rows++;
    if (this.pending.length >= 65_536) this.copyPending();
  }

  private copyPending(): void {
    const text = this.pending;
    this.pending = '';
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    const worst = text.length * 3;
    if (this.used + worst > this.buf.length) {
      const grown = this.used === 0 ? Math.max(this.initialBytes, this.lastBytes + (this.lastBytes >> 3)) : 0;
      const next = Buffer.allocUnsafe(
        Math.max(grown, this.buf.length + (this.buf.length >> 1), this.used + worst),
      );
      this.buf.copy(next, 0, 0, this.used);
      this.buf = next;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /** The bytes written so far; the batch is empty afterwards. */
  take(): { rows: number; body: Uint8Array } {
    this.copyPending();
    const out = { rows: this.rows, body: this.buf.subarray(0, this.used) };
    this.lastBytes = this.used;
    this.buf = EMPTY;
    this.used = 0;
    this.rows = 0;
    return out;
  }
}
