/**
 * Validation over the whole API, driven by its own OpenAPI document: for every GET route and every
 * query and path parameter, each of the values below is sent (the route's other required parameters
 * valid) through `app.inject` against real chDB (an empty, migrated database) and redis-server.
 *
 * - No answer is a 5xx.
 * - A numeric parameter (integer or number, or a list of them) rejects every one of these values (each
 *   is non-finite, negative, out of range or not a number) with 422 whose detail names the parameter.
 * - A rejected value of any other parameter is a 422 naming it, or a 400 (SPEC's "a rule of the
 *   endpoint was broken": a bad address or hash, a path that is not valid percent-encoding) or a 404
 *   (no such market, wallet, tag), with the general error body; the retired endpoints answer 410.
 * - Every numeric parameter declares its bounds (minimum and maximum, or an enum), so "huge" is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETIRED_PATHS } from '../api/routes/retired.ts';
import { type ApiTestContext, addr, bytes32, createApiTestContext } from './api-helpers.ts';

interface ParamSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  default?: unknown;
  items?: ParamSchema;
}
interface Param {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  deprecated?: boolean;
  schema: ParamSchema;
}
interface Route {
  path: string;
  params: Param[];
}

/** The values every parameter is tried with (sent percent-encoded, but the last: sent as is). */
const FUZZ: readonly [label: string, value: string][] = [
  ['huge', '1e20'],
  ['huge digits', '9'.repeat(40)],
  ['negative', '-1'],
  ['negative huge', '-1e20'],
  ['1e309', '1e309'],
  ['-1e309', '-1e309'],
  ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'],
  ['NaN', 'NaN'],
  ['empty', ''],
  ['very long', '9'.repeat(5000)],
  ['very long text', 'x'.repeat(5000)],
  ['fraction', '1.5'],
  ['bad escape', '%zz'],
];
const RAW = new Set(['bad escape']);

/** OpenAPI spells `:name` as `{name}`. */
const retired = new Set<string>(RETIRED_PATHS.map((p) => p.replace(/:(\w+)/g, '{$1}')));

let t: ApiTestContext;
let key: string;
let routes: Route[];

beforeAll(async () => {
  t = await createApiTestContext('api_validation_fuzz');
  key = await t.key('enterprise', 1_000_000);
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { paths: Record<string, { get?: { parameters?: Param[] } }> };
  routes = Object.entries(doc.paths)
    .filter(([, item]) => item.get !== undefined)
    .map(([path, item]) => ({ path, params: item.get!.parameters ?? [] }));
});
afterAll(async () => t?.close());

/**
 * The deprecated `offset` of the cursor lists: SPEC and DESIGN §5 name 400 for any value but 0, so a
 * finite one out of its range is that 400 (a non-finite one still a 422).
 */
const offsetRule = (p: Param) => p.name === 'offset' && p.deprecated === true;

const isNumeric = (s: ParamSchema): boolean =>
  s.type === 'integer' ||
  s.type === 'number' ||
  (s.type === 'array' && s.items !== undefined && isNumeric(s.items));

/** A value the parameter accepts, for the parameters not under test. */
function validValue(p: Param): string {
  const s = p.schema.type === 'array' ? p.schema.items! : p.schema;
  if (s.enum) return String(s.enum[0]);
  if (s.default !== undefined) return String(s.default);
  if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
  if (s.type === 'boolean') return 'true';
  if (s.pattern === '^pmc_[a-z2-7]{12}$') return 'pmc_abcdefghijkl';
  if (s.pattern) return '1';
  if (/wallet|address/.test(p.name)) return addr(1);
  if (/condition_id|hash/.test(p.name)) return bytes32(1);
  return 'bitcoin';
}

