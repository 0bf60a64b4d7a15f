/**
 * Paged reads of alpha's metadata API over the shared HTTP client (ingest/http/client.ts): offset pages
 * of `pageSize` (500, the upstream's maximum) ordered by id, every record checked on its own
 * (payloads.ts), records deduplicated by id across pages.
 *
 * Duplicate and overlapping pages: the upstream sometimes serves a page that repeats records of an
 * earlier one while the offset moves on, so the repeated part hides records. A page holding an id already
 * read at an earlier offset, or a record that failed its schema, is read again (up to `rereads` times):
 * each read adds the records not yet held, a clean version replacing one whose nested records failed.
 * Records that still repeat after that are dropped (deduplicated); failed ones stay quarantined.
 */
import { RetryableError } from '../../../../core/errors.ts';
import type { HttpClient, QueryValue } from '../../../http/client.ts';
import {
  CHECKERS,
  type EventPayload,
  type InvalidRecord,
  type MarketPayload,
  type RelatedTagPayload,
  type SeriesPayload,
  type TagPayload,
} from './payloads.ts';

/** A checked record: its typed value (if it passed) and the records of it that failed (itself or nested). */
export interface Checked<T> {
  value: T | null;
  invalid: InvalidRecord[];
}

/** An event with its nested markets that passed their schema (the failing ones are in `invalid`). */
export interface EventRecord {
  event: EventPayload;
  markets: MarketPayload[];
}

export interface ReadResult<T> {
  records: T[];
  /** Failed records, once per kind and id. */
  invalid: InvalidRecord[];
  requests: number;
  /** Pages read again after a repeat or a failed record. */
  rereads: number;
}

export interface AlphaMetadataClient {
  /** The upstream's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
  /** Events with nested markets, series and tags; `closed` as the upstream's filter. */
  events(opts: { closed: boolean }): Promise<ReadResult<EventRecord>>;
  series(): Promise<ReadResult<SeriesPayload>>;
  tags(): Promise<ReadResult<TagPayload>>;
  relatedTags(tagId: string): Promise<ReadResult<RelatedTagPayload>>;
  /** Markets by condition id (≤ 100 per request), each with its parent `events[]`. */
  marketsByConditionIds(conditionIds: readonly string[]): Promise<ReadResult<MarketPayload>>;
}

export interface AlphaMetadataClientOptions {
  http: HttpClient;
  /** Records per page (default 500). */
  pageSize?: number;
  /** Extra reads of a page that repeats earlier records or holds a failed one (default 3). */
  rereads?: number;
}

type Check<T> = (raw: unknown) => Checked<T> & { id: string | null; clean: boolean };

function simple<T>(checker: {
  check(raw: unknown): { ok: true; value: T } | { ok: false; invalid: InvalidRecord };
}): Check<T & { id: string }> {
  return (raw) => {
    const r = checker.check(raw);
    return r.ok
      ? { value: r.value as T & { id: string }, invalid: [], id: (r.value as { id: string }).id, clean: true }
      : { value: null, invalid: [r.invalid], id: null, clean: false };
  };
}

/** An event and each of its nested markets, series and tags checked on its own. */
const checkEvent: Check<EventRecord & { id: string }> = (raw) => {
  const r = CHECKERS.event.check(raw);
  if (!r.ok) return { value: null, invalid: [r.invalid], id: null, clean: false };
  const invalid: InvalidRecord[] = [];
  const markets: MarketPayload[] = [];
  for (const m of r.value.markets ?? []) {
    const c = CHECKERS.market.check(m);
    if (c.ok) markets.push(c.value);
    else invalid.push(c.invalid);
  }
  for (const s of r.value.series ?? []) {
    const c = CHECKERS.series.check(s);
    if (!c.ok) invalid.push(c.invalid);
  }
  for (const t of r.value.tags ?? []) {
    const c = CHECKERS.tag.check(t);
    if (!c.ok) invalid.push(c.invalid);
  }
  return {
    value: { id: r.value.id, event: r.value, markets },
    invalid,
    id: r.value.id,
    clean: invalid.length === 0,
  };
};

export function createAlphaMetadataClient(options: AlphaMetadataClientOptions): AlphaMetadataClient {
  const { http } = options;
  const pageSize = options.pageSize ?? 500;
  const rereads = options.rereads ?? 3;

  async function read<T extends { id: string }>(
    path: string,
    query: Record<string, QueryValue>,
    check: Check<T>,
    paged: boolean,
  ): Promise<ReadResult<T>> {
    const held = new Map<string, { value: T; clean: boolean }>();
    const invalid = new Map<string, InvalidRecord>();
    let requests = 0;
    let again = 0;
    for (let offset = 0; ; offset += pageSize) {
      const before = new Set(held.keys());
      let length = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) again++;
        requests++;
        const body = await http.getJson(path, paged ? { ...query, limit: pageSize, offset } : query);
        if (!Array.isArray(body))
          throw new RetryableError(`Expected a list from ${path}, got ${typeof body}`);
        length = body.length;
        let repeated = 0;
        let failed = 0;
        for (const raw of body) {
          const r = check(raw);
          for (const bad of r.invalid) invalid.set(`${bad.kind}\u0000${bad.recordId}`, bad);
          if (!r.clean) failed++;
          if (r.value === null || r.id === null) continue;
          if (before.has(r.id)) {
            repeated++;
            continue;
          }
          const cur = held.get(r.id);
          if (!cur || (!cur.clean && r.clean)) held.set(r.id, { value: r.value, clean: r.clean });
        }
        if (repeated === 0 && failed === 0) break;
      }
      if (!paged || length < pageSize) break;
    }
    return {
      records: [...held.values()].map((h) => h.value),
      invalid: [...invalid.values()],
      requests,
      rereads: again,
    };
  }

  const byId = { order: 'id', ascending: true } as const;
  return {
    clock: () => http.clock(),
    events: ({ closed }) => read('/events', { ...byId, closed }, checkEvent, true),
    series: () => read('/series', byId, simple(CHECKERS.series), true),
    tags: () => read('/tags', byId, simple(CHECKERS.tag), true),
    relatedTags: (tagId) =>
      read(`/tags/${encodeURIComponent(tagId)}/related-tags`, {}, simple(CHECKERS.tag_relation), false),
    async marketsByConditionIds(conditionIds) {
      const out: ReadResult<MarketPayload> = { records: [], invalid: [], requests: 0, rereads: 0 };
      for (let i = 0; i < conditionIds.length; i += 100) {
        const r = await read(
          '/markets',
          { ...byId, condition_ids: conditionIds.slice(i, i + 100) },
          simple(CHECKERS.market),
          true,
        );
        out.records.push(...r.records);
        out.invalid.push(...r.invalid);
        out.requests += r.requests;
        out.rereads += r.rereads;
      }
      return out;
    },
  };
}
