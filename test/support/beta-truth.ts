/**
 * Venue beta's ground truth, from the world (catalog + state), for comparing the ingested tables: every
 * market's row (ticker, title, status, prices as the served 4-place dollars, volume and open interest in
 * contracts at the served 2 places, whole-dollar volume, event and series fields, the group label), every
 * event (title, series, status from its markets, market tickers) and series (title, volume), and every
 * trade (id, ticker, count, yes price, taker side). Computed from the world, not from the replica's
 * answers.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Catalog, CatalogMarket } from '../../sim/world/catalog.ts';
import type { WorldState } from '../../sim/world/state.ts';

type Status = 'open' | 'closed' | 'resolved';

export interface TruthMarket {
  ticker: string;
  title: string;
  status: Status;
  result: string | null;
  outcomes: string[];
  prices: (number | null)[];
  last_price: number | null;
  volume: number;
  open_interest: number;
  dollar_volume: number;
  volume_usd: number;
  event_key: string;
  event_title: string;
  series_ticker: string;
  group_label: string | null;
  category: string;
  tags: string[];
  end_time: number;
  created_time: number;
}

export interface TruthEvent {
  event_ticker: string;
  title: string;
  series_ticker: string;
  status: Status;
  market_tickers: string[];
  volume: number;
}

export interface TruthSeries {
  ticker: string;
  title: string;
  volume: number;
}

export interface TruthTrade {
  trade_id: string;
  ticker: string;
  count: number;
  yes_price: number;
  taker_side: 'yes' | 'no';
  created_time: number;
}

export interface BetaTruth {
  markets: Map<string, TruthMarket>;
  events: Map<string, TruthEvent>;
  series: Map<string, TruthSeries>;
  trades: Map<string, TruthTrade>;
}

const dollars4 = (x: number) => Number(x.toFixed(4));
const count2 = (x: number) => Number(x.toFixed(2));

function statusOf(state: WorldState, m: CatalogMarket): Status {
  if (state.now() < m.startTime) return 'open';
  return state.status('beta', m.key).status;
}

export function betaTruth(catalog: Catalog, state: WorldState): BetaTruth {
  const v = catalog.venues.beta;
  const categoryLabel = (slug: string) => v.categories.find((c) => c.slug === slug)?.label ?? slug;
  const tagLabel = (slug: string) => v.tags.find((t) => t.slug === slug)?.label ?? slug;
  const eventOf = new Map(v.events.map((e) => [e.key, e]));
  const seriesOf = new Map(v.series.map((s) => [s.key, s]));
  const markets = new Map<string, TruthMarket>();
  for (const m of v.markets) {
    const e = eventOf.get(m.eventKey);
    const s = e?.seriesKey ? seriesOf.get(e.seriesKey) : undefined;
    const px = state.price('beta', m.key);
    const st = state.status('beta', m.key);
    const volume = count2(state.volume('beta', m.key).shares);
    const last = volume > 0 && px.lastTradeTime !== null ? dollars4(px.last) : null;
    const yesLabel = m.groupItemTitle ?? (m.outcomes[0] === 'Yes' ? m.question : m.outcomes[0]);
    markets.set(m.key, {
      ticker: m.key,
      title: m.question,
      status: statusOf(state, m),
      result: st.status === 'resolved' ? (st.winningIndex === 0 ? 'yes' : 'no') : null,
      outcomes: ['Yes', 'No'],
      prices: last === null ? [null, null] : [last, dollars4(1 - last)],
      last_price: last,
      volume,
      open_interest: count2(state.openInterest('beta', m.key)),
      dollar_volume: Math.floor(volume),
      volume_usd: Math.floor(volume),
      event_key: m.eventKey,
      event_title: e?.title ?? '',
      series_ticker: e?.seriesKey ?? '',
      group_label: e?.mutuallyExclusive && e.marketKeys.length > 1 ? yesLabel : null,
      category: e ? categoryLabel(e.category) : '',
      tags: s ? s.tags.map(tagLabel) : [],
      end_time: m.endTime,
      created_time: m.createdAt,
    });
  }
  const events = new Map<string, TruthEvent>();
  for (const e of v.events) {
    const ms = e.marketKeys.map((k) => markets.get(k) as TruthMarket);
    const statuses = ms.map((m) => m.status);
    events.set(e.key, {
      event_ticker: e.key,
      title: e.title,
      series_ticker: e.seriesKey ?? '',
      status: statuses.some((s) => s === 'open')
        ? 'open'
        : statuses.every((s) => s === 'resolved')
          ? 'resolved'
          : 'closed',
      market_tickers: [...e.marketKeys].sort(),
      volume: count2(ms.reduce((a, m) => a + m.volume, 0)),
    });
  }
  const series = new Map<string, TruthSeries>();
  for (const s of v.series) {
    let shares = 0;
    for (const e of v.events) {
      if (e.seriesKey !== s.key) continue;
      for (const k of e.marketKeys) shares += state.volume('beta', k).shares;
    }
    series.set(s.ticker, { ticker: s.ticker, title: s.title, volume: count2(shares) });
  }
  const trades = new Map<string, TruthTrade>();
  for (const t of state.trades('beta')) {
    const yes = t.outcomeIndex === 0 ? t.price : 1 - t.price;
    trades.set(t.id, {
      trade_id: t.id,
      ticker: t.marketKey,
      count: count2(t.shares),
      yes_price: dollars4(yes),
      taker_side: (t.outcomeIndex === 0) === (t.side === 'buy') ? 'yes' : 'no',
      created_time: t.time,
    });
  }
  return { markets, events, series, trades };
}

const near = (a: unknown, b: unknown) =>
  a === null || b === null || a === undefined || b === undefined
    ? a === b || (a ?? null) === (b ?? null)
    : Math.abs(Number(a) - Number(b)) < 1e-9;

function compare(kind: string, key: string, have: Record<string, unknown>, want: object, diffs: string[]) {
  for (const [k, w] of Object.entries(want)) {
    const h = have[k];
    const same = Array.isArray(w)
      ? Array.isArray(h) &&
        h.length === w.length &&
        w.every((x, i) => (typeof x === 'number' || x === null ? near(h[i], x) : h[i] === x))
      : typeof w === 'number' || (w === null && typeof h === 'number')
        ? near(h, w)
        : JSON.stringify(h) === JSON.stringify(w);
    if (!same) diffs.push(`${kind} ${key}.${k}: stored ${JSON.stringify(h)}, truth ${JSON.stringify(w)}`);
  }
}

const msOf = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * The differences between the stored tables (markets, events, series read with FINAL; trades as stored)
 * and the truth, one line each; [] when they agree (every truth record stored, nothing else).
 */
