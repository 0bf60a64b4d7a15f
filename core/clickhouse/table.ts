/**
 * Tables described once. A `TableDescription` lists a table's columns in the table's own order, each with
 * its ClickHouse type and how a row's value is written; from it derive:
 * - the row type (`RowOf<typeof T>`), so no module restates a table's columns as an interface;
 * - the insert column list (`insertColumns`: the written columns, in order) and the encoders of both
 *   insert formats: RowBinary (`rowBinaryEncoder`, compiled once per table into straight-line code, as fast
 *   as a hand-written encoder) and JSONCompactEachRow (`jsonLine`);
 * - the RowBinary decoder (`rowBinaryDecoder`): a row written column by column, read back as the row
 *   object ingestion would have built (its values in the row type's shapes);
 * - the column lists of reads (`columnList`: names checked against the description at compile time).
 * A test migrates a fresh database and compares every description with `DESCRIBE TABLE`.
 *
 * Column kinds:
 *   hex    String holding ASCII only (0x-hex values, decimal ids): written without UTF-8 encoding
 *   text   String of any UTF-8          lowText  LowCardinality(String)
 *   time   DateTime64(3, 'UTC'), written from Unix ms    seconds  DateTime('UTC'), from Unix s
 *   enum8  Enum8 of the given codes, written as the code
 */
import { ByteReader, ByteWriter, enum8, type U64 } from './row-binary.ts';

interface ColumnBase<Ch extends string, Ts, Rd = Ts> {
  /** The ClickHouse type as `DESCRIBE TABLE` prints it. */
  readonly ch: Ch;
  /** ByteWriter method that writes the value (enum8: written through `codes`). */
  readonly write: string;
  /** False for a column the engine computes (a DEFAULT expression): never sent on insert. */
  readonly written: boolean;
  /** Phantom: the TypeScript type of the value in a row as ingestion builds it. */
  readonly ts?: Ts;
  /**
   * Phantom: the type of the value as a read returns it (JSONCompactEachRow with 64-bit integers
   * quoted: UInt64 as a decimal string, DateTime64 as its text).
   */
  readonly rd?: Rd;
  readonly codes?: Readonly<Record<string, number>>;
}

export type Column = ColumnBase<string, unknown, unknown>;

const col = <Ch extends string, Ts, Rd = Ts>(ch: Ch, write: string) =>
  ({ ch, write, written: true }) as ColumnBase<Ch, Ts, Rd>;

/** The column kinds of every described table. */
export const c = {
  u8: <T extends number = number>() => col<'UInt8', T>('UInt8', 'u8'),
  u32: col<'UInt32', number>('UInt32', 'u32'),
  u64: col<'UInt64', U64, string>('UInt64', 'u64'),
  /** A block number or other UInt64 that is always a safe integer in ingestion. */
  u64n: col<'UInt64', number, string>('UInt64', 'u64'),
  i8: col<'Int8', number>('Int8', 'i8'),
  f64: col<'Float64', number>('Float64', 'f64'),
  nullableF64: col<'Nullable(Float64)', number | null>('Nullable(Float64)', 'nullableF64'),
  f64Array: col<'Array(Float64)', number[]>('Array(Float64)', 'f64Array'),
  /** A signed amount in base units (a number when safe, else its decimal string). */
  i64: col<'Int64', number | string, string>('Int64', 'i64'),
  bool: col<'Bool', boolean>('Bool', 'bool'),
  hex: <T extends string = string>() => col<'String', T>('String', 'ascii'),
  text: col<'String', string>('String', 'str'),
  lowText: <T extends string = string>() => col<'LowCardinality(String)', T>('LowCardinality(String)', 'str'),
  time: col<"DateTime64(3, 'UTC')", number, string>("DateTime64(3, 'UTC')", 'dateTime64ms'),
  /** DateTime('UTC') in whole seconds (a bucket start), written from Unix seconds. */
  seconds: col<"DateTime('UTC')", number, string>("DateTime('UTC')", 'u32'),
  nullableTime: col<"Nullable(DateTime64(3, 'UTC'))", number | null, string | null>(
    "Nullable(DateTime64(3, 'UTC'))",
    'nullableDateTime64ms',
  ),
  nullableU64: col<'Nullable(UInt64)', number | null, string | null>('Nullable(UInt64)', 'nullableU64'),
  nullableHex: col<'Nullable(String)', string | null>('Nullable(String)', 'nullableAscii'),
  nullableText: col<'Nullable(String)', string | null>('Nullable(String)', 'nullableStr'),
  hexArray: col<'Array(String)', string[]>('Array(String)', 'asciiArray'),
  u64Array: col<'Array(UInt64)', U64[], string[]>('Array(UInt64)', 'u64Array'),
  enum8<const Codes extends Record<string, number>>(codes: Codes) {
    const ch = `Enum8(${Object.entries(codes)
      .map(([k, v]) => `'${k}' = ${v}`)
      .join(', ')})`;
    return { ch, write: 'enum8', written: true, codes } as ColumnBase<string, keyof Codes & string>;
  },
  /** A column the engine computes from others (its DEFAULT): part of the table, never inserted. */
  computed<K extends Column>(kind: K): K & { readonly written: false } {
    return { ...kind, written: false };
  },
};

