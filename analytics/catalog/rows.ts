/**
 * The rows of the five catalog lists from what the build read (analytics/catalog/read.ts) and the
 * current prices: a pure function, one pass over markets, then events, series, tags and categories.
 * Rules: docs/catalog.md "Rules" (rules.ts, hierarchy.ts). Docs follow schemas/api/alpha-catalog.ts.
 */
import type { RowOf } from '../../core/clickhouse/table.ts';
import { searchWords } from '../../core/search-words.ts';
import type {
  AlphaEventDoc,
  AlphaMarket,
  AlphaOutcome,
  AlphaSeries,
  MarketStatus,
} from '../../schemas/api/alpha-catalog.ts';
import type { MarketRollingMetrics } from '../../schemas/api/alpha-market-data.ts';
import type {
  ALPHA_CATEGORY_LIST,
  ALPHA_EVENT_LIST,
  ALPHA_MARKET_LIST,
  ALPHA_SERIES_LIST,
  ALPHA_TAG_LIST,
} from '../../schemas/tables/alpha-catalog-lists.ts';
import { MAX_NESTED_MARKETS } from '../../schemas/tables/alpha-catalog-lists.ts';
import type { CurrentPrice } from '../shared/current-price.ts';
import { type AssignedIds, canonicalIds } from './canonical.ts';
import { tagHierarchy } from './hierarchy.ts';
import type { CatalogSources, EventSource, MarketAnalytics, MarketSource, TagSource } from './read.ts';
import { categorySlug, eventStatus, marketStatus, roundUsd, sumRolling, winningSide } from './rules.ts';

export type MarketListRow = RowOf<typeof ALPHA_MARKET_LIST>;
export type EventListRow = RowOf<typeof ALPHA_EVENT_LIST>;
export type SeriesListRow = RowOf<typeof ALPHA_SERIES_LIST>;
export type TagListRow = RowOf<typeof ALPHA_TAG_LIST>;
export type CategoryListRow = RowOf<typeof ALPHA_CATEGORY_LIST>;

export interface CatalogLists {
  markets: MarketListRow[];
  events: EventListRow[];
  series: SeriesListRow[];
  tags: TagListRow[];
  categories: CategoryListRow[];
}

