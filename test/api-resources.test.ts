/**
 * The resource is the unit of the read side (api/resources/define.ts, docs/contributing.md "An API route"):
 * - every `/v2` route the API serves is a resource with an explicit access rule and an explicit source list
 *   (or a stated reason it is not cached), or a path api/access.ts lists on purpose (retired, not yet served);
 * - every resource defined under api/resources/ is in the list (api/resources/index.ts);
 * - a toy resource added by the recipe — one definition, served through `extraResources` — is served,
 *   access-checked, cached on its sources, and listed in /openapi.json; a toy channel added by the channel
 *   recipe (one entry, `extraChannels`) streams the same rows as the resource's items (its `toItem`) plus
 *   `event_type` and `status`. Real chDB and Redis.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor } from '../api/access.ts';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { ListSpec } from '../api/read/list.ts';
import { defineResource, GATED, type Resource } from '../api/resources/define.ts';
import { RESOURCES } from '../api/resources/index.ts';
import { chainMessage, type StreamChannel } from '../api/stream/channels.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { c, defineTable, type RowOfSelection, select } from '../core/clickhouse/table.ts';
import { createDataVersions } from '../core/data-version.ts';
import { keyedErrorResponses, Pagination } from '../schemas/api/common.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { connect, createStreamTestEnv, startTestStream, until } from './support/stream.ts';

const TOY_ITEMS = defineTable('toy_items', { id: c.u64n, name: c.text, price: c.f64 });
const TOY_SELECTION = select(TOY_ITEMS, ['id', 'name', 'price']);
type ToyRow = RowOfSelection<typeof TOY_SELECTION>;
const ToyItem = Type.Object({ id: Type.Integer(), name: Type.String(), price: Type.Number() });

const toyList: ListSpec<ToyRow, { id: number; name: string; price: number }, 'items'> = {
  name: 'toy.items',
  table: 'toy_items',
  select: TOY_SELECTION,
  keyset: [{ column: 'id', type: 'UInt64' }],
  filters: [],
  defaultLimit: 2,
  field: 'items',
  toItem: (r) => ({ id: Number(r.id), name: r.name, price: r.price }),
};

/** The toy resource, exactly as a real one is declared in api/resources/<venue>/<resource>.ts. */
const toyResource = defineResource({
  path: '/v2/toy/items',
  schema: {
    summary: 'Toy items',
    description: 'A toy list: one definition gives the route, its access, its cache sources and its OpenAPI.',
    tags: ['toy'],
    querystring: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
      order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
      pagination_key: Type.Optional(Type.String()),
    }),
    response: {
      200: Type.Object({ items: Type.Array(ToyItem), pagination: Pagination }),
      ...keyedErrorResponses,
    },
  },
  access: GATED,
  sources: ['analytics:toy'],
  read: toyList,
});

/**
 * The toy channel, exactly as a real one is declared in api/stream/channels.ts: its items are the toy
 * resource's (`toItem` of the row the message carries) plus `event_type` and `status`.
 */
const toyChannel: StreamChannel = {
  name: 'toy_items',
  publication: { redis: 'toy:items' },
  filters: { token_ids: (d) => [String(d.id)] },
  event(message) {
    const m = chainMessage(message);
    if (!m) return null;
    const row = TOY_SELECTION.zip(TOY_SELECTION.names.map((n) => m.data[n]));
    return {
      data: { event_type: m.event, ...toyList.toItem(row, undefined), status: m.status },
      status: m.status,
      position: { block_number: Number(m.data.block_number), log_index: 0 },
    };
  },
};

function resourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? resourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const isResource = (v: unknown): v is Resource =>
  typeof v === 'object' && v !== null && 'register' in v && 'path' in v && 'access' in v && 'sources' in v;

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('api_resources');
});
afterAll(async () => deps?.close());

