/**
 * What the stream's channels (channels.ts) share: the event a message becomes, and the reading of a
 * message's row. Rows published as written (pending, or confirmed at once) carry JS values and
 * `block_time` in Unix ms; rows re-read for `confirmed` and `removed` carry ClickHouse's JSON (64-bit
 * integers as strings, `block_time` as text): `messageRow` gives both the shape a REST read returns.
 */
import type { Column, Selection, TableDescription } from '../../core/clickhouse/table.ts';

export type Row = Record<string, unknown>;

/** Where an event sits in the chain: the `after` of a gap message and of REST catch-up. */
export interface Position {
  block_number: number;
  log_index: number;
}

/** A normalized event: its data and the values the subscription indexes match on. */
export interface StreamEvent {
  channel: string;
  status: 'pending' | 'confirmed' | 'removed';
  /** Chain position; null for crypto prices. */
  position: Position | null;
  data: Row;
  /** `data` as JSON, serialized once for every subscription it goes to. */
  json: string;
  /** Filter key → the event's values for it (addresses lowercase, feeds upper case). */
  keys: Record<string, (string | null)[]>;
  /** The platform subscriptions must name (channels with `platform`: crypto_prices). */
  platform?: string;
  /** Unix ms the follower published it at, when it says. */
  publishedAt?: number;
}

export const int = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
export const units = (v: unknown): number => int(v) / 1e6;
export const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
export const nullable = (v: unknown): string | null =>
  v === null || v === undefined || v === '' ? null : String(v);
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

/** Block time in Unix seconds from Unix ms, a Date as JSON, or `YYYY-MM-DD hh:mm:ss.sss` UTC (re-read rows). */
export function unixSeconds(v: unknown): number {
  if (typeof v === 'number') return Math.floor(v / 1000);
  const s = str(v);
  if (/^\d+$/.test(s)) return Math.floor(Number(s) / 1000);
  // `2026-04-26 05:00:00.000` (ClickHouse, UTC) or an ISO string with its zone (a Date as JSON).
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

export function json(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  if (v === '') return null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Lowercase, or null for nothing ('' included): a filter value of an address or hash. */
export const lower = (v: unknown) =>
  v === null || v === undefined || v === '' ? null : String(v).toLowerCase();

/** A message value → the value a REST read of a column of this type returns (JSONCompactEachRow). */
function readerOf(kind: Column): (v: unknown) => unknown {
  switch (kind.ch) {
    case 'UInt64':
    case 'Int64':
      return (v) => (v === null || v === undefined ? '0' : typeof v === 'string' ? v : String(v));
    case 'Nullable(UInt64)':
      return (v) => (v === null || v === undefined ? null : String(v));
    case 'UInt8':
    case 'UInt32':
    case 'Int8':
    case 'Float64':
      return int;
    case 'Bool':
      return bool;
    case 'Array(String)':
    case 'Array(UInt64)':
      return (v) => (Array.isArray(v) ? v.map(String) : []);
    case 'Nullable(String)':
      return (v) => (v === null || v === undefined ? null : String(v));
    default:
      // String, LowCardinality(String), Enum8 (written and read as its name).
      return str;
  }
}

/**
 * A message's row (`data`, either form) → the row a read of `selection` from `table` returns (the REST
 * row): each selected column converted as its described type is read (UInt64 as a decimal string, UInt32
 * as a number, ...); a selected expression is computed from the message's row by `expressions`.
 */
export function messageRow<R>(
  table: TableDescription,
  selection: Selection<R>,
  expressions: Record<string, (r: Row) => unknown> = {},
): (r: Row) => R {
  // Compiled once into one object literal (as Selection.zip): one shape for every row, and each field's
  // read at a site of its own.
  const fns: ((v: unknown) => unknown)[] = [];
  const fields = selection.names.map((name, i) => {
    const key = JSON.stringify(name);
    const computed = expressions[name];
    if (computed) {
      fns.push(computed as (v: unknown) => unknown);
      return `${key}: f[${i}](r)`;
    }
    const kind = table.columns[name];
    if (!kind) throw new Error(`${table.name}: ${name} is neither a column nor a given expression`);
    fns.push(readerOf(kind));
    return `${key}: f[${i}](r[${key}])`;
  });
  return new Function('f', `return (r) => ({ ${fields.join(', ')} });`)(fns) as (r: Row) => R;
}
