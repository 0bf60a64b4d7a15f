import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETIRED_PATHS } from '../api/routes/retired.ts';
import { ActivityQuery } from '../schemas/api/alpha-activity.ts';
import { EventsQuery } from '../schemas/api/alpha-events.ts';
import {
  CandlesQuery,
  MarketPriceQuery,
  SeriesQuery,
  VolumeChartQuery,
} from '../schemas/api/alpha-market-data.ts';
import { MarketsKeysetQuery, MarketsQuery } from '../schemas/api/alpha-markets.ts';
import { AlphaOrderbooksQuery } from '../schemas/api/alpha-orderbooks.ts';
import { PnlQuery } from '../schemas/api/alpha-pnl.ts';
import { PositionsQuery, TopHoldersQuery, WalletPositionsQuery } from '../schemas/api/alpha-positions.ts';
import { ProfilesQuery } from '../schemas/api/alpha-profiles.ts';
import { SearchQuery } from '../schemas/api/alpha-search.ts';
import { SeriesDetailQuery, SeriesListQuery } from '../schemas/api/alpha-series.ts';
import { SubtagsQuery, TagsQuery } from '../schemas/api/alpha-tags.ts';
import { TradesQuery } from '../schemas/api/alpha-trades.ts';
import { BetaMarketsQuery } from '../schemas/api/beta-markets.ts';
import { BetaOrderbooksQuery, BetaSubcentOrderbooksQuery } from '../schemas/api/beta-orderbooks.ts';
import { BetaTradesQuery } from '../schemas/api/beta-trades.ts';
import { DataTicksQuery } from '../schemas/api/data-ticks.ts';
import { DeltaMarketsQuery } from '../schemas/api/delta-markets.ts';
import { DeltaOrderbooksQuery } from '../schemas/api/delta-orderbooks.ts';
import { EpsilonMarketsQuery } from '../schemas/api/epsilon-markets.ts';
import { EpsilonOrderbooksQuery } from '../schemas/api/epsilon-orderbooks.ts';
import { GammaMarketsQuery } from '../schemas/api/gamma-markets.ts';
import { GammaOrderbooksQuery } from '../schemas/api/gamma-orderbooks.ts';
import { MarketsSearchQuery } from '../schemas/api/markets-search.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked structurally
let doc: any;

const here = path.dirname(fileURLToPath(import.meta.url));