describe('served routes', () => {
  let app: App;
  const routes: RouteOptions[] = [];

  beforeAll(async () => {
    app = await buildApp({
      ...deps,
      secret: TEST_SECRET,
      configure: (a) => {
        a.addHook('onRoute', (route) => {
          routes.push(route);
        });
      },
    });
  });
  afterAll(async () => app?.close());

  it('are resources with an explicit access rule and source list, or paths api/access.ts lists on purpose', () => {
    const resources = new Map(RESOURCES.map((r) => [r.path, r]));
    const data = routes.filter((r) => r.url.startsWith('/v2/') && r.method !== 'HEAD');
    expect(data.length).toBeGreaterThan(RESOURCES.length - 1);
    for (const route of data) {
      const resource = resources.get(route.url);
      if (!resource) {
        // Not a resource: only a retired path, answered 410 to anyone by api/routes/retired.ts.
        expect(accessFor(route.url), route.url).toEqual({ kind: 'public' });
        continue;
      }
      expect(route.config?.access, route.url).toEqual(resource.access);
      expect(resource.access.kind, route.url).toBe('keyed');
      const sources = route.config?.sources;
      expect(sources, route.url).toBeDefined();
      if (Array.isArray(sources)) expect(sources.length, route.url).toBeGreaterThan(0);
      else expect((sources as { uncached: string }).uncached.length, route.url).toBeGreaterThan(10);
    }
    // Every resource is served, once.
    for (const r of RESOURCES)
      expect(
        data.filter((d) => d.url === r.path),
        r.path,
      ).toHaveLength(1);
  });

  it('include every resource defined under api/resources/', async () => {
    const root = join(import.meta.dirname, '../api/resources');
    const listed = new Set<Resource>(RESOURCES);
    for (const file of resourceFiles(root)) {
      const module = (await import(file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        const found = isResource(value) ? [value] : Array.isArray(value) ? value.filter(isResource) : [];
        for (const r of found) {
          expect(
            listed.has(r),
            `${relative(root, file)}: ${name} (${r.path}) is not in api/resources/index.ts`,
          ).toBe(true);
        }
      }
    }
  });
});

describe('a toy resource added by the recipe', () => {
  let cached: App;
  let reads = 0;
  let devKey: string;
  let freeKey: string;

  /** Counts the toy list's reads (how often the answers asked ClickHouse). */
  function counting(ch: ClickHouse): ClickHouse {
    return new Proxy(ch, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop !== 'read' || typeof v !== 'function') return v;
        return (label: string, ...rest: unknown[]) => {
          if (label === 'api.toy.items') reads++;
          return v.call(target, label, ...rest);
        };
      },
    });
  }

  beforeAll(async () => {
    await deps.clickhouse.command(
      'test.toy.create',
      'CREATE TABLE toy_items (id UInt64, name String, price Float64) ENGINE = MergeTree ORDER BY id',
    );
    await deps.clickhouse.insert('test.toy.insert', 'toy_items', [
      { id: 1, name: 'one', price: 0.25 },
      { id: 2, name: 'two', price: 0.5 },
      { id: 3, name: 'three', price: 0.75 },
    ]);
    cached = await buildApp({
      ...deps,
      clickhouse: counting(deps.clickhouse),
      secret: TEST_SECRET,
      extraResources: [toyResource],
    });
    const keys = createKeyStore(deps.redis);
    devKey = (await keys.create({ tier: 'dev', name: 'toy-dev' })).key;
    freeKey = (await keys.create({ tier: 'free', name: 'toy-free' })).key;
  });
  afterAll(async () => cached?.close());

  const get = (url: string, key?: string) =>
    cached.inject({ method: 'GET', url, headers: key ? { 'x-api-key': key } : {} });

  it('is served: its list through the keyset engine, pages and cursor included', async () => {
    const first = await get('/v2/toy/items', devKey);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.items).toEqual([
      { id: 3, name: 'three', price: 0.75 },
      { id: 2, name: 'two', price: 0.5 },
    ]);
    expect(body.pagination).toMatchObject({ limit: 2, count: 2, has_more: true });
    const next = await get(`/v2/toy/items?pagination_key=${body.pagination.pagination_key}`, devKey);
    expect(next.json().items).toEqual([{ id: 1, name: 'one', price: 0.25 }]);
    expect((await get('/v2/toy/items?limit=11', devKey)).statusCode).toBe(422);
  });

  it('is access-checked by its own rule: no key 401, Free 403 (gated), Dev 200', async () => {
    expect((await get('/v2/toy/items')).statusCode).toBe(401);
    const free = await get('/v2/toy/items', freeKey);
    expect(free.statusCode).toBe(403);
    expect(free.json().message).toMatch(/Dev tier or higher/);
    const dev = await get('/v2/toy/items?order=asc', devKey);
    expect(dev.statusCode).toBe(200);
    expect(dev.headers['ratelimit-limit']).toBeDefined();
  });

  it('is cached on its sources: a repeat is not read again, a bump of its source is', async () => {
    const url = '/v2/toy/items?limit=3';
    const before = reads;
    const a = await get(url, devKey);
    const b = await get(url, devKey);
    expect(b.body).toBe(a.body);
    expect(reads).toBe(before + 1);
    await deps.clickhouse.insert('test.toy.insert', 'toy_items', [{ id: 4, name: 'four', price: 1 }]);
    // Unbumped, the cached answer stands (the source list is what the cache keys on)...
    expect((await get(url, devKey)).body).toBe(a.body);
    await createDataVersions({ redis: deps.redis }).bump('analytics:toy');
    // ...and a bump of its source is seen at once.
    const c = await get(url, devKey);
    expect(c.json().items[0]).toEqual({ id: 4, name: 'four', price: 1 });
    expect(reads).toBe(before + 2);
  });

  it('is listed in /openapi.json with its parameters and the key requirement', async () => {
    const doc = (await cached.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v2/toy/items']?.get;
    expect(op).toBeDefined();
    expect(op.summary).toBe('Toy items');
    expect(op.security).toEqual([{ apiKey: [] }]);
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'limit',
      'order',
      'pagination_key',
    ]);
  });

  it("is streamed by a toy channel: each item is the resource's item plus event_type and status", async () => {
    const env = await createStreamTestEnv('api_resources_stream');
    const stream = await startTestStream(env, {}, undefined, { extraChannels: [toyChannel] });
    try {
      const pro = await env.key('pro');
      const client = await connect(stream.url, pro.key);
      const sub = await client.request({
        action: 'subscribe',
        channel: 'toy_items',
        filters: { token_ids: ['2', '4'] },
      });
      expect(sub).toMatchObject({ type: 'subscribed', channel: 'toy_items' });
      const rows = await deps.clickhouse.query<Record<string, unknown>>(
        'test.toy.rows',
        'SELECT id, name, price FROM toy_items ORDER BY id',
      );
      for (const [i, r] of rows.entries()) {
        const message = {
          channel: 'toy_items',
          event: 'item_listed',
          status: 'confirmed',
          data: { ...r, block_number: i + 1 },
        };
        await env.publisher.publish(`${env.channelPrefix}toy:items`, JSON.stringify(message));
      }
      await until(() => client.events(sub.subscription_id as string).length === 2);
      const streamed = client.events(sub.subscription_id as string).map((e) => e.data);
      const rest = (await get('/v2/toy/items?order=asc&limit=10', devKey)).json().items as { id: number }[];
      expect(streamed).toEqual(
        rest
          .filter((item) => item.id === 2 || item.id === 4)
          .map((item) => ({ event_type: 'item_listed', ...item, status: 'confirmed' })),
      );
      client.close();
    } finally {
      await stream.close();
      await env.close();
    }
  });
});
