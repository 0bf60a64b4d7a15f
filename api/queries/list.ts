/**
 * The one list helper: every cursor-paginated list endpoint is a `ListSpec` (table, columns, keyset,
 * filters, row mapper) served by `listHandler`. Per request it does, in this order:
 *   `offset` ≠ 0 → 400; each filter's parse rule in declaration order (the 400s SPEC names); the filters
 *   digest (normalized filters + sort, DESIGN.md §5); the cursor (signed, bound to the digest: 400
 *   otherwise); filters resolved through in-process seams (an unknown slug: empty page, no query); ONE
 *   ClickHouse read of `limit + 1` rows after the cursor in keyset order (exact `has_more`); the rows
 *   mapped to resources; the next cursor from the last row kept.
 * Values only ever travel as bound parameters; the SQL is fixed text from the spec and its filters.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { filtersDigest, paginate, rejectOffset, type SortKey } from '../pagination.ts';
import { type Condition, type Filter, NO_ROWS, type Query } from './filters.ts';

/**
 * A column of the keyset (the sort key a cursor carries). UInt64 travels as a decimal string (exact
 * beyond 2^53), UInt32 as a JSON number: the token format of pagination keys depends on it.
 */
export interface KeyColumn {
  column: string;
  type: 'UInt64' | 'UInt32';
}

export interface ListSpec<Row extends unknown[], Item, Field extends string, Env = undefined> {
  /** The route's name in the filters digest (e.g. `alpha.trades`); the query label is `api.<name>`. */
  name: string;
  table: string;
  /** SELECT expressions; each row arrives as an array in this order (`ClickHouse.read`). */
  columns: readonly string[];
  /** Sort key, most significant first; each column must appear as is in `columns`. */
  keyset: readonly KeyColumn[];
  /** Parsed, digested and applied in this order (the first broken rule answers). */
  filters: readonly Filter<unknown>[];
  /** Page size when `limit` is absent. */
  defaultLimit: number;
  /** The response's array field (`trades`, `activity`, ...). */
  field: Field;
  /** Per-app state the mapper reads (in-process maps), made once when the route is registered. */
  setup?(scope: FastifyInstance, ctx: RouteContext): Env;
  /**
   * The page's rows → resources: in-process lookups only (at most one seam call per page, none per row).
   * A mapping that could not complete a row from what the process knows yet (an in-process map that has
   * not caught up) sets `page.provisional`: the answer is served but not kept by the response cache, whose
   * key (the data versions) would not change when the map catches up.
   */
  toItems(rows: Row[], env: Env, ctx: RouteContext, page: PageMapping): Item[] | Promise<Item[]>;
}

export interface PageMapping {
  provisional: boolean;
}

export interface PageInfo {
  limit: number;
  count: number;
  pagination_key: string | null;
  has_more: boolean;
}

export type ListPage<Field extends string, Item> = { [K in Field]: Item[] } & { pagination: PageInfo };

/** Conditions joined by AND; a name bound twice must carry the same value. */
export function createWhere() {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  return {
    params,
    add(c: Condition) {
      for (const [k, v] of Object.entries(c.params)) {
        if (k in params && params[k] !== v) throw new Error(`Query parameter ${k} is bound twice`);
        params[k] = v;
      }
      parts.push(c.sql);
    },
    sql(): string {
      return parts.length === 0 ? '' : `WHERE ${parts.map((p) => `(${p})`).join(' AND ')}`;
    },
  };
}

export type Where = ReturnType<typeof createWhere>;

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

/** A row's sort key as a cursor carries it. */
export function keyOf(keyset: readonly KeyColumn[], values: readonly unknown[]): SortKey {
  return keyset.map((k, i) => (k.type === 'UInt64' ? String(values[i]) : Number(values[i])));
}

/**
 * The keyset condition after a cursor's key, in the feed's direction: an OR of plain comparisons
 * (`a < x OR (a = x AND b < y)`) so the primary key and projections can use it. A key of the wrong
 * shape is a 400.
 */
