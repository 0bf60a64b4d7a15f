/**
 * Removal of catalog records that disappeared upstream, after a complete `full` sweep (read.ts): the
 * stored ids of alpha_events, alpha_series, alpha_tags and alpha_tag_relations that the sweep did not
 * see are deleted; a stored market the sweep's nested markets did not hold is first asked for by its
 * condition id (`/markets`, the way the `markets` stream fetches it) and kept when the upstream still
 * returns it.
 *
 * What counts as seen: every record read, and every quarantined record whose payload still names its
 * id. A kind with a quarantined record that does not (its `id` itself broken) is not removed from in
 * that sweep; neither are a tag's relations when its related-tags read held such a record. An empty
 * listing is taken as an upstream fault, never as an empty catalog: no events at all → nothing is
 * deleted (a warning is logged); no tags → no tags nor relations; no series → no series.
 *
 * Deletes are lightweight (`DELETE FROM t WHERE id IN {ids:Array(String)}`, every version of the id),
 * in batches of DELETE_BATCH ids, events before their markets and relations before their tags; all
 * upstream reads are done before the first delete, so a read that fails deletes nothing.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';
import type { Logger } from '../../../../core/logger.ts';
import { ALPHA_MARKETS } from '../../../../schemas/tables/alpha-catalog.ts';
import type { AlphaMetadataClient, ReadResult } from './client.ts';
import { marketRow } from './mappers.ts';
import type { InvalidRecord, MarketPayload, RecordKind } from './payloads.ts';

export const DELETE_BATCH = 1_000;

/** The ids one full sweep saw, per kind. */
export interface Sweep {
  seen: Record<Exclude<RecordKind, 'tag_relation'>, Set<string>>;
  /** Records listed per top-level read (the `/tags`, `/series` and both `/events` listings). */
  listed: { tags: number; series: number; events: number };
  /** Relation ids per tag whose related-tags read is whole (no failed record without an id). */
  relations: Map<string, Set<string>>;
  /** Kinds with a failed record that names no id: the sweep cannot tell what it missed. */
  unidentified: Set<RecordKind>;
}

export function createSweep(): Sweep {
  return {
    seen: { event: new Set(), market: new Set(), series: new Set(), tag: new Set() },
    listed: { tags: 0, series: 0, events: 0 },
    relations: new Map(),
    unidentified: new Set(),
  };
}

