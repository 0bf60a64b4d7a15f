/**
 * The tables a chain's ingestion writes, as its venue declares them (ingest/venues/<code>/chain/): the
 * writer, the backfill range job and the follower work from this description alone, so none of them
 * names a venue's table.
 */
import type { RawInsertFormat } from '../../core/clickhouse/index.ts';
import { insertColumns, type TableDescription } from '../../core/clickhouse/table.ts';

export interface ChainTables<T extends string = string> {
  /** The venue's code: statement labels are `<venue>.insert.<table>`, `<venue>.delete.<table>`, … */
  venue: string;
  /** Tables whose rows are keyed by block (`block_number`), deleted and rewritten by block range. */
  events: { readonly [K in T]: TableDescription };
  /** Event tables the reference pass owns for its range (range jobs leave them alone). */
  reference: readonly T[];
  /** Event tables with a `status` column (pending until the finality depth, then confirmed). */
  status: readonly T[];
  /** Tables written as RowBinary (encoders compiled from their descriptions); the rest as JSON lines. */
  binary: ReadonlySet<string>;
  /** One row per block a page had logs in: chain_id, number, hash, parent_hash, timestamp. */
  blocks: TableDescription;
  /** Records that could not be mapped, with their reason (one table shared by every source). */
  quarantine: TableDescription;
}

/** The chain's source in the progress store (core/watermarks.ts): `<venue>-chain`. */
export function chainSource(t: Pick<ChainTables, 'venue'>): string {
  return `${t.venue}-chain`;
}

/** The event tables of `t`, in their declared order. */
export function eventTables<T extends string>(t: ChainTables<T>): T[] {
  return Object.keys(t.events) as T[];
}

/** Event tables a range job rewrites: all but the reference pass's. */
export function rangeTables<T extends string>(t: ChainTables<T>): T[] {
  return eventTables(t).filter((name) => !t.reference.includes(name));
}

/** Every table the writer batches rows for, by name: the event tables, blocks and quarantine. */
export function writtenTables(t: ChainTables): Map<string, TableDescription> {
  const out = new Map<string, TableDescription>();
  for (const [name, d] of Object.entries<TableDescription>(t.events)) out.set(name, d);
  out.set(t.blocks.name, t.blocks);
  out.set(t.quarantine.name, t.quarantine);
  return out;
}

/** The insert format of a written table's bytes. */
export function formatOf(t: ChainTables, table: string): RawInsertFormat {
  return t.binary.has(table) ? 'RowBinary' : 'JSONCompactEachRow';
}

/** The column list of a written table's inserts (its description's written columns, in order). */
export function columnsOf(t: ChainTables, table: string): readonly string[] {
  const d = writtenTables(t).get(table);
  if (!d) throw new Error(`${table} is not a table of venue ${t.venue}'s chain`);
  return insertColumns(d);
}
