/**
 * `GET /v2/data/ticks` (docs/ticks.md): the request's rules (one selector, ≤ 31 days, ≤ 50 tickers), the
 * manifest read (`tick_days`, `tick_parts`: what `ticks.compact` wrote), the 404s (not_final,
 * not_available), the charge (api/ticks/charges.ts) and the signed URLs (api/ticks/urls.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { DataTicksQuery, DataTicksResponse, TickPart } from '../../schemas/api/data-ticks.ts';
import { DAY_MS, TICKS_MAX_DAYS, TICKS_MAX_IDS, type TicksSettings } from '../../schemas/ticks.ts';
import { TICK_DATASETS } from '../../schemas/venues/index.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { filtersDigest } from '../pagination.ts';
import { chargeTicks, priceMicros } from '../ticks/charges.ts';
import type { PartUrlSigner } from '../ticks/urls.ts';

/** What a request asks, normalized: equal requests written differently are the same (and reuse a charge). */
export interface TicksRequest {
  dataset: string;
  /** The days, `YYYY-MM-DD`, inclusive. */
  from: string;
  to: string;
  /** A time range's bounds (Unix ms, inclusive), or null for whole days. */
  time: { start: number; end: number } | null;
  /** Distinct tickers, sorted; empty: all. */
  ids: string[];
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function validDate(param: string, v: string): number {
  const ms = Date.parse(`${v}T00:00:00Z`);
  if (!Number.isFinite(ms) || dateOf(ms) !== v)
    throw new ApiError(400, `${param} (${v}) is not a calendar date`);
  return ms;
}

const SELECTORS = 'exactly one of date, start_date+end_date, start_time+end_time';

/** The request's selector and lists checked (400s naming the rule) and normalized. */
export function ticksRequest(q: DataTicksQuery): TicksRequest {
  const given = {
    date: q.date !== undefined,
    dates: q.start_date !== undefined || q.end_date !== undefined,
    times: q.start_time !== undefined || q.end_time !== undefined,
  };
  const count = Object.values(given).filter(Boolean).length;
  if (count !== 1) {
    throw new ApiError(400, `Give ${SELECTORS}${count === 0 ? '' : ` (got ${count} of them)`}.`);
  }
  let from: number;
  let to: number;
  let time: TicksRequest['time'] = null;
  if (given.date) {
    from = to = validDate('date', q.date!);
  } else if (given.dates) {
    if (q.start_date === undefined || q.end_date === undefined) {
      throw new ApiError(400, `start_date and end_date go together: ${SELECTORS}.`);
    }
    from = validDate('start_date', q.start_date);
    to = validDate('end_date', q.end_date);
    if (from > to) throw new ApiError(400, `start_date (${q.start_date}) is after end_date (${q.end_date})`);
  } else {
    if (q.start_time === undefined || q.end_time === undefined) {
      throw new ApiError(400, `start_time and end_time go together: ${SELECTORS}.`);
    }
    if (q.start_time > q.end_time) {
      throw new ApiError(400, `start_time (${q.start_time}) is after end_time (${q.end_time})`);
    }
    time = { start: q.start_time, end: q.end_time };
    from = q.start_time - (q.start_time % DAY_MS);
    to = q.end_time - (q.end_time % DAY_MS);
  }
  const days = (to - from) / DAY_MS + 1;
  if (days > TICKS_MAX_DAYS) {
    throw new ApiError(400, `A request covers at most ${TICKS_MAX_DAYS} days; this one covers ${days}.`);
  }
  let ids: string[] = [];
  if (q.market_id !== undefined) {
    ids = [...new Set(q.market_id.split(',').map((s) => s.trim()))].filter((s) => s !== '').sort();
    if (ids.length === 0) throw new ApiError(400, 'market_id must list at least one ticker');
    if (ids.length > TICKS_MAX_IDS) {
      throw new ApiError(400, `market_id lists at most ${TICKS_MAX_IDS} tickers; it has ${ids.length}.`);
    }
  }
  return { dataset: q.venue, from: dateOf(from), to: dateOf(to), time, ids };
}

interface PartRow {
  date: string;
  part: number;
  path: string;
  rows: string;
  bytes: string;
  id_min: string;
  id_max: string;
  ts_min: string;
  ts_max: string;
}

/** The answer to a checked request: its parts' signed URLs, charged to the request's key. */
export async function ticksAnswer(
  ctx: RouteContext,
  r: TicksRequest,
  o: { request: FastifyRequest; settings: TicksSettings; signer: PartUrlSigner },
): Promise<DataTicksResponse> {
  const ch = ctx.deps.clickhouse;
  const dataset = TICK_DATASETS.find((d) => d.name === r.dataset)!;
  const [span] = await ch.query<{ first: string | null; last: string | null }>(
    'ticks.span',
    `SELECT toString(min(date)) AS first, toString(max(date)) AS last, count() AS n
     FROM tick_days FINAL WHERE dataset = {dataset:String} HAVING n > 0`,
    { dataset: r.dataset },
  );
  const first = span?.first ?? null;
  const last = span?.last ?? null;
  if (first !== null && r.from < first) {
    throw new ApiError(
      404,
      `${r.dataset} data begins ${first}: no day before it is available.`,
      {},
      { code: 'not_available', first_date: first },
    );
  }
  if (last === null || r.to > last) {
    throw new ApiError(
      404,
      `${r.to} of ${r.dataset} is not final yet: a day is compacted once the data is past its end; ` +
        (last === null ? 'no day is final yet.' : `the latest final day is ${last}.`),
      {},
      { code: 'not_final', latest_final_date: last },
    );
  }
  const rows = await ch.query<PartRow>(
    'ticks.parts',
    `SELECT toString(p.date) AS date, p.part AS part, p.path AS path, p.rows AS rows, p.bytes AS bytes,
            p.id_min AS id_min, p.id_max AS id_max,
            toUnixTimestamp64Milli(p.ts_min) AS ts_min, toUnixTimestamp64Milli(p.ts_max) AS ts_max
     FROM (SELECT * FROM tick_parts FINAL
           WHERE dataset = {dataset:String} AND date >= toDate({from:String}) AND date <= toDate({to:String})) AS p
     INNER JOIN (SELECT date, parts FROM tick_days FINAL
                 WHERE dataset = {dataset:String} AND date >= toDate({from:String}) AND date <= toDate({to:String})) AS d
       ON p.date = d.date
     WHERE p.part < d.parts
     ORDER BY p.date, p.part`,
    { dataset: r.dataset, from: r.from, to: r.to },
  );
  const kept = rows.filter(
    (p) =>
      (r.ids.length === 0 || r.ids.some((id) => id >= p.id_min && id <= p.id_max)) &&
      (r.time === null || (Number(p.ts_max) >= r.time.start && Number(p.ts_min) <= r.time.end)),
  );
  const totalBytes = kept.reduce((n, p) => n + Number(p.bytes), 0);
  const totalRows = kept.reduce((n, p) => n + Number(p.rows), 0);
  const key = o.request.apiKey;
  const charge = key
    ? await chargeTicks(ctx.deps.redis, {
        keyId: key.id,
        digest: filtersDigest('/v2/data/ticks', { ...r, time: r.time && [r.time.start, r.time.end] }),
        bytes: totalBytes,
      })
    : { reused: false, chargedMicros: 0 };
  const expiresS = Math.floor(Date.now() / 1000) + o.settings.urlTtlS;
  const base = `${o.request.protocol}://${o.request.host}`;
  const parts: TickPart[] = kept.map((p) => ({
    url: base + o.signer.sign(p.path, expiresS),
    rows: Number(p.rows),
    bytes: Number(p.bytes),
    expires_at: new Date(expiresS * 1000).toISOString(),
    id_min: p.id_min,
    id_max: p.id_max,
    ts_min: Number(p.ts_min),
    ts_max: Number(p.ts_max),
  }));
  return {
    venue: r.dataset,
    status: 'final',
    format: 'parquet',
    compression: 'zstd',
    schema: dataset.columns.map((c) => ({ name: c.name, type: c.type })),
    sort_order: [...dataset.sortOrder],
    start_date: r.from,
    end_date: r.to,
    parts,
    total_rows: totalRows,
    total_bytes: totalBytes,
    price_usd: priceMicros(totalBytes) / 1_000_000,
    charged_usd: charge.chargedMicros / 1_000_000,
    reused: charge.reused,
  };
}