export async function betaDifferences(
  ch: ClickHouse,
  truth: BetaTruth,
  parts: { trades?: boolean } = {},
): Promise<string[]> {
  const diffs: string[] = [];
  const markets = await ch.query<Record<string, unknown>>(
    'test.beta.markets',
    `SELECT ticker, title, status, result, outcomes, prices, last_price, volume, open_interest, dollar_volume,
            volume_usd, event_key, event_title, series_ticker, group_label, category, tags,
            toUnixTimestamp64Milli(end_time) AS end_time, toUnixTimestamp64Milli(created_time) AS created_time
       FROM beta_markets FINAL`,
  );
  const seen = new Set<string>();
  for (const r of markets) {
    const key = r.ticker as string;
    seen.add(key);
    const t = truth.markets.get(key);
    if (!t) diffs.push(`market ${key}: stored, not in the truth`);
    else
      compare(
        'market',
        key,
        { ...r, end_time: msOf(r.end_time), created_time: msOf(r.created_time) },
        t,
        diffs,
      );
  }
  for (const k of truth.markets.keys()) if (!seen.has(k)) diffs.push(`market ${k}: not stored`);

  const events = await ch.query<Record<string, unknown>>(
    'test.beta.events',
    'SELECT event_ticker, title, series_ticker, status, market_tickers, volume FROM beta_events FINAL',
  );
  seen.clear();
  for (const r of events) {
    const key = r.event_ticker as string;
    seen.add(key);
    const t = truth.events.get(key);
    if (!t) diffs.push(`event ${key}: stored, not in the truth`);
    else compare('event', key, r, t, diffs);
  }
  for (const k of truth.events.keys()) if (!seen.has(k)) diffs.push(`event ${k}: not stored`);

  const series = await ch.query<Record<string, unknown>>(
    'test.beta.series',
    'SELECT ticker, title, volume FROM beta_series FINAL',
  );
  seen.clear();
  for (const r of series) {
    const key = r.ticker as string;
    seen.add(key);
    const t = truth.series.get(key);
    if (!t) diffs.push(`series ${key}: stored, not in the truth`);
    else compare('series', key, r, t, diffs);
  }
  for (const k of truth.series.keys()) if (!seen.has(k)) diffs.push(`series ${k}: not stored`);

  if (parts.trades !== false) diffs.push(...(await tradeDifferences(ch, truth)));
  return diffs;
}

/** Stored trades against the truth's trades: each stored once, every field equal. */
export async function tradeDifferences(ch: ClickHouse, truth: BetaTruth): Promise<string[]> {
  const diffs: string[] = [];
  const rows = await ch.query<Record<string, unknown>>(
    'test.beta.trades',
    `SELECT trade_id, ticker, count, yes_price, taker_side, toUnixTimestamp64Milli(created_time) AS created_time
       FROM beta_trades`,
  );
  const seen = new Set<string>();
  for (const r of rows) {
    const key = r.trade_id as string;
    if (seen.has(key)) {
      diffs.push(`trade ${key}: stored twice`);
      continue;
    }
    seen.add(key);
    const t = truth.trades.get(key);
    if (!t) diffs.push(`trade ${key}: stored, not in the truth`);
    else compare('trade', key, { ...r, created_time: msOf(r.created_time) }, t, diffs);
  }
  let missing = 0;
  for (const k of truth.trades.keys()) if (!seen.has(k)) missing++;
  if (missing > 0) diffs.push(`${missing} trades not stored`);
  return diffs;
}

/** A record written twice with the same content (same key and content hash, without FINAL). */
export async function doubled(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ t: string; k: string; n: string }>(
    'test.beta.doubled',
    `SELECT 'market' AS t, ticker AS k, count() AS n FROM beta_markets GROUP BY ticker, content_hash HAVING n > 1
     UNION ALL SELECT 'event' AS t, event_ticker AS k, count() AS n FROM beta_events
       GROUP BY event_ticker, content_hash HAVING n > 1
     UNION ALL SELECT 'series' AS t, ticker AS k, count() AS n FROM beta_series GROUP BY ticker, content_hash HAVING n > 1
     UNION ALL SELECT 'trade' AS t, trade_id AS k, count() AS n FROM beta_trades GROUP BY trade_id HAVING n > 1`,
  );
  return rows.map((r) => `${r.t} ${r.k} ×${r.n}`);
}