beforeAll(async () => {
  t = await createApiTestContext('api_openapi');
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => t?.close());

describe('/openapi.json', () => {
  it('validates against the OpenAPI 3.1 schema, version 2.0.0', () => {
    // Ajv resolves `$dynamicRef: "#meta"` against the wrong scope; without a dialect override it means
    // the schema's own `$defs/schema` (`$dynamicAnchor: meta`), so point it there statically.
    const text = fs.readFileSync(path.join(here, 'api-fixtures/oas-3.1-schema.json'), 'utf8');
    const schema = JSON.parse(text.replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"'));
    // biome-ignore lint/suspicious/noExplicitAny: ajv's ESM default export typing
    const Ajv = (Ajv2020 as any).default ?? Ajv2020;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    // biome-ignore lint/suspicious/noExplicitAny: same
    ((addFormats as any).default ?? addFormats)(ajv);
    const validate = ajv.compile(schema);
    const ok = validate(doc);
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 5))).toEqual([]);
    expect(ok).toBe(true);
    // Every Schema Object must itself be valid JSON Schema 2020-12 (the OAS 3.1 dialect's base).
    const schemas: unknown[] = [];
    const walk = (node: unknown, key?: string): void => {
      if (Array.isArray(node)) {
        for (const n of node) walk(n);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      if (key === 'schema') schemas.push(node);
      for (const [k, v] of Object.entries(node)) walk(v, k);
    };
    walk(doc.paths);
    expect(schemas.length).toBeGreaterThan(20);
    for (const s of schemas) expect(ajv.validateSchema(s), JSON.stringify(ajv.errors)).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
  });

  it('lists every route with its parameters, responses and key requirement', () => {
    const expected: Record<string, string[]> = {
      '/health': [],
      '/v2/alpha/trades': Object.keys(TradesQuery.properties),
      '/v2/alpha/activity': Object.keys(ActivityQuery.properties),
      '/v2/alpha/candlesticks/{condition_id}': ['condition_id', ...Object.keys(CandlesQuery.properties)],
      '/v2/alpha/candlesticks/token/{token_id}': ['token_id', ...Object.keys(CandlesQuery.properties)],
      '/v2/alpha/volume-chart/{condition_id}': ['condition_id', ...Object.keys(VolumeChartQuery.properties)],
      '/v2/alpha/markets/{token_id}/volume': ['token_id', ...Object.keys(SeriesQuery.properties)],
      '/v2/alpha/markets/{condition_id}/open_interest': [
        'condition_id',
        ...Object.keys(SeriesQuery.properties),
      ],
      '/v2/alpha/market-price/{token_id}': ['token_id', ...Object.keys(MarketPriceQuery.properties)],
      '/v2/alpha/tags': Object.keys(TagsQuery.properties),
      '/v2/alpha/tag/{slug}': ['slug'],
      '/v2/alpha/tag/{slug}/subtags': ['slug', ...Object.keys(SubtagsQuery.properties)],
      '/v2/alpha/categories': [],
      '/v2/alpha/search': Object.keys(SearchQuery.properties),
      '/v2/alpha/markets': Object.keys(MarketsQuery.properties),
      '/v2/alpha/markets/keyset': Object.keys(MarketsKeysetQuery.properties),
      '/v2/alpha/events': Object.keys(EventsQuery.properties),
      '/v2/alpha/events/keyset': Object.keys(EventsQuery.properties),
      '/v2/alpha/series': Object.keys(SeriesListQuery.properties),
      '/v2/alpha/series/{slug}': ['slug', ...Object.keys(SeriesDetailQuery.properties)],
      '/v2/alpha/positions': Object.keys(PositionsQuery.properties),
      '/v2/alpha/wallet/positions/{wallet}': ['wallet', ...Object.keys(WalletPositionsQuery.properties)],
      '/v2/alpha/position/{token_id}/top-holders': ['token_id', ...Object.keys(TopHoldersQuery.properties)],
      '/v2/alpha/wallet/pnl/{wallet}': ['wallet', ...Object.keys(PnlQuery.properties)],
      '/v2/alpha/wallets/profiles': Object.keys(ProfilesQuery.properties),
      '/v2/beta/markets': Object.keys(BetaMarketsQuery.properties),
      '/v2/gamma/markets': Object.keys(GammaMarketsQuery.properties),
      '/v2/delta/markets': Object.keys(DeltaMarketsQuery.properties),
      '/v2/epsilon/markets': Object.keys(EpsilonMarketsQuery.properties),
      '/v2/beta/trades': Object.keys(BetaTradesQuery.properties),
      '/v2/markets/search': Object.keys(MarketsSearchQuery.properties),
      '/v2/alpha/orderbooks': Object.keys(AlphaOrderbooksQuery.properties),
      '/v2/beta/orderbooks': Object.keys(BetaOrderbooksQuery.properties),
      '/v2/beta/orderbooks-subcent': Object.keys(BetaSubcentOrderbooksQuery.properties),
      '/v2/gamma/orderbooks': Object.keys(GammaOrderbooksQuery.properties),
      '/v2/delta/orderbooks': Object.keys(DeltaOrderbooksQuery.properties),
      '/v2/epsilon/orderbooks': Object.keys(EpsilonOrderbooksQuery.properties),
      '/v2/data/ticks': Object.keys(DataTicksQuery.properties),
      ...Object.fromEntries(
        RETIRED_PATHS.map((p) => [p.replace(/:(\w+)/g, '{$1}'), p.includes(':') ? ['canonical_id'] : []]),
      ),
    };
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(expected).sort());
    for (const [p, params] of Object.entries(expected)) {
      const op = doc.paths[p].get;
      expect(op, p).toBeDefined();
      const names = (op.parameters ?? []).map((x: { name: string }) => x.name).sort();
      expect(names, p).toEqual([...params].sort());
      expect(Object.keys(op.responses).length, p).toBeGreaterThan(0);
    }
    const trades = doc.paths['/v2/alpha/trades'].get;
    expect(trades.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(trades.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '422',
      '429',
      '500',
      '503',
    ]);
    const limit = trades.parameters.find((x: { name: string }) => x.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { minimum: 1, maximum: 200, default: 50 } });
    expect(trades.parameters.find((x: { name: string }) => x.name === 'offset').deprecated).toBe(true);
    // Nothing is required of a client: every parameter is optional (limit and order have defaults).
    expect(trades.parameters.filter((x: { required: boolean }) => x.required)).toEqual([]);
    expect(doc.paths['/health'].get.security).toBeUndefined();
    expect(doc.paths['/v2/data/ticks'].get.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/v2/markets'].get.deprecated).toBe(true);
  });

  it('serves a docs page at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    const page =
      res.statusCode === 302 ? await t.app.inject({ method: 'GET', url: res.headers.location! }) : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toMatch(/swagger/i);
    // Assets are bundled with the package (no CDN): the page works offline.
    const css = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
  });
});
