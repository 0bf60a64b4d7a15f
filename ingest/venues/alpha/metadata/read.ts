/**
 * The read strategies of venue alpha's catalog for the stream runner (ingest/rest/runner.ts; the
 * definition: ingest/venues/alpha/index.ts), over the metadata API (client.ts), its rows by mappers.ts
 * in the catalog tables (schemas/tables/alpha-catalog.ts).
 *
 * `readCatalog` (stream `catalog`):
 * - `full`: tags, the related tags of every tag, series, then events open and closed with their nested
 *   markets; `open`: open events with their nested markets only. One batch per step (markets before
 *   events: an event row never names a market the table does not hold yet), each stamped when written.
 * - A record that fails its schema is quarantined at once (source `alpha-metadata`, its kind and id); the
 *   page goes on. Upstream failures end the run with that error: the tables written before it keep their
 *   rows (each is complete per record), no mark is committed.
 * - After a complete `full` sweep, the stored records it did not see are deleted (removals.ts: markets
 *   only once `/markets` no longer returns them by condition id; an empty events listing deletes nothing).
 * - The mark `catalog` = the observation time of the run's end (the last good sync, the status page's lag).
 *
 * `readMarketsById` (stream `markets`): markets by condition id (`options.conditionIds`, e.g. conditions
 * prepared on chain that the catalog does not hold yet) from `/markets`, each under its first parent
 * event; no mark.
 */
import {
  ALPHA_EVENTS,
  ALPHA_MARKETS,
  ALPHA_SERIES,
  ALPHA_TAG_RELATIONS,
  ALPHA_TAGS,
} from '../../../../schemas/tables/alpha-catalog.ts';
import type { RowsByTable, StreamContext, StreamSummary } from '../../../rest/runner.ts';
import { writeChanged } from '../../../rest/store.ts';
import type { AlphaMetadataClient, ReadResult } from './client.ts';
import {
  eventRows,
  type MarketRow,
  marketRow,
  seriesRow,
  type TagRelationRow,
  tagRelationRow,
  tagRow,
} from './mappers.ts';
import { createSweep, noteFailed, noteRelations, removeUnseen } from './removals.ts';

export const QUARANTINE_SOURCE = 'alpha-metadata';

export type CatalogSyncMode = 'full' | 'open';

export interface TableCounts {
  /** Records read (after deduplication). */
  read: number;
  /** Rows inserted (new or changed). */
  written: number;
  /** Ids deleted: stored, but not seen by a complete `full` sweep (always 0 in `open` mode). */
  deleted: number;
}

export interface CatalogSyncSummary {
  mode: CatalogSyncMode;
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

export interface MarketsByIdOptions {
  conditionIds: readonly string[];
}

export interface MarketsByIdSummary extends StreamSummary {
  read: number;
  written: number;
}

type CatalogCtx = StreamContext<CatalogSyncMode, unknown, CatalogSyncSummary>;

export async function* readCatalog(
  metadata: AlphaMetadataClient,
  ctx: CatalogCtx,
): AsyncIterable<RowsByTable> {
  const { summary } = ctx;
  const sweep = createSweep();
  /** Counts a read and quarantines its failed records at once. */
  const take = async <T>(r: ReadResult<T>): Promise<T[]> => {
    ctx.account(r);
    noteFailed(sweep, r.invalid);
    await ctx.flush();
    return r.records;
  };

  if (ctx.mode === 'full') {
    const tags = await take(await metadata.tags());
    sweep.listed.tags = tags.length;
    for (const x of tags) sweep.seen.tag.add(x.id);
    yield { [ALPHA_TAGS.name]: tags.map(tagRow) };
    ctx.step('tags');

    const relations: TagRelationRow[] = [];
    for (const tag of tags) {
      const read = await metadata.relatedTags(tag.id);
      noteRelations(sweep, tag.id, read);
      for (const r of await take(read)) relations.push(tagRelationRow(r));
    }
    yield { [ALPHA_TAG_RELATIONS.name]: relations };
    ctx.step('related tags');

    const series = await take(await metadata.series());
    sweep.listed.series = series.length;
    for (const x of series) sweep.seen.series.add(x.id);
    yield { [ALPHA_SERIES.name]: series.map(seriesRow) };
    ctx.step('series');
  }

  for (const closed of ctx.mode === 'full' ? [false, true] : [false]) {
    const events = await take(await metadata.events({ closed }));
    const eventRowsOut = [];
    const marketRowsOut: MarketRow[] = [];
    for (const e of events) {
      const r = eventRows(e);
      eventRowsOut.push(r.event);
      marketRowsOut.push(...r.markets);
    }
    sweep.listed.events += eventRowsOut.length;
    for (const r of eventRowsOut) sweep.seen.event.add(r.id);
    for (const r of marketRowsOut) sweep.seen.market.add(r.id);
    // Markets first: an event row never names a market the table does not hold yet.
    yield { [ALPHA_MARKETS.name]: marketRowsOut, [ALPHA_EVENTS.name]: eventRowsOut };
    ctx.step(closed ? 'closed events' : 'open events');
  }

  if (ctx.mode === 'full') {
    const ch = ctx.clickhouse;
    const removal = await removeUnseen(
      {
        ch,
        log: ctx.log,
        metadata,
        account: take,
        writeMarkets: (rows) =>
          writeChanged(ch, ALPHA_MARKETS, rows, ctx.now(), {
            key: 'id',
            label: 'alpha-catalog.alpha_markets',
          }),
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
    ctx.changed(removal.written + Object.values(removal.deleted).reduce((n, d) => n + d, 0));
    ctx.step('removals');
  }
  // The last good sync, for the status page's lag (ingest/sources.ts): `at` on the wall clock, `time`
  // the observation's.
  ctx.markAfter({ stream: 'catalog', time: ctx.now() });
}

export async function* readMarketsById(
  metadata: AlphaMetadataClient,
  ctx: StreamContext<'byId', MarketsByIdOptions, MarketsByIdSummary>,
): AsyncIterable<RowsByTable> {
  const r = await metadata.marketsByConditionIds(ctx.options.conditionIds);
  ctx.account(r);
  yield { [ALPHA_MARKETS.name]: r.records.map((m) => marketRow(m, m.events?.[0]?.id ?? '')) };
}
