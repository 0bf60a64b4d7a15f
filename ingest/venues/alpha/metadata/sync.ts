/**
 * The catalog sync of venue alpha: reads the metadata API (client.ts), maps records to rows (mappers.ts)
 * and writes the catalog tables (schemas/tables/alpha-catalog.ts).
 *
 * - `full`: tags, the related tags of every tag, series, then events open and closed with their nested
 *   markets; `open`: open events with their nested markets only.
 * - Unchanged records are not rewritten: each row's content hash is compared with the stored row's, and
 *   only new or changed rows are inserted, at the sync's observation time (`observed_at`).
 * - A record that fails its schema goes to `quarantine` (source `alpha-metadata`, its kind and id); the
 *   page goes on. Upstream failures the HTTP client gives up on end the sync with that error: the
 *   tables written before it keep their rows (each is complete per record), nothing else is recorded.
 * - After a complete `full` sweep, the stored records it did not see are deleted (removals.ts: markets
 *   only once `/markets` no longer returns them by condition id; an empty events listing deletes nothing).
 * - After a sync that wrote or deleted rows, the data source `venue:alpha` is bumped (core/data-version.ts).
 * Jobs and the CLI call `syncAlphaCatalog`; this module schedules nothing.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';
import type { TableDescription } from '../../../../core/clickhouse/table.ts';
import type { Config } from '../../../../core/config.ts';
import { createDataVersions } from '../../../../core/data-version.ts';
import type { Deps } from '../../../../core/deps.ts';
import {
  ALPHA_EVENTS,
  ALPHA_MARKETS,
  ALPHA_SERIES,
  ALPHA_TAG_RELATIONS,
  ALPHA_TAGS,
} from '../../../../schemas/tables/alpha-catalog.ts';
import { createHttpClient } from '../../../http/client.ts';
import { quarantineRecords, writeChanged as writeChangedRows, writeCheckpoint } from '../../../rest/store.ts';
import { alphaConfig } from '../config.ts';
import { type AlphaMetadataClient, createAlphaMetadataClient, type ReadResult } from './client.ts';
import {
  eventRows,
  type MarketRow,
  marketRow,
  seriesRow,
  type TagRelationRow,
  tagRelationRow,
  tagRow,
} from './mappers.ts';
import type { InvalidRecord } from './payloads.ts';
import { createSweep, noteFailed, noteRelations, removeUnseen } from './removals.ts';

export const QUARANTINE_SOURCE = 'alpha-metadata';

export interface TableCounts {
  /** Records read (after deduplication). */
  read: number;
  /** Rows inserted (new or changed). */
  written: number;
  /** Ids deleted: stored, but not seen by a complete `full` sweep (always 0 in `open` mode). */
  deleted: number;
}

export interface CatalogSyncSummary {
  mode: 'full' | 'open';
  events: TableCounts;
  markets: TableCounts;
  series: TableCounts;
  tags: TableCounts;
  tagRelations: TableCounts;
  /** Records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages read again after a repeat or a failed record. */
  rereads: number;
  /** `full`: why removals were left out (an empty listing, a failed record without an id), one line each. */
  removalSkipped: string[];
  ms: number;
}

export interface CatalogSyncDeps extends Pick<Deps, 'clickhouse' | 'log'> {
  config?: Config;
  redis?: Deps['redis'];
  /** The upstream client (default: built from the config's ALPHA_METADATA_URL and ALPHA_HTTP_TIMEOUT_MS). */
  metadata?: AlphaMetadataClient;
  /** Observation clock (default: the upstream's clock, HttpClient.clock). */
  now?: () => number;
}

export interface CatalogSyncOptions {
  mode: 'full' | 'open';
  /** Called after each step (for the CLI's progress). */
  onProgress?: (step: string, summary: CatalogSyncSummary) => void;
}

/** The metadata client for a configuration. */
export function createAlphaMetadataClientFromConfig(config: Config): AlphaMetadataClient {
  const a = alphaConfig.of(config);
  return createAlphaMetadataClient({
    http: createHttpClient({ baseUrl: a.metadataUrl, timeoutMs: a.httpTimeoutMs }),
  });
}

/** Rows of `t` new or changed since the stored ones (ingest/rest/store.ts), keyed by `id`. */
function writeChanged(
  ch: ClickHouse,
  t: TableDescription,
  rows: readonly Record<string, unknown>[],
  observedAt: number,
): Promise<number> {
  return writeChangedRows(ch, t, rows, observedAt, { key: 'id', label: `alpha-catalog.${t.name}` });
}

const quarantine = (ch: ClickHouse, invalid: readonly InvalidRecord[]) =>
  quarantineRecords(ch, QUARANTINE_SOURCE, invalid);

/**
 * Markets by condition id (e.g. conditions prepared on chain that the catalog does not hold yet), from
 * `/markets`, each under its first parent event; written like a sync's (unchanged ones not rewritten).
 */