type ValueOf<C> = C extends ColumnBase<string, infer Ts, unknown> ? Ts : never;
type ReadOf<C> = C extends ColumnBase<string, unknown, infer Rd> ? Rd : never;

export interface TableDescription<Cols extends Record<string, Column> = Record<string, Column>> {
  readonly name: string;
  readonly columns: Cols;
}

type Written<C> = C extends { written: false } ? never : C;

/**
 * The row type of a described table, with ingestion's value types: every written column, and the
 * computed ones (which an insert never sends) as optional.
 */
export type RowOf<T extends TableDescription> = {
  [K in keyof T['columns'] as T['columns'][K] extends Written<T['columns'][K]> ? K : never]: ValueOf<
    T['columns'][K]
  >;
} & {
  [K in keyof T['columns'] as T['columns'][K] extends Written<T['columns'][K]> ? never : K]?: ValueOf<
    T['columns'][K]
  >;
};

/** The written columns' names of a described table. */
export type ColumnName<T extends TableDescription> = keyof T['columns'] & string;

export function defineTable<const Cols extends Record<string, Column>>(
  name: string,
  columns: Cols,
): TableDescription<Cols> {
  return { name, columns };
}

/** The columns an insert sends, in the table's order (computed columns left out). */
export function insertColumns(t: TableDescription): readonly string[] {
  return Object.entries(t.columns)
    .filter(([, k]) => k.written)
    .map(([n]) => n);
}

/** `name type` of every column, in order: what `DESCRIBE TABLE` must print. */
export function describeColumns(t: TableDescription): { name: string; type: string }[] {
  return Object.entries(t.columns).map(([name, k]) => ({ name, type: k.ch }));
}

/** A SELECT expression that is not a plain column, with the type a read returns for it. */
export interface Expression<R> {
  readonly sql: string;
  /** Phantom: the read type. */
  readonly rd?: R;
  /** The expression under a field name of the row a read returns (the SQL itself is not aliased). */
  as<const N extends string>(name: N): Named<N, R>;
}

/** A SELECT expression under the field name it gets in a read's row. */
export interface Named<N extends string, R> {
  readonly name: N;
  readonly sql: string;
  /** Phantom: the read type. */
  readonly rd?: R;
}

export const expression = <R>(sql: string): Expression<R> => ({
  sql,
  as: (name) => ({ name, sql }),
});

/** What a read selects of a described table: its columns by name, or named typed expressions. */
export type Selected<T extends TableDescription> = ColumnName<T> | Named<string, unknown>;

type FieldName<I> = I extends Named<infer N, unknown> ? N : I & string;
type FieldType<T extends TableDescription, I> =
  I extends Named<string, infer R> ? R : I extends ColumnName<T> ? ReadOf<T['columns'][I]> : never;

/**
 * The row a read of `S` returns: an object with one field per selected column (its name) or named
 * expression, each value typed from the table's description (JSONCompactEachRow's values: UInt64 as a
 * decimal string, DateTime64 as its text), so a query module never restates a table's columns.
 */
export type ReadRow<T extends TableDescription, S extends readonly Selected<T>[]> = {
  -readonly [I in S[number] as FieldName<I>]: FieldType<T, I>;
};

/** The read row type of a selection. */
export type RowOfSelection<S> = S extends Selection<infer Row> ? Row : never;

/**
 * A read's SELECT list and how its rows are named: `sql` is the list as written (no aliases added, so
 * the statement is exactly the one a positional read would send), `zip` turns one JSONCompactEachRow
 * array into the named row (compiled once into an object literal, one shape for every row).
 */
export interface Selection<Row> {
  /** The SELECT expressions, in order. */
  readonly columns: readonly string[];
  /** The row's field names, in the same order. */
  readonly names: readonly string[];
  /** `columns` joined for a SELECT. */
  readonly sql: string;
  zip(values: readonly unknown[]): Row;
}

function selection<Row>(columns: readonly string[], names: readonly string[], what: string): Selection<Row> {
  if (new Set(names).size !== names.length)
    throw new Error(`${what}: field names repeat (${names.join(', ')})`);
  const body = names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ');
  const zip = new Function('v', `return { ${body} };`) as (values: readonly unknown[]) => Row;
  return { columns, names, sql: columns.join(', '), zip };
}