/** The URL of `route` with `target` set to `value` and every other required parameter valid. */
function urlOf(route: Route, target: Param, value: string, raw: boolean): string {
  let path = route.path;
  const query: string[] = [];
  for (const p of route.params) {
    const v = p === target ? value : p.in === 'path' || p.required ? validValue(p) : undefined;
    if (v === undefined) continue;
    const encoded = p === target && raw ? v : encodeURIComponent(v);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encoded);
    else if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encoded}`);
  }
  return query.length ? `${path}?${query.join('&')}` : path;
}

interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

const namesField = (body: { detail?: Detail[] }, where: string, name: string) =>
  (body.detail ?? []).some((d) => d.loc[0] === where && d.loc[1] === name);

/** One request of the fuzz: null when the answer is right, else what was wrong. */
async function fuzzOne(route: Route, p: Param, label: string, value: string): Promise<string | null> {
  const where = p.in;
  const url = urlOf(route, p, value, RAW.has(label));
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const status = res.statusCode;
  const at = `${route.path} ${where}.${p.name}=${label}: ${status} ${res.body.slice(0, 200)}`;
  if (status >= 500) return at;
  // The retired endpoints answer 410 whatever they are asked.
  if (retired.has(route.path) && status === 410) return null;
  if (isNumeric(p.schema)) {
    const s = p.schema.type === 'array' ? p.schema.items! : p.schema;
    // "1.5" is a valid number for a number parameter bounded above 1.5.
    if (label === 'fraction' && s.type === 'number' && (s.maximum ?? 0) >= 1.5) return null;
    if (offsetRule(p) && status === 400 && Number.isFinite(Number(value)) && Number(value) > 0) return null;
    return status === 422 && namesField(res.json(), where, p.name) ? null : at;
  }
  if (status < 400) return null;
  if (status === 422) return namesField(res.json(), where, p.name) ? null : at;
  if (status !== 400 && status !== 404) return at;
  const body = res.json() as Record<string, unknown>;
  const general = Object.keys(body).sort().join() === 'error,message';
  return general && typeof body.error === 'string' && typeof body.message === 'string' ? null : at;
}

describe('validation fuzz over /openapi.json', () => {
  it('finds the routes and parameters it fuzzes', () => {
    const all = routes.flatMap((r) => r.params);
    expect(routes.length).toBeGreaterThan(30);
    expect(all.filter((p) => isNumeric(p.schema)).length).toBeGreaterThan(60);
    expect(all.some((p) => p.in === 'path')).toBe(true);
  });

  it('declares bounds on every numeric parameter (but the deprecated offset: any value but 0 is a 400)', () => {
    const unbounded = routes.flatMap((r) =>
      r.params
        .filter((p) => isNumeric(p.schema) && !offsetRule(p))
        .filter((p) => {
          const s = p.schema.type === 'array' ? p.schema.items! : p.schema;
          return !s.enum && (s.minimum === undefined || s.maximum === undefined);
        })
        .map((p) => `${r.path} ${p.name}`),
    );
    expect(unbounded).toEqual([]);
  });

  it('answers every parameter × {huge, negative, ±1e309, ±Infinity, NaN, "", very long, 1.5, bad escape} without a 5xx; a numeric one is a 422 naming it', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const p of route.params) {
        if (p.in !== 'query' && p.in !== 'path') continue;
        // The values of one parameter at once: one app, requests in flight together.
        const found = await Promise.all(FUZZ.map(([label, value]) => fuzzOne(route, p, label, value)));
        failures.push(...found.filter((f): f is string => f !== null));
      }
    }
    expect(failures).toEqual([]);
  });

  it('rejects a non-finite number with 422 finite_number naming the field', async () => {
    for (const [url, field] of [
      ['/v2/alpha/trades?limit=1e309', 'limit'],
      ['/v2/alpha/trades?min_total=Infinity', 'min_total'],
      ['/v2/alpha/positions?min_timestamp=-1e309', 'min_timestamp'],
      ['/v2/alpha/market-price/1?at_time=1e309', 'at_time'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      expect(res.statusCode, url).toBe(422);
      expect(res.json(), url).toEqual({
        detail: [{ loc: ['query', field], msg: 'Input should be a finite number', type: 'finite_number' }],
      });
    }
    // A list item: its index in the loc, as for any item.
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/delta/markets?market_id=1&market_id=1e309',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['query', 'market_id', 1], msg: 'Input should be a finite number', type: 'finite_number' },
    ]);
  });

  it('applies one canonical_id rule on every list that takes it: malformed → 422 naming it', async () => {
    const lists = routes.filter((r) => r.params.some((p) => p.name === 'canonical_id' && p.in === 'query'));
    expect(lists.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/v2/alpha/markets',
        '/v2/alpha/markets/keyset',
        '/v2/beta/markets',
        '/v2/gamma/markets',
        '/v2/delta/markets',
        '/v2/epsilon/markets',
      ]),
    );
    for (const r of lists) {
      for (const bad of [
        'xx',
        'pmc_ABCDEFGHIJKL',
        'pmc_abcdefghijk',
        'pmc_abcdefghijklm',
        'pmc_abcdefghijk1',
      ]) {
        const res = await t.app.inject({
          method: 'GET',
          url: `${r.path}?canonical_id=${bad}`,
          headers: { 'x-api-key': key },
        });
        expect(res.statusCode, `${r.path} ${bad}`).toBe(422);
        expect(res.json().detail[0].loc, `${r.path} ${bad}`).toEqual(['query', 'canonical_id', 0]);
      }
      const ok = await t.app.inject({
        method: 'GET',
        url: `${r.path}?canonical_id=pmc_abcdefghijkl`,
        headers: { 'x-api-key': key },
      });
      expect(ok.statusCode, r.path).toBe(200);
    }
  });
});