export async function syncAlphaMarkets(
  deps: CatalogSyncDeps,
  conditionIds: readonly string[],
): Promise<{ read: number; written: number; quarantined: number; requests: number }> {
  const metadata = deps.metadata ?? createAlphaMetadataClientFromConfig(requireConfig(deps));
  const r = await metadata.marketsByConditionIds(conditionIds);
  await quarantine(deps.clickhouse, r.invalid);
  const rows = r.records.map((m) => marketRow(m, m.events?.[0]?.id ?? ''));
  const written = await writeChanged(deps.clickhouse, ALPHA_MARKETS, rows, (deps.now ?? metadata.clock)());
  if (written > 0 && deps.redis) await createDataVersions({ redis: deps.redis }).bump('venue:alpha');
  return { read: rows.length, written, quarantined: r.invalid.length, requests: r.requests };
}

function requireConfig(deps: CatalogSyncDeps): Config {
  if (!deps.config) throw new Error('The alpha catalog sync needs deps.metadata or deps.config');
  return deps.config;
}

export async function syncAlphaCatalog(
  deps: CatalogSyncDeps,
  opts: CatalogSyncOptions,
): Promise<CatalogSyncSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const metadata = deps.metadata ?? createAlphaMetadataClientFromConfig(requireConfig(deps));
  const now = deps.now ?? metadata.clock;
  const zero = (): TableCounts => ({ read: 0, written: 0, deleted: 0 });
  const summary: CatalogSyncSummary = {
    mode: opts.mode,
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
  const sweep = createSweep();
  const seenInvalid = new Set<string>();
  /** Counts a read and quarantines its failed records. */
  const account = async <T>(r: ReadResult<T>): Promise<T[]> => {
    summary.requests += r.requests;
    summary.rereads += r.rereads;
    noteFailed(sweep, r.invalid);
    const fresh = r.invalid.filter((x) => {
      const key = `${x.kind}\u0000${x.recordId}`;
      if (seenInvalid.has(key)) return false;
      seenInvalid.add(key);
      return true;
    });
    summary.quarantined += fresh.length;
    await quarantine(ch, fresh);
    return r.records;
  };
  const step = (name: string) => {
    summary.ms = Math.round(performance.now() - t0);
    opts.onProgress?.(name, summary);
  };

  if (opts.mode === 'full') {
    const tags = await account(await metadata.tags());
    summary.tags.read = tags.length;
    sweep.listed.tags = tags.length;
    for (const x of tags) sweep.seen.tag.add(x.id);
    summary.tags.written = await writeChanged(ch, ALPHA_TAGS, tags.map(tagRow), now());
    step('tags');

    const relations: TagRelationRow[] = [];
    for (const tag of tags) {
      const read = await metadata.relatedTags(tag.id);
      noteRelations(sweep, tag.id, read);
      for (const r of await account(read)) relations.push(tagRelationRow(r));
    }
    summary.tagRelations.read = relations.length;
    summary.tagRelations.written = await writeChanged(ch, ALPHA_TAG_RELATIONS, relations, now());
    step('related tags');

    const series = await account(await metadata.series());
    summary.series.read = series.length;
    sweep.listed.series = series.length;
    for (const x of series) sweep.seen.series.add(x.id);
    summary.series.written = await writeChanged(ch, ALPHA_SERIES, series.map(seriesRow), now());
    step('series');
  }

  for (const closed of opts.mode === 'full' ? [false, true] : [false]) {
    const events = await account(await metadata.events({ closed }));
    const eventRowsOut = [];
    const marketRowsOut: MarketRow[] = [];
    for (const e of events) {
      const r = eventRows(e);
      eventRowsOut.push(r.event);
      marketRowsOut.push(...r.markets);
    }
    summary.events.read += eventRowsOut.length;
    summary.markets.read += marketRowsOut.length;
    sweep.listed.events += eventRowsOut.length;
    for (const r of eventRowsOut) sweep.seen.event.add(r.id);
    for (const r of marketRowsOut) sweep.seen.market.add(r.id);
    // Markets first: an event row never names a market the table does not hold yet.
    summary.markets.written += await writeChanged(ch, ALPHA_MARKETS, marketRowsOut, now());
    summary.events.written += await writeChanged(ch, ALPHA_EVENTS, eventRowsOut, now());
    step(closed ? 'closed events' : 'open events');
  }

  if (opts.mode === 'full') {
    const removal = await removeUnseen(
      {
        ch,
        log: deps.log,
        metadata,
        account,
        writeMarkets: (rows) => writeChanged(ch, ALPHA_MARKETS, rows, now()),
      },
      sweep,
    );
    summary.markets.written += removal.written;
    summary.events.deleted = removal.deleted.events;
    summary.markets.deleted = removal.deleted.markets;
    summary.series.deleted = removal.deleted.series;
    summary.tags.deleted = removal.deleted.tags;
    summary.tagRelations.deleted = removal.deleted.tagRelations;
    summary.removalSkipped = removal.skipped;
    step('removals');
  }

  const tables = [summary.events, summary.markets, summary.series, summary.tags, summary.tagRelations];
  const changed = tables.reduce((n, c) => n + c.written + c.deleted, 0);
  if (changed > 0 && deps.redis) await createDataVersions({ redis: deps.redis }).bump('venue:alpha');
  // The last good sync, for the status page's lag (the progress store, ingest/sources.ts).
  // `at` on the wall clock (the operations' lag), the position the observation's time.
  await writeCheckpoint(ch, 'alpha-catalog', 'catalog', now());
  summary.ms = Math.round(performance.now() - t0);
  deps.log.info({ ...summary }, 'Synced the alpha catalog');
  return summary;
}