export function afterKey(keyset: readonly KeyColumn[], key: SortKey, order: 'asc' | 'desc'): Condition {
  if (key.length !== keyset.length) throw invalidKey();
  const params: Record<string, unknown> = {};
  const placeholders = keyset.map((k, i) => {
    const v = key[i];
    const ok =
      k.type === 'UInt64'
        ? typeof v === 'string' && /^\d{1,20}$/.test(v)
        : typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
    if (!ok) throw invalidKey();
    params[`cursor_${i}`] = v;
    return `{cursor_${i}:${k.type}}`;
  });
  const op = order === 'desc' ? '<' : '>';
  const terms = keyset.map((k, i) => {
    const eq = keyset.slice(0, i).map((p, j) => `${p.column} = ${placeholders[j]}`);
    const cmp = `${k.column} ${op} ${placeholders[i]}`;
    return eq.length === 0 ? cmp : `(${[...eq, cmp].join(' AND ')})`;
  });
  return { sql: terms.join(' OR '), params };
}

/** The SELECT of one page: filters, keyset condition, keyset order, `limit + 1` rows. */
export function pageSql(
  spec: Pick<ListSpec<never, never, string, never>, 'table' | 'columns' | 'keyset'>,
  where: Where,
  order: 'asc' | 'desc',
): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  return `SELECT ${spec.columns.join(', ')} FROM ${spec.table} ${where.sql()}
     ORDER BY ${spec.keyset.map((k) => `${k.column} ${dir}`).join(', ')}
     LIMIT {page_rows:UInt32}`;
}

/**
 * The request handler of a list endpoint: the route file passes its spec and nothing else. `setup` runs
 * once, here, when the route is registered.
 */
export function listHandler<Row extends unknown[], Item, Field extends string, Env>(
  scope: FastifyInstance,
  ctx: RouteContext,
  spec: ListSpec<Row, Item, Field, Env>,
): (request: FastifyRequest) => Promise<ListPage<Field, Item>> {
  const env = spec.setup?.(scope, ctx) as Env;
  const keyAt = spec.keyset.map((k) => {
    const i = spec.columns.indexOf(k.column);
    if (i < 0) throw new Error(`${spec.name}: keyset column ${k.column} is not selected`);
    return i;
  });
  const label = `api.${spec.name}`;
  const { filters } = spec;
  const names = filters.map((f) => f.name);
  if (new Set([...names, 'order']).size !== names.length + 1) {
    throw new Error(`${spec.name}: filter names must be distinct and not "order" (${names.join(', ')})`);
  }
  const page = (items: Item[], pagination: PageInfo) =>
    ({ [spec.field]: items, pagination }) as ListPage<Field, Item>;

  return async (request) => {
    const q = request.query as Query;
    rejectOffset(q.offset as number | undefined);
    const values = filters.map((f) => f.parse(q));
    const forced = filters.find((f, i) => f.order && values[i] !== undefined)?.order;
    const order = forced ?? (q.order === 'asc' ? 'asc' : 'desc');
    const limit = (q.limit as number | undefined) ?? spec.defaultLimit;
    const digested: Record<string, unknown> = { order };
    filters.forEach((f, i) => {
      // A filter that forces the order (`after`) enters the digest only when given: the cursors of
      // requests without it stay those issued before the filter existed.
      if (f.order && values[i] === undefined) return;
      digested[f.name] = values[i] ?? null;
    });
    const digest = filtersDigest(spec.name, digested);
    const token = q.pagination_key as string | undefined;
    const cursor = token ? ctx.cursors.decode(token, digest) : undefined;

    const where = createWhere();
    for (let i = 0; i < filters.length; i++) {
      const f = filters[i]!;
      const v = values[i];
      if (v === undefined) continue;
      const c = f.resolve ? await f.resolve(v, ctx) : f.where?.(v);
      if (c === NO_ROWS) return page([], { limit, count: 0, pagination_key: null, has_more: false });
      if (c) where.add(c);
    }
    if (cursor) where.add(afterKey(spec.keyset, cursor, order));
    const rows = await ctx.deps.clickhouse.read<Row>(label, pageSql(spec, where, order), {
      ...where.params,
      page_rows: limit + 1,
    });
    const cut = paginate(rows, limit, (last) =>
      ctx.cursors.encode(
        digest,
        keyOf(
          spec.keyset,
          keyAt.map((i) => last[i]),
        ),
      ),
    );
    const mapping: PageMapping = { provisional: false };
    const items = await spec.toItems(cut.items, env, ctx, mapping);
    if (mapping.provisional) request.cacheKey = null;
    return page(items, cut.pagination);
  };
}