/** A typed selection of `t`'s columns (names checked at compile time and at load) and named expressions. */
export function select<T extends TableDescription, const S extends readonly Selected<T>[]>(
  t: T,
  items: S,
): Selection<ReadRow<T, S>> {
  const columns = items.map((item) => {
    if (typeof item !== 'string') return item.sql;
    if (!Object.hasOwn(t.columns, item)) throw new Error(`${t.name} has no column ${item}`);
    return item;
  });
  const names = items.map((item) => (typeof item === 'string' ? item : item.name));
  return selection(columns, names, t.name);
}

/**
 * A typed selection that is not one table's columns (aggregates, joins, constants): each field an
 * expression with its read type, in the object's order. A field typed from a described table's column
 * uses `columnOf(T, name)`.
 */
export function fields<const F extends Record<string, Expression<unknown>>>(
  f: F,
): Selection<{ -readonly [K in keyof F]: F[K] extends Expression<infer R> ? R : never }> {
  return selection(
    Object.values(f).map((e) => e.sql),
    Object.keys(f),
    'fields',
  );
}

/** A column of a described table as an expression of its read type (for `fields`). */
export function columnOf<T extends TableDescription, const K extends ColumnName<T>>(
  t: T,
  name: K,
  sql: string = name,
): Expression<ReadOf<T['columns'][K]>> {
  if (!Object.hasOwn(t.columns, name)) throw new Error(`${t.name} has no column ${name}`);
  return expression(sql);
}

/** Identifiers of columns and tables come from code: plain names only. */
const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * A RowBinary encoder of `t`'s rows: each written column in order, as its kind says. Compiled once into
 * straight-line code (`w.u32(r.chain_id); w.u64(r.block_number); ...`) so property reads and writer
 * calls are monomorphic, as in a hand-written encoder; names come from the description, never from data.
 */
export function rowBinaryEncoder<T extends TableDescription>(t: T): (w: ByteWriter, row: RowOf<T>) => void {
  const enums: ((w: ByteWriter, v: unknown) => void)[] = [];
  const lines: string[] = [];
  for (const [name, kind] of Object.entries(t.columns)) {
    if (!kind.written) continue;
    if (!IDENT.test(name)) throw new Error(`Not a plain column name: ${name}`);
    if (kind.write === 'enum8') {
      enums.push(enum8(name, kind.codes!));
      lines.push(`e[${enums.length - 1}](w, r.${name});`);
    } else {
      if (!(kind.write in ByteWriter.prototype)) throw new Error(`No ByteWriter.${kind.write} for ${name}`);
      lines.push(`w.${kind.write}(r.${name});`);
    }
  }
  const compile = new Function('e', `return function encode_${t.name}(w, r) {\n${lines.join('\n')}\n};`);
  return compile(enums) as (w: ByteWriter, row: RowOf<T>) => void;
}

/**
 * A RowBinary decoder of `t`'s rows, the counterpart of `rowBinaryEncoder`: reads one row's written
 * columns in order and returns the row object, each value in its row type's shape (UInt64 amounts as
 * numbers up to 2^53 - 1 and decimal strings above, DateTime64 as Unix ms, enums by name, Nullable as
 * null). A computed column is not in the bytes: it is left out, unless `computed` gives the value
 * ingestion puts in the row (from the columns read before it).
 */
export function rowBinaryDecoder<T extends TableDescription>(
  t: T,
  computed: Partial<Record<string, (row: Record<string, unknown>) => unknown>> = {},
): (r: ByteReader) => RowOf<T> {
  const steps: [string, (r: ByteReader, row: Record<string, unknown>) => unknown][] = [];
  for (const [name, kind] of Object.entries(t.columns)) {
    if (!kind.written) {
      const value = computed[name];
      if (value) steps.push([name, (_r, row) => value(row)]);
      continue;
    }
    if (kind.write === 'enum8') {
      const names = new Map(Object.entries(kind.codes!).map(([k, v]) => [v, k]));
      steps.push([
        name,
        (r) => {
          const code = r.i8();
          const value = names.get(code);
          if (value === undefined)
            throw new RangeError(`${t.name}.${name}: code ${code} is not one of its enum's`);
          return value;
        },
      ]);
      continue;
    }
    const read = (
      ByteReader.prototype as unknown as Record<string, ((this: ByteReader) => unknown) | undefined>
    )[kind.write];
    if (typeof read !== 'function') throw new Error(`No ByteReader.${kind.write} for ${name}`);
    steps.push([name, (r) => read.call(r)]);
  }
  return (r) => {
    const row: Record<string, unknown> = {};
    for (const [name, step] of steps) row[name] = step(r, row);
    return row as RowOf<T>;
  };
}

/** One row of `t` as a JSONCompactEachRow line (written columns in order; JSON escapes every value). */
export function jsonLineEncoder<T extends TableDescription>(t: T): (row: RowOf<T>) => string {
  const names = insertColumns(t);
  return (row) => {
    const r = row as Record<string, unknown>;
    const values = new Array(names.length);
    for (let i = 0; i < names.length; i++) values[i] = r[names[i]!];
    return `${JSON.stringify(values)}\n`;
  };
}
