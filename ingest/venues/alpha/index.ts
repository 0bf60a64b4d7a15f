/**
 * Venue alpha's REST half, declared for the stream runner (ingest/rest/runner.ts): its catalog from the
 * metadata API (metadata/client.ts, mappers.ts, read.ts). Its chain (chain/) and books (book/) have
 * their own ingestors.
 * - `catalog` (job `alpha.catalog-sync`, jobs/processors/alpha-catalog.ts): `open` every
 *   ALPHA_CATALOG_INTERVAL_S, `full` every ALPHA_CATALOG_FULL_INTERVAL_S, under `alpha:catalog:lease`;
 *   mark `catalog` (source `alpha-catalog`).
 * - `markets`: markets by condition id (`options.conditionIds`), run by that job under the same lease; no
 *   schedule of its own, no mark.
 * Failed records are quarantined under `alpha-metadata`; a run that wrote or deleted a row bumps
 * `venue:alpha`.
 */
import {
  ALPHA_EVENTS,
  ALPHA_MARKETS,
  ALPHA_SERIES,
  ALPHA_TAG_RELATIONS,
  ALPHA_TAGS,
} from '../../../schemas/tables/alpha-catalog.ts';
import { createHttpClient } from '../../http/client.ts';
import { defineStream, defineVenue, type RowsByTable, type TableSpec } from '../../rest/runner.ts';
import { alphaConfig } from './config.ts';
import { type AlphaMetadataClient, createAlphaMetadataClient } from './metadata/client.ts';
import {
  type CatalogSyncMode,
  type CatalogSyncSummary,
  type MarketsByIdOptions,
  type MarketsByIdSummary,
  QUARANTINE_SOURCE,
  readCatalog,
  readMarketsById,
} from './metadata/read.ts';

export type { CatalogSyncMode, CatalogSyncSummary, MarketsByIdSummary } from './metadata/read.ts';

export const ALPHA_CATALOG_LEASE = 'alpha:catalog:lease';

const asRows = (batch: RowsByTable) => batch;

/** A catalog table keyed by `id`, its statements labelled `alpha-catalog.<table>`, every row read counted. */
const catalogTable = <S>(table: TableSpec<S>['table'], counts: TableSpec<S>['counts']): TableSpec<S> => ({
  table,
  key: 'id',
  label: `alpha-catalog.${table.name}`,
  counts,
  read: 'rows',
});

export const alpha = defineVenue({
  code: 'alpha',
  source: 'alpha-catalog',
  quarantine: QUARANTINE_SOURCE,
  config: alphaConfig,
  client: (config): AlphaMetadataClient => {
    const a = alphaConfig.of(config);
    return createAlphaMetadataClient({
      http: createHttpClient({ baseUrl: a.metadataUrl, timeoutMs: a.httpTimeoutMs }),
    });
  },
  streams: [
    defineStream({
      name: 'catalog',
      job: 'alpha.catalog-sync',
      attempts: 3,
      modes: ['open', 'full'],
      leases: () => [ALPHA_CATALOG_LEASE],
      every: [
        { id: 'alpha:catalog-open', mode: 'open', everyMs: (c) => alphaConfig.of(c).catalogIntervalS * 1000 },
        {
          id: 'alpha:catalog-full',
          mode: 'full',
          everyMs: (c) => alphaConfig.of(c).catalogFullIntervalS * 1000,
        },
      ],
      summary: (mode: CatalogSyncMode): CatalogSyncSummary => {
        const zero = () => ({ read: 0, written: 0, deleted: 0 });
        return {
          mode,
          events: zero(),
          markets: zero(),
          series: zero(),
          tags: zero(),
          tagRelations: zero(),
          quarantined: 0,
          requests: 0,
          rereads: 0,
          removalSkipped: [],
          ms: 0,
        };
      },
      read: readCatalog,
      rows: asRows,
      tables: [
        catalogTable<CatalogSyncSummary>(ALPHA_TAGS, (s) => s.tags),
        catalogTable<CatalogSyncSummary>(ALPHA_TAG_RELATIONS, (s) => s.tagRelations),
        catalogTable<CatalogSyncSummary>(ALPHA_SERIES, (s) => s.series),
        catalogTable<CatalogSyncSummary>(ALPHA_MARKETS, (s) => s.markets),
        catalogTable<CatalogSyncSummary>(ALPHA_EVENTS, (s) => s.events),
      ],
      observe: 'batch',
      finalStep: null,
      log: { message: 'Synced the alpha catalog' },
    }),
    defineStream({
      name: 'markets',
      modes: ['byId'],
      leases: () => [ALPHA_CATALOG_LEASE],
      every: [],
      summary: (_mode: 'byId', _o: MarketsByIdOptions): MarketsByIdSummary => ({
        read: 0,
        written: 0,
        quarantined: 0,
        requests: 0,
        rereads: 0,
        ms: 0,
      }),
      read: readMarketsById,
      rows: asRows,
      tables: [catalogTable<MarketsByIdSummary>(ALPHA_MARKETS, (s) => s)],
      finalStep: null,
    }),
  ],
});