/** The id a failed record's payload names (a string `id`), else null. */
export function failedRecordId(r: InvalidRecord): string | null {
  try {
    const raw: unknown = JSON.parse(r.payload);
    const id = raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Notes failed records of the listings (events with their nested records, series, tags). */
export function noteFailed(sweep: Sweep, invalid: readonly InvalidRecord[]): void {
  for (const x of invalid) {
    if (x.kind === 'tag_relation') continue;
    const id = failedRecordId(x);
    if (id === null) sweep.unidentified.add(x.kind);
    else sweep.seen[x.kind].add(id);
  }
}

/** Notes one tag's related-tags read: its relation ids, unless a failed record names none. */
export function noteRelations(sweep: Sweep, tagId: string, r: ReadResult<{ id: string }>): void {
  const ids = new Set(r.records.map((x) => x.id));
  for (const x of r.invalid) {
    const id = failedRecordId(x);
    if (id === null) return;
    ids.add(id);
  }
  sweep.relations.set(tagId, ids);
}

export interface RemovalCounts {
  events: number;
  markets: number;
  series: number;
  tags: number;
  tagRelations: number;
}

export interface RemovalResult {
  deleted: RemovalCounts;
  /** Markets absent from the sweep that `/markets` still returns (kept; changed ones rewritten). */
  kept: number;
  /** Rows of kept markets rewritten (their content changed). */
  written: number;
  /** Why a table (or everything) was left alone, one line each. */
  skipped: string[];
}

export interface RemovalContext {
  ch: ClickHouse;
  log: Logger;
  metadata: AlphaMetadataClient;
  /** Counts a read's requests and quarantines its failed records (the sync's accounting). */
  account: (r: ReadResult<MarketPayload>) => Promise<MarketPayload[]>;
  /** Writes rows whose content changed (the sync's writeChanged for alpha_markets); returns the count. */
  writeMarkets: (rows: ReturnType<typeof marketRow>[]) => Promise<number>;
}

async function storedIds(ch: ClickHouse, table: string): Promise<string[]> {
  const rows = await ch.query<{ id: string }>(
    `alpha-catalog.removal.ids.${table}`,
    `SELECT DISTINCT id FROM ${table}`,
  );
  return rows.map((r) => r.id);
}

async function deleteIds(ch: ClickHouse, table: string, ids: readonly string[]): Promise<number> {
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    await ch.command(
      `alpha-catalog.removal.delete.${table}`,
      `DELETE FROM ${table} WHERE id IN {ids:Array(String)}`,
      { ids: ids.slice(i, i + DELETE_BATCH) },
    );
  }
  return ids.length;
}

/** Stored markets absent from the sweep that `/markets` no longer returns by condition id. */
async function goneMarkets(
  ctx: RemovalContext,
  sweep: Sweep,
  skipped: string[],
): Promise<{ gone: string[]; kept: number; written: number }> {
  const stored = await ctx.ch.query<{ id: string; condition_id: string }>(
    'alpha-catalog.removal.markets',
    'SELECT id, condition_id FROM alpha_markets FINAL',
  );
  const absent = stored.filter((m) => !sweep.seen.market.has(m.id));
  if (absent.length === 0) return { gone: [], kept: 0, written: 0 };
  const conditions = [...new Set(absent.map((m) => m.condition_id).filter((c) => c !== ''))];
  const r = conditions.length > 0 ? await ctx.metadata.marketsByConditionIds(conditions) : null;
  const still = new Set<string>();
  const stillConditions = new Set<string>();
  let written = 0;
  if (r) {
    for (const x of r.invalid) {
      const id = failedRecordId(x);
      if (id !== null) still.add(id);
      else if (x.recordId.startsWith('condition:')) stillConditions.add(x.recordId.slice(10).toLowerCase());
      else {
        skipped.push('markets: a market asked for by condition id failed its schema without an id');
        return { gone: [], kept: 0, written: 0 };
      }
    }
    const records = await ctx.account(r);
    for (const m of records) still.add(m.id);
    written = await ctx.writeMarkets(records.map((m) => marketRow(m, m.events?.[0]?.id ?? '')));
  }
  const gone = absent.filter((m) => !still.has(m.id) && !stillConditions.has(m.condition_id));
  return { gone: gone.map((m) => m.id), kept: absent.length - gone.length, written };
}

/**
 * Deletes what a complete full sweep did not see (see the module comment); call it only after every
 * read and write of the sweep succeeded.
 */
export async function removeUnseen(ctx: RemovalContext, sweep: Sweep): Promise<RemovalResult> {
  const { ch } = ctx;
  const deleted: RemovalCounts = { events: 0, markets: 0, series: 0, tags: 0, tagRelations: 0 };
  const skipped: string[] = [];
  if (sweep.listed.events === 0) {
    skipped.push('all: the upstream listed no events (taken as a fault; nothing deleted)');
    ctx.log.warn({ listed: sweep.listed }, 'alpha catalog: empty events listing, nothing deleted');
    return { deleted, kept: 0, written: 0, skipped };
  }
  const unseen = async (table: string, kind: 'event' | 'series' | 'tag', listed: number) => {
    if (listed === 0) {
      skipped.push(`${table}: empty listing`);
      return [];
    }
    if (sweep.unidentified.has(kind)) {
      skipped.push(`${table}: a failed record without an id`);
      return [];
    }
    return (await storedIds(ch, table)).filter((id) => !sweep.seen[kind].has(id));
  };
  const events = await unseen('alpha_events', 'event', sweep.listed.events);
  const series = await unseen('alpha_series', 'series', sweep.listed.series);
  const tags = await unseen('alpha_tags', 'tag', sweep.listed.tags);
  const tagsWhole = sweep.listed.tags > 0 && !sweep.unidentified.has('tag');
  let relations: string[] = [];
  if (sweep.listed.tags > 0) {
    const stored = await ch.query<{ id: string; tag_id: string }>(
      'alpha-catalog.removal.relations',
      'SELECT id, tag_id FROM alpha_tag_relations FINAL',
    );
    relations = stored
      .filter((r) => {
        const read = sweep.relations.get(r.tag_id);
        if (read) return !read.has(r.id);
        // A tag the whole listing no longer holds: its relations go with it.
        return tagsWhole && !sweep.seen.tag.has(r.tag_id);
      })
      .map((r) => r.id);
  }
  const markets = await goneMarkets(ctx, sweep, skipped);

  deleted.events = await deleteIds(ch, 'alpha_events', events);
  deleted.markets = await deleteIds(ch, ALPHA_MARKETS.name, markets.gone);
  deleted.series = await deleteIds(ch, 'alpha_series', series);
  deleted.tagRelations = await deleteIds(ch, 'alpha_tag_relations', relations);
  deleted.tags = await deleteIds(ch, 'alpha_tags', tags);
  for (const s of skipped) ctx.log.warn({ reason: s }, 'alpha catalog: removal skipped');
  return { deleted, kept: markets.kept, written: markets.written, skipped };
}
