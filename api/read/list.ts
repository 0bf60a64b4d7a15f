/**
 * The declarative feed: a `ListSpec` (table, typed selection, fixed keyset, filters, row mapping) served
 * by `listHandler`. Per request it does, in this order:
 *   `offset` ≠ 0 → 400; each filter's parse rule in declaration order (the 400s SPEC names); the filters
 *   digest (normalized filters + sort, DESIGN.md §5); the cursor (signed, bound to the digest: 400
 *   otherwise); filters resolved through in-process seams (an unknown slug: empty page, no query); ONE
 *   ClickHouse read of `limit + 1` rows after the cursor in keyset order (the keyset engine,
 *   api/read/keyset.ts); the page's lookups; each row mapped by `toItem`; the next cursor from the last
 *   row kept.
 * Values only ever travel as bound parameters; the SQL is fixed text from the spec and its filters.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Selection } from '../../core/clickhouse/table.ts';
import type { RouteContext } from '../context.ts';
import { filtersDigest, type PageInfo, rejectOffset } from '../pagination.ts';
import { type Filter, NO_ROWS, type Query } from '../queries/filters.ts';
import { fixedOrder, type KeyColumn, tablePage } from './keyset.ts';
import { createWhere } from './where.ts';

export interface ListSpec<Row, Item, Field extends string, Env = undefined, Lookups = undefined> {
  /** The route's name in the filters digest (e.g. `alpha.trades`); the query label is `api.<name>`. */
  name: string;
  table: string;
  /** What a row reads (core/clickhouse/table.ts `select`): named, typed from the table's description. */
  select: Selection<Row>;
  /** Sort key, most significant first, in the request's `order`. */
  keyset: readonly KeyColumn[];
  /** Parsed, digested and applied in this order (the first broken rule answers). */
  filters: readonly Filter<unknown>[];
  /** Page size when `limit` is absent. */
  defaultLimit: number;
  /** The response's array field (`trades`, `activity`, ...). */
  field: Field;
  /** Per-app state the mapping reads (in-process maps), made once when the route is registered. */
  setup?(scope: FastifyInstance, ctx: RouteContext): Env;
  /**
   * What the page's rows need besides themselves (in-process lookups only: at most one seam call per page,
   * none per row). A lookup that could not complete a row from what the process knows yet (an in-process
   * map that has not caught up) sets `page.provisional`: the answer is served but not kept by the response
   * cache, whose key (the data versions) would not change when the map catches up.
   */
  lookups?(rows: readonly Row[], env: Env, ctx: RouteContext, page: PageMapping): Lookups | Promise<Lookups>;
  /** One row → its resource (pure: the stream maps its rows with it too, api/stream/channels.ts). */
  toItem(row: Row, lookups: Lookups): Item;
}

export interface PageMapping {
  provisional: boolean;
}

export type ListPage<Field extends string, Item> = { [K in Field]: Item[] } & { pagination: PageInfo };

/**
 * The request handler of a list endpoint: the route passes its spec and nothing else. `setup` runs once,
 * here, when the route is registered.
 */
export function listHandler<Row, Item, Field extends string, Env, Lookups>(
  scope: FastifyInstance,
  ctx: RouteContext,
  spec: ListSpec<Row, Item, Field, Env, Lookups>,
): (request: FastifyRequest) => Promise<ListPage<Field, Item>> {
  const env = spec.setup?.(scope, ctx) as Env;
  for (const k of spec.keyset) {
    if (!spec.select.columns.includes(k.column))
      throw new Error(`${spec.name}: keyset column ${k.column} is not selected`);
  }
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
    // The cursor is checked before any seam is asked (a forged key is a 400 even for an unknown slug).
    const key = token ? ctx.cursors.decode(token, digest) : undefined;

    const where = createWhere();
    for (let i = 0; i < filters.length; i++) {
      const f = filters[i]!;
      const v = values[i];
      if (v === undefined) continue;
      const c = f.resolve ? await f.resolve(v, ctx) : f.where?.(v);
      if (c === NO_ROWS) return page([], { limit, count: 0, pagination_key: null, has_more: false });
      if (c) where.add(c);
    }
    const { rows, pagination } = await tablePage(ctx, {
      label,
      table: spec.table,
      select: spec.select,
      keys: fixedOrder(spec.keyset, order),
      where,
      digest,
      token,
      key,
      limit,
    });
    const mapping: PageMapping = { provisional: false };
    const lookups = (await spec.lookups?.(rows, env, ctx, mapping)) as Lookups;
    const items = rows.map((r) => spec.toItem(r, lookups));
    if (mapping.provisional) request.cacheKey = null;
    return page(items, pagination);
  };
}