/** What the build derived besides the catalog tables. */
export interface CatalogFigures {
  /** Condition → payout numerators, for the conditions resolved at or before now. */
  resolutions: ReadonlyMap<string, readonly string[]>;
  totals: ReadonlyMap<string, MarketAnalytics>;
  rolling: ReadonlyMap<string, MarketRollingMetrics>;
  /** Token → current price (analytics/shared/current-price.ts). */
  prices: ReadonlyMap<string, CurrentPrice | null>;
  /** First-outcome token → Σ price × size of its newest book. */
  liquidity: ReadonlyMap<string, number>;
  /** Alpha's canonical ids stored in canonical_outcomes (analytics/catalog/canonical.ts). */
  canonical?: AssignedIds;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const byId = <T extends { id: string }>(rows: readonly T[]) => new Map(rows.map((r) => [r.id, r]));
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The rolling-window columns the market and event lists filter and sort on (0 without metrics). */
const windowColumns = (r: MarketRollingMetrics | null) => ({
  volume_1d: r?.volume_1d ?? 0,
  volume_7d: r?.volume_7d ?? 0,
  volume_30d: r?.volume_30d ?? 0,
  trades_1d: r?.trades_1d ?? 0,
  trades_7d: r?.trades_7d ?? 0,
  trades_30d: r?.trades_30d ?? 0,
});

interface MarketBuilt {
  row: MarketListRow;
  doc: AlphaMarket;
  status: MarketStatus;
  closedTime: number | null;
  trades: number;
  enableOrderBook: boolean;
}

function eventTags(e: EventSource, tags: ReadonlyMap<string, TagSource>): TagSource[] {
  const out: TagSource[] = [];
  for (const id of new Set(e.tag_ids)) {
    const t = tags.get(id);
    if (t) out.push(t);
  }
  return out;
}

function buildMarket(
  m: MarketSource,
  event: EventSource | undefined,
  tagSlugs: string[],
  canonical: readonly (string | null)[],
  f: CatalogFigures,
): MarketBuilt {
  // The chain's tables hold lowercase hex; the metadata's condition id is matched whatever its case.
  const condition = m.condition_id.toLowerCase();
  const numerators = condition === '' ? null : (f.resolutions.get(condition) ?? null);
  const status: MarketStatus = marketStatus(numerators, m.closed);
  const outcomes: AlphaOutcome[] = m.outcomes.map((label, i) => {
    const token = m.clob_token_ids[i] ?? null;
    return {
      label,
      token_id: token,
      canonical_id: canonical[i] ?? null,
      price: token === null ? null : (f.prices.get(token)?.price ?? null),
    };
  });
  const first = m.clob_token_ids[0];
  const liquidity = first === undefined ? 0 : roundUsd(f.liquidity.get(first) ?? 0);
  const totals = f.totals.get(condition);
  const rolling = f.rolling.get(condition) ?? null;
  const doc: AlphaMarket = {
    condition_id: m.condition_id,
    question_id: m.question_id === '' ? null : m.question_id,
    market_id: m.id,
    market_slug: m.slug,
    title: m.question,
    description: m.description,
    status,
    winning_side: status === 'resolved' ? winningSide(numerators, m.outcomes) : null,
    start_time: iso(m.start_date),
    end_time: iso(m.end_date),
    close_time: iso(m.closed_time),
    created_time: iso(m.created_at),
    image_url: m.image,
    event_id: m.event_id === '' ? null : m.event_id,
    event_slug: event ? event.slug : null,
    event_title: event ? event.title : null,
    outcomes,
    total_volume_usd: totals?.volumeUsd ?? 0,
    liquidity_usd: liquidity,
    tags: tagSlugs,
    is_neg_risk: m.neg_risk,
    rolling_metrics: rolling,
  };
  const row: MarketListRow = {
    market_id: m.id,
    condition_id: m.condition_id,
    question_id: m.question_id,
    slug: m.slug,
    event_id: m.event_id,
    event_slug: event?.slug ?? '',
    title: m.question,
    words: searchWords(m.question),
    status,
    token_ids: outcomes.map((o) => o.token_id ?? ''),
    canonical_ids: outcomes.map((o) => o.canonical_id ?? ''),
    tags: tagSlugs,
    price: outcomes[0]?.price ?? null,
    volume: doc.total_volume_usd,
    liquidity,
    open_interest: totals?.openInterestUsd ?? 0,
    ...windowColumns(rolling),
    oi_change_1d: rolling?.oi_change_1d ?? 0,
    oi_change_7d: rolling?.oi_change_7d ?? 0,
    oi_change_30d: rolling?.oi_change_30d ?? 0,
    created_at: m.created_at,
    end_date: m.end_date,
    doc: JSON.stringify(doc),
  };
  return {
    row,
    doc,
    status,
    closedTime: m.closed_time,
    trades: totals?.trades ?? 0,
    enableOrderBook: m.enable_order_book,
  };
}

interface Rollup {
  event_count: number;
  open_event_count: number;
  market_count: number;
  volume: number;
  liquidity: number;
  trades_all_time: number;
}

const emptyRollup = (): Rollup => ({
  event_count: 0,
  open_event_count: 0,
  market_count: 0,
  volume: 0,
  liquidity: 0,
  trades_all_time: 0,
});

function addEvent(r: Rollup, e: EventListRow): void {
  r.event_count++;
  if (e.status === 'open') r.open_event_count++;
  r.market_count += e.market_count;
  r.volume = roundUsd(r.volume + e.volume);
  r.liquidity = roundUsd(r.liquidity + e.liquidity);
  r.trades_all_time += e.trades_all_time;
}

export function catalogLists(src: CatalogSources, f: CatalogFigures): CatalogLists {
  const events = [...src.events].sort((a, b) => compareText(a.id, b.id));
  const eventsById = byId(events);
  const tagsById = byId(src.tags);
  const seriesById = byId(src.series);

  // Series membership: either side listing the other.
  const seriesOfEvent = new Map<string, string[]>(events.map((e) => [e.id, []]));
  for (const e of events) {
    for (const s of e.series_ids) {
      const list = seriesOfEvent.get(e.id)!;
      if (seriesById.has(s) && !list.includes(s)) list.push(s);
    }
  }
  for (const s of [...src.series].sort((a, b) => compareText(a.id, b.id))) {
    for (const eid of s.event_ids) {
      const list = seriesOfEvent.get(eid);
      if (list && !list.includes(s.id)) list.push(s.id);
    }
  }
  const tagsOfEvent = new Map(events.map((e) => [e.id, eventTags(e, tagsById)]));

  // Markets, grouped by event.
  const marketsOfEvent = new Map<string, MarketBuilt[]>(events.map((e) => [e.id, []]));
  const markets: MarketListRow[] = [];
  const canonical = canonicalIds(src.markets, (m) => eventsById.get(m.event_id)?.title ?? '', f.canonical);
  for (const m of [...src.markets].sort((a, b) => compareText(a.id, b.id))) {
    const event = eventsById.get(m.event_id);
    const tags = event ? tagsOfEvent.get(event.id)!.map((t) => t.slug) : [];
    const built = buildMarket(m, event, tags, canonical.get(m.id)!, f);
    markets.push(built.row);
    if (event) marketsOfEvent.get(event.id)!.push(built);
  }

  // Events.
  const eventRows: EventListRow[] = [];
  for (const e of events) {
    const ms = marketsOfEvent.get(e.id)!;
    const { status, closedTime } = eventStatus(
      ms.map((m) => ({ status: m.status, closedTime: m.closedTime })),
    );
    const tags = tagsOfEvent.get(e.id)!;
    const series = seriesOfEvent.get(e.id)!.map((id) => seriesById.get(id)!);
    const rolling = sumRolling(ms.map((m) => m.doc.rolling_metrics));
    const sum = (pick: (m: MarketBuilt) => number) => ms.reduce((s, m) => s + pick(m), 0);
    const volume = roundUsd(sum((m) => m.row.volume));
    const liquidity = roundUsd(sum((m) => m.row.liquidity));
    const openInterest = roundUsd(sum((m) => m.row.open_interest));
    const trades = sum((m) => m.trades);
    const created = e.creation_date ?? e.created_at;
    const doc: AlphaEventDoc = {
      id: e.id,
      ticker: e.ticker,
      slug: e.slug,
      title: e.title,
      description: e.description,
      category: e.category,
      tags: tags.map((t) => ({ id: t.id, label: t.label, slug: t.slug })),
      series: series.map((s) => ({
        id: s.id,
        slug: s.slug,
        title: s.title,
        recurrence: s.recurrence === '' ? null : s.recurrence,
      })),
      image_url: e.image,
      icon_url: e.icon,
      resolution_source: e.resolution_source,
      start_date: iso(e.start_date),
      end_date: iso(e.end_date),
      creation_date: iso(created),
      closed_time: iso(closedTime),
      neg_risk: e.neg_risk,
      neg_risk_market_id: e.neg_risk_market_id,
      enable_order_book: ms.some((m) => m.enableOrderBook),
      status,
      market_count: ms.length,
      total_volume_usd: volume,
      trades_all_time: trades,
      liquidity_usd: liquidity,
      current_oi_usd: openInterest,
      rolling_metrics: rolling,
    };
    eventRows.push({
      event_id: e.id,
      slug: e.slug,
      title: e.title,
      words: searchWords(e.title),
      category: e.category,
      category_slug: categorySlug(e.category),
      status,
      tags: tags.map((t) => t.slug),
      series_slugs: series.map((s) => s.slug),
      created_at: created,
      start_date: e.start_date,
      end_date: e.end_date,
      market_count: ms.length,
      volume,
      liquidity,
      open_interest: openInterest,
      ...windowColumns(rolling),
      trades_all_time: trades,
      doc: JSON.stringify(doc),
      markets: [...ms]
        .sort((a, b) => b.row.volume - a.row.volume || compareText(a.row.market_id, b.row.market_id))
        .slice(0, MAX_NESTED_MARKETS)
        .map((m) => m.row.doc),
    });
  }
  const eventRowById = new Map(eventRows.map((r) => [r.event_id, r]));

  // Series.
  const eventsOfSeries = new Map<string, EventListRow[]>(src.series.map((s) => [s.id, []]));
  for (const e of events) {
    for (const s of seriesOfEvent.get(e.id)!) eventsOfSeries.get(s)!.push(eventRowById.get(e.id)!);
  }
  const seriesRows: SeriesListRow[] = [...src.series]
    .sort((a, b) => compareText(a.id, b.id))
    .map((s) => {
      const r = emptyRollup();
      for (const e of eventsOfSeries.get(s.id)!) addEvent(r, e);
      const doc: AlphaSeries = {
        id: s.id,
        slug: s.slug,
        ticker: s.ticker,
        title: s.title,
        description: '',
        series_type: s.series_type,
        recurrence: s.recurrence === '' ? null : s.recurrence,
        image_url: s.image,
        icon_url: s.icon,
        active: r.open_event_count > 0,
        closed: r.open_event_count === 0,
        event_count: r.event_count,
        open_event_count: r.open_event_count,
        total_volume_usd: r.volume,
        liquidity_usd: r.liquidity,
        trades_all_time: r.trades_all_time,
        created_time: iso(s.created_at),
      };
      return {
        series_id: s.id,
        slug: s.slug,
        recurrence: s.recurrence,
        active: doc.active,
        event_count: r.event_count,
        open_event_count: r.open_event_count,
        volume: r.volume,
        liquidity: r.liquidity,
        trades_all_time: r.trades_all_time,
        doc: JSON.stringify(doc),
      };
    });

  // Categories: by slug, labelled with the label most of their events use (ties: the first in order).
  const categories = new Map<string, { labels: Map<string, number>; rollup: Rollup }>();
  for (const e of eventRows) {
    if (e.category === '' || e.category_slug === '') continue;
    let c = categories.get(e.category_slug);
    if (!c) {
      c = { labels: new Map(), rollup: emptyRollup() };
      categories.set(e.category_slug, c);
    }
    c.labels.set(e.category, (c.labels.get(e.category) ?? 0) + 1);
    addEvent(c.rollup, e);
  }
  const categoryRows: CategoryListRow[] = [...categories.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([slug, c]) => {
      const label = [...c.labels.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0]![0];
      return { category: label, slug, ...c.rollup };
    });

  // Tags: rollups of their events, then the hierarchy.
  const tagRollups = new Map<string, Rollup>(src.tags.map((t) => [t.id, emptyRollup()]));
  for (const e of events) {
    for (const t of tagsOfEvent.get(e.id)!) addEvent(tagRollups.get(t.id)!, eventRowById.get(e.id)!);
  }
  const categorySlugs = new Set(categories.keys());
  const places = tagHierarchy(
    src.tags.map((t) => ({
      id: t.id,
      slug: t.slug,
      eventCount: tagRollups.get(t.id)!.event_count,
      isCategory: categorySlugs.has(t.slug),
    })),
    src.relations,
  );
  const tagRows: TagListRow[] = [...src.tags]
    .sort((a, b) => compareText(a.id, b.id))
    .map((t) => {
      const place = places.get(t.id)!;
      return {
        tag_id: t.id,
        slug: t.slug,
        label: t.label,
        words: searchWords(t.label),
        is_category: categorySlugs.has(t.slug),
        parent_slug: place.parentSlug,
        children: place.children,
        subtag_count: place.children.length,
        ...tagRollups.get(t.id)!,
      };
    });

  return { markets, events: eventRows, series: seriesRows, tags: tagRows, categories: categoryRows };
}
