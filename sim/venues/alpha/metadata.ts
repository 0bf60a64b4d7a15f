/**
 * Replica of alpha's metadata API ("Gamma" in alpha-metadata-api.yaml): /markets, /events, /series, /tags
 * and their by-id / by-slug / tags sub-resources, with offset paging. `outcomes`, `outcomePrices`,
 * `clobTokenIds`, `umaResolutionStatuses` and `shortOutcomes` are JSON-encoded strings, as upstream.
 * `/markets` embeds a lightweight parent `events[]`; markets nested in `/events` have no `events` key.
 */
import type { Catalog, CatalogEvent, CatalogMarket, CatalogSeries, CatalogTag } from '../../world/catalog.ts';
import type { WorldState } from '../../world/state.ts';
import { dec, iso, num, pgTime } from '../format.ts';
import { HttpError, type Reply, type RequestContext, type Route } from '../http.ts';
import { DAY, HOUR, priceChange, volumeWindows } from '../market-views.ts';
import { clampLimit, offsetPage } from '../paging.ts';

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 20;

interface Ctx {
  catalog: Catalog;
  state: WorldState;
}

function notFound(): HttpError {
  return new HttpError(404, { type: 'not found error', error: 'id not found' });
}

function categoryLabel(catalog: Catalog, slug: string): string {
  return catalog.venues.alpha.categories.find((c) => c.slug === slug)?.label ?? slug;
}

function tagObject(t: CatalogTag): Record<string, unknown> {
  return {
    id: t.id,
    label: t.label,
    slug: t.slug,
    forceShow: false,
    publishedAt: pgTime(t.createdAt),
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.createdAt + 30 * DAY),
    forceHide: false,
    isCarousel: false,
  };
}

function tagsOf(catalog: Catalog, slugs: readonly string[]): CatalogTag[] {
  const all = catalog.venues.alpha.tags;
  const out: CatalogTag[] = [];
  for (const s of slugs) {
    const t = all.find((x) => x.slug === s);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

function marketObject(
  c: Ctx,
  m: CatalogMarket,
  withEvents: boolean,
  withTags: boolean,
): Record<string, unknown> {
  const { state, catalog } = c;
  const a = m.alpha!;
  const st = state.status('alpha', m.key);
  const px = state.price('alpha', m.key);
  const vol = volumeWindows(state, 'alpha', m.key);
  const book = state.book('alpha', m.key);
  const liquidity =
    book.bids.reduce((s, l) => s + l.price * l.size, 0) + book.asks.reduce((s, l) => s + l.price * l.size, 0);
  const resolved = st.status === 'resolved';
  const prices = resolved
    ? st.winningIndex === 0
      ? ['1', '0']
      : ['0', '1']
    : [dec(px.last, 4), dec(1 - px.last, 4)];
  const closed = st.status !== 'open';
  const now = state.now();
  const event = catalog.venues.alpha.events.find((e) => e.key === m.eventKey)!;
  const out: Record<string, unknown> = {
    id: m.id,
    question: m.question,
    conditionId: a.conditionId,
    slug: m.slug,
    resolutionSource: '',
    endDate: iso(m.endTime),
    category: categoryLabel(catalog, m.category),
    liquidity: dec(liquidity, 4),
    startDate: iso(m.startTime),
    image: `https://sim.pmdata.local/images/${m.slug}.png`,
    icon: `https://sim.pmdata.local/icons/${m.slug}.png`,
    description: m.description,
    outcomes: JSON.stringify(m.outcomes),
    outcomePrices: JSON.stringify(prices),
    volume: dec(vol.total, 6),
    active: true,
    marketType: 'normal',
    closed,
    marketMakerAddress: '',
    createdAt: iso(m.createdAt),
    updatedAt: iso(Math.max(m.createdAt, px.lastTradeTime ?? m.createdAt, st.closedAt ?? 0)),
    new: now - m.createdAt < DAY,
    featured: false,
    archived: false,
    resolvedBy: a.umaAdapter,
    restricted: true,
    groupItemTitle: m.groupItemTitle ?? '',
    groupItemThreshold: String(a.negRiskIndex ?? 0),
    questionID: a.questionId,
    enableOrderBook: true,
    orderPriceMinTickSize: m.tickSize,
    orderMinSize: m.minOrderSize,
    volumeNum: num(vol.total),
    liquidityNum: num(liquidity, 4),
    endDateIso: iso(m.endTime).slice(0, 10),
    startDateIso: iso(m.startTime).slice(0, 10),
    hasReviewedDates: true,
    volume24hr: num(vol.h24),
    volume1wk: num(vol.wk1),
    volume1mo: num(vol.mo1),
    volume1yr: num(vol.yr1),
    clobTokenIds: JSON.stringify(m.tokenIds),
    umaBond: '500',
    umaReward: '5',
    volume24hrClob: num(vol.h24),
    volume1wkClob: num(vol.wk1),
    volume1moClob: num(vol.mo1),
    volume1yrClob: num(vol.yr1),
    volumeClob: num(vol.total),
    liquidityClob: num(liquidity, 4),
    makerBaseFee: 0,
    takerBaseFee: 0,
    customLiveness: 0,
    acceptingOrders: !closed,
    negRisk: a.negRisk,
    ready: false,
    funded: false,
    acceptingOrdersTimestamp: iso(m.startTime),
    cyom: false,
    competitive: num(Math.min(1, liquidity / 100_000), 6),
    pagerDutyNotificationEnabled: false,
    approved: true,
    rewardsMinSize: 50,
    rewardsMaxSpread: 3.5,
    spread: px.bestAsk !== null && px.bestBid !== null ? num(px.bestAsk - px.bestBid, 4) : 1,
    automaticallyResolved: resolved,
    oneHourPriceChange: priceChange(state, 'alpha', m.key, HOUR),
    oneDayPriceChange: priceChange(state, 'alpha', m.key, DAY),
    oneWeekPriceChange: priceChange(state, 'alpha', m.key, 7 * DAY),
    oneMonthPriceChange: priceChange(state, 'alpha', m.key, 30 * DAY),
    lastTradePrice: num(px.last, 4),
    bestBid: px.bestBid ?? 0,
    bestAsk: px.bestAsk ?? 1,
    automaticallyActive: true,
    clearBookOnStart: true,
    manualActivation: false,
    negRiskOther: false,
    umaResolutionStatuses: JSON.stringify(st.umaHistory.map((h) => h.status)),
    pendingDeployment: false,
    deploying: false,
    rfqEnabled: false,
    holdingRewardsEnabled: false,
    feesEnabled: false,
    requiresTranslation: false,
  };
  if (st.umaStatus) out.umaResolutionStatus = st.umaStatus;
  if (st.closedAt !== null) out.closedTime = pgTime(st.closedAt);
  if (a.negRisk) {
    out.negRiskMarketID = a.negRiskMarketId;
    out.negRiskRequestID = a.negRiskRequestId;
  }
  if (m.sports) {
    out.gameId = `${m.sports.league.toLowerCase()}-${m.sports.awayTeam.abbreviation.toLowerCase()}-${m.sports.homeTeam.abbreviation.toLowerCase()}-${m.sports.gameDate}`;
    out.sportsMarketType = m.groupItemTitle === null ? 'moneyline' : 'moneyline_3way';
    out.gameStartTime = pgTime(m.sports.gameStartTime);
    out.eventStartTime = iso(m.sports.gameStartTime);
    out.teamAID = m.sports.homeTeam.abbreviation;
    out.teamBID = m.sports.awayTeam.abbreviation;
    out.shortOutcomes = JSON.stringify(
      m.groupItemTitle === null
        ? [m.sports.homeTeam.abbreviation, m.sports.awayTeam.abbreviation]
        : ['Yes', 'No'],
    );
  }
  if (withEvents) {
    out.events = [eventObject(c, event, { markets: false, series: false, tags: false })];
  }
  if (withTags) out.tags = tagsOf(catalog, m.tags).map(tagObject);
  return out;
}

function eventAggregates(c: Ctx, e: CatalogEvent) {
  let vol = { total: 0, h24: 0, wk1: 0, mo1: 0, yr1: 0 };
  let liquidity = 0;
  let openInterest = 0;
  let allClosed = true;
  let lastClose = 0;
  for (const k of e.marketKeys) {
    const v = volumeWindows(c.state, 'alpha', k);
    vol = {
      total: vol.total + v.total,
      h24: vol.h24 + v.h24,
      wk1: vol.wk1 + v.wk1,
      mo1: vol.mo1 + v.mo1,
      yr1: vol.yr1 + v.yr1,
    };
    const b = c.state.book('alpha', k);
    liquidity +=
      b.bids.reduce((s, l) => s + l.price * l.size, 0) + b.asks.reduce((s, l) => s + l.price * l.size, 0);
    openInterest += c.state.openInterest('alpha', k);
    const st = c.state.status('alpha', k);
    if (st.status === 'open') allClosed = false;
    lastClose = Math.max(lastClose, st.closedAt ?? 0);
  }
  return { vol, liquidity, openInterest, allClosed, lastClose };
}

function eventObject(
  c: Ctx,
  e: CatalogEvent,
  include: { markets: boolean; series: boolean; tags: boolean },
): Record<string, unknown> {
  const agg = eventAggregates(c, e);
  const series = e.seriesKey ? c.catalog.venues.alpha.series.find((s) => s.key === e.seriesKey) : undefined;
  const out: Record<string, unknown> = {
    id: e.id,
    ticker: e.ticker,
    slug: e.slug,
    title: e.title,
    description: e.description,
    resolutionSource: '',
    startDate: iso(e.startTime),
    creationDate: iso(e.createdAt),
    endDate: iso(e.endTime),
    image: `https://sim.pmdata.local/images/${e.slug}.png`,
    icon: `https://sim.pmdata.local/icons/${e.slug}.png`,
    active: true,
    closed: agg.allClosed,
    archived: false,
    new: c.state.now() - e.createdAt < DAY,
    featured: false,
    restricted: true,
    liquidity: num(agg.liquidity, 4),
    volume: num(agg.vol.total),
    openInterest: num(agg.openInterest, 2),
    sortBy: e.negRisk ? 'price' : 'ascending',
    category: categoryLabel(c.catalog, e.category),
    createdAt: iso(e.createdAt),
    updatedAt: iso(Math.max(e.createdAt, agg.lastClose)),
    competitive: num(Math.min(1, agg.liquidity / 100_000), 6),
    volume24hr: num(agg.vol.h24),
    volume1wk: num(agg.vol.wk1),
    volume1mo: num(agg.vol.mo1),
    volume1yr: num(agg.vol.yr1),
    enableOrderBook: true,
    liquidityClob: num(agg.liquidity, 4),
    negRisk: e.negRisk,
    commentCount: 0,
    cyom: false,
    showAllOutcomes: true,
    showMarketImages: false,
    enableNegRisk: e.negRisk,
    automaticallyActive: true,
    negRiskAugmented: false,
    pendingDeployment: false,
    deploying: false,
    requiresTranslation: false,
  };
  if (e.negRisk) {
    out.negRiskMarketID = e.negRiskMarketId;
    out.negRiskFeeBips = e.negRiskFeeBips ?? 0;
  }
  if (agg.allClosed && agg.lastClose > 0) out.closedTime = iso(agg.lastClose);
  if (series) out.seriesSlug = series.slug;
  if (e.sports) {
    out.startTime = iso(e.sports.gameStartTime);
    out.eventDate = e.sports.gameDate;
    const now = c.state.now();
    out.live = now >= e.sports.gameStartTime && now < e.endTime;
    out.ended = now >= e.endTime;
  }
  if (include.markets) {
    out.markets = e.marketKeys.map((k) => marketObject(c, c.state.market('alpha', k), false, false));
  }
  if (include.series && series) out.series = [seriesObject(c, series, false)];
  if (include.tags) out.tags = tagsOf(c.catalog, e.tags).map(tagObject);
  return out;
}

function seriesObject(c: Ctx, s: CatalogSeries, withEvents: boolean): Record<string, unknown> {
  let volume = 0;
  let volume24hr = 0;
  let liquidity = 0;
  const events = c.catalog.venues.alpha.events.filter((e) => e.seriesKey === s.key);
  for (const e of events) {
    const agg = eventAggregates(c, e);
    volume += agg.vol.total;
    volume24hr += agg.vol.h24;
    liquidity += agg.liquidity;
  }
  const out: Record<string, unknown> = {
    id: s.id,
    ticker: s.slug,
    slug: s.slug,
    title: s.title,
    seriesType: 'single',
    recurrence: s.recurrence,
    image: `https://sim.pmdata.local/images/${s.slug}.png`,
    icon: `https://sim.pmdata.local/icons/${s.slug}.png`,
    layout: 'default',
    active: true,
    closed: false,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    publishedAt: pgTime(s.createdAt),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.createdAt),
    commentsEnabled: false,
    competitive: '0',
    volume24hr: num(volume24hr),
    volume: num(volume),
    liquidity: num(liquidity, 4),
    startDate: iso(s.createdAt),
    commentCount: 0,
  };
  if (withEvents)
    out.events = events.map((e) => eventObject(c, e, { markets: false, series: false, tags: false }));
  return out;
}

/** Tag ids given in `tag_id`, plus their descendants when `related_tags=true`. */
function tagFilter(c: Ctx, q: RequestContext['query']): Set<string> | null {
  const id = q.str('tag_id');
  const slug = q.str('tag_slug');
  if (id === undefined && slug === undefined) return null;
  const tags = c.catalog.venues.alpha.tags;
  const root = tags.find((t) => t.id === id || t.slug === slug);
  if (!root) return new Set();
  const slugs = new Set([root.slug]);
  if (q.bool('related_tags')) {
    let grew = true;
    while (grew) {
      grew = false;
      for (const t of tags) {
        if (t.parentSlug && slugs.has(t.parentSlug) && !slugs.has(t.slug)) {
          slugs.add(t.slug);
          grew = true;
        }
      }
    }
  }
  return slugs;
}

type Sorter<T> = (a: T, b: T) => number;

function orderBy<T>(
  items: T[],
  order: string | undefined,
  ascending: boolean | undefined,
  keys: Record<string, (x: T) => number | string>,
  fallback: (x: T) => number,
): T[] {
  const fields = (order ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const cmp: Sorter<T>[] = fields.map((f) => {
    const k = keys[f];
    if (!k) throw new HttpError(422, { type: 'validation error', error: `order by ${f} is not supported` });
    return (a, b) => {
      const x = k(a);
      const y = k(b);
      return x < y ? -1 : x > y ? 1 : 0;
    };
  });
  const dir = ascending === false ? -1 : 1;
  return [...items].sort((a, b) => {
    for (const c of cmp) {
      const r = c(a, b);
      if (r !== 0) return r * dir;
    }
    return (fallback(a) - fallback(b)) * (fields.length === 0 ? dir : 1);
  });
}

function paged<T>(ctx: RequestContext, items: T[], render: (x: T) => Record<string, unknown>): Reply {
  const limit = clampLimit(ctx.query.int('limit'), DEFAULT_LIMIT, MAX_LIMIT, 0);
  const offset = ctx.query.int('offset') ?? 0;
  if (offset < 0) throw new HttpError(400, { error: 'offset must be >= 0' });
  const page = offsetPage(items, offset, limit, ctx.pageFault);
  return { body: page.items.map(render) };
}

function listMarkets(c: Ctx, ctx: RequestContext): Reply {
  const q = ctx.query;
  const ids = new Set(q.list('id'));
  const slugs = new Set(q.list('slug'));
  const tokens = new Set(q.list('clob_token_ids'));
  const conds = new Set(q.list('condition_ids').map((x) => x.toLowerCase()));
  const questions = new Set(q.list('question_ids').map((x) => x.toLowerCase()));
  const closed = q.bool('closed');
  const tags = tagFilter(c, q);
  const startMin = q.str('start_date_min');
  const startMax = q.str('start_date_max');
  const endMin = q.str('end_date_min');
  const endMax = q.str('end_date_max');
  const volMin = q.num('volume_num_min');
  const volMax = q.num('volume_num_max');
  const uma = q.str('uma_resolution_status');
  const gameId = q.str('game_id');
  let items = c.catalog.venues.alpha.markets.filter((m) => {
    if (ids.size && !ids.has(m.id)) return false;
    if (slugs.size && !slugs.has(m.slug)) return false;
    if (tokens.size && !m.tokenIds.some((t) => tokens.has(t))) return false;
    if (conds.size && !conds.has(m.alpha!.conditionId.toLowerCase())) return false;
    if (questions.size && !questions.has(m.alpha!.questionId.toLowerCase())) return false;
    if (tags && !m.tags.some((t) => tags.has(t))) return false;
    if (startMin && m.startTime < Date.parse(startMin)) return false;
    if (startMax && m.startTime > Date.parse(startMax)) return false;
    if (endMin && m.endTime < Date.parse(endMin)) return false;
    if (endMax && m.endTime > Date.parse(endMax)) return false;
    if (gameId && !(m.sports && gameId.endsWith(m.sports.gameDate))) return false;
    const st = c.state.status('alpha', m.key);
    if (closed !== undefined && (st.status !== 'open') !== closed) return false;
    if (uma !== undefined && st.umaStatus !== uma) return false;
    if (volMin !== undefined || volMax !== undefined) {
      const v = c.state.volume('alpha', m.key).notional;
      if (volMin !== undefined && v < volMin) return false;
      if (volMax !== undefined && v > volMax) return false;
    }
    return true;
  });
  items = orderBy(
    items,
    q.str('order'),
    q.bool('ascending'),
    {
      id: (m) => Number(m.id),
      volume: (m) => c.state.volume('alpha', m.key).notional,
      volumeNum: (m) => c.state.volume('alpha', m.key).notional,
      volume24hr: (m) => c.state.volume('alpha', m.key, DAY).notional,
      startDate: (m) => m.startTime,
      endDate: (m) => m.endTime,
      createdAt: (m) => m.createdAt,
      slug: (m) => m.slug,
    },
    (m) => Number(m.id),
  );
  const withTags = q.bool('include_tag') === true;
  return paged(ctx, items, (m) => marketObject(c, m, true, withTags));
}

function listEvents(c: Ctx, ctx: RequestContext): Reply {
  const q = ctx.query;
  const ids = new Set(q.list('id'));
  const slugs = new Set(q.list('slug'));
  const excluded = new Set(q.list('exclude_tag_id'));
  const excludedSlugs = new Set(
    c.catalog.venues.alpha.tags.filter((t) => excluded.has(t.id)).map((t) => t.slug),
  );
  const closed = q.bool('closed');
  const tags = tagFilter(c, q);
  const recurrence = q.str('recurrence');
  const startMin = q.str('start_date_min');
  const startMax = q.str('start_date_max');
  const endMin = q.str('end_date_min');
  const endMax = q.str('end_date_max');
  let items = c.catalog.venues.alpha.events.filter((e) => {
    if (ids.size && !ids.has(e.id)) return false;
    if (slugs.size && !slugs.has(e.slug)) return false;
    if (tags && !e.tags.some((t) => tags.has(t))) return false;
    if (e.tags.some((t) => excludedSlugs.has(t))) return false;
    if (startMin && e.startTime < Date.parse(startMin)) return false;
    if (startMax && e.startTime > Date.parse(startMax)) return false;
    if (endMin && e.endTime < Date.parse(endMin)) return false;
    if (endMax && e.endTime > Date.parse(endMax)) return false;
    if (recurrence !== undefined) {
      const s = e.seriesKey ? c.catalog.venues.alpha.series.find((x) => x.key === e.seriesKey) : undefined;
      if (s?.recurrence !== recurrence) return false;
    }
    if (closed !== undefined) {
      const allClosed = e.marketKeys.every((k) => c.state.status('alpha', k).status !== 'open');
      if (allClosed !== closed) return false;
    }
    return true;
  });
  items = orderBy(
    items,
    q.str('order'),
    q.bool('ascending'),
    {
      id: (e) => Number(e.id),
      startDate: (e) => e.startTime,
      endDate: (e) => e.endTime,
      createdAt: (e) => e.createdAt,
      volume: (e) => e.marketKeys.reduce((s, k) => s + c.state.volume('alpha', k).notional, 0),
      slug: (e) => e.slug,
    },
    (e) => Number(e.id),
  );
  return paged(ctx, items, (e) => eventObject(c, e, { markets: true, series: true, tags: true }));
}

function listSeries(c: Ctx, ctx: RequestContext): Reply {
  const q = ctx.query;
  const slugs = new Set(q.list('slug'));
  const recurrence = q.str('recurrence');
  const closed = q.bool('closed');
  const cats = new Set(q.list('categories_labels').map((x) => x.toLowerCase()));
  const items = c.catalog.venues.alpha.series.filter((s) => {
    if (slugs.size && !slugs.has(s.slug)) return false;
    if (recurrence !== undefined && s.recurrence !== recurrence) return false;
    if (closed === true) return false;
    if (cats.size && !cats.has(categoryLabel(c.catalog, s.category).toLowerCase())) return false;
    return true;
  });
  return paged(ctx, items, (s) => seriesObject(c, s, true));
}

function byId<T extends { id: string }>(items: readonly T[], id: string): T {
  if (!/^\d+$/.test(id))
    throw new HttpError(422, { type: 'validation error', error: 'id must be an integer' });
  const found = items.find((x) => x.id === id);
  if (!found) throw notFound();
  return found;
}

export function alphaMetadataRoutes(catalog: Catalog, state: WorldState): Route[] {
  const c: Ctx = { catalog, state };
  const v = catalog.venues.alpha;
  return [
    { method: 'GET', path: '/markets', handler: (ctx) => listMarkets(c, ctx) },
    {
      method: 'GET',
      path: '/markets/:id',
      handler: (ctx) => ({
        body: marketObject(c, byId(v.markets, ctx.params.id!), true, ctx.query.bool('include_tag') === true),
      }),
    },
    {
      method: 'GET',
      path: '/markets/:id/tags',
      handler: (ctx) => ({ body: tagsOf(catalog, byId(v.markets, ctx.params.id!).tags).map(tagObject) }),
    },
    {
      method: 'GET',
      path: '/markets/slug/:slug',
      handler: (ctx) => {
        const m = v.markets.find((x) => x.slug === ctx.params.slug);
        if (!m) throw notFound();
        return { body: marketObject(c, m, true, ctx.query.bool('include_tag') === true) };
      },
    },
    { method: 'GET', path: '/events', handler: (ctx) => listEvents(c, ctx) },
    {
      method: 'GET',
      path: '/events/:id',
      handler: (ctx) => ({
        body: eventObject(c, byId(v.events, ctx.params.id!), { markets: true, series: true, tags: true }),
      }),
    },
    {
      method: 'GET',
      path: '/events/:id/tags',
      handler: (ctx) => ({ body: tagsOf(catalog, byId(v.events, ctx.params.id!).tags).map(tagObject) }),
    },
    {
      method: 'GET',
      path: '/events/slug/:slug',
      handler: (ctx) => {
        const e = v.events.find((x) => x.slug === ctx.params.slug);
        if (!e) throw notFound();
        return { body: eventObject(c, e, { markets: true, series: true, tags: true }) };
      },
    },
    { method: 'GET', path: '/series', handler: (ctx) => listSeries(c, ctx) },
    {
      method: 'GET',
      path: '/series/:id',
      handler: (ctx) => ({ body: seriesObject(c, byId(v.series, ctx.params.id!), true) }),
    },
    {
      method: 'GET',
      path: '/tags',
      handler: (ctx) => paged(ctx, v.tags, tagObject),
    },
    {
      method: 'GET',
      path: '/tags/:id',
      handler: (ctx) => ({ body: tagObject(byId(v.tags, ctx.params.id!)) }),
    },
    {
      method: 'GET',
      path: '/tags/:id/related-tags',
      handler: (ctx) => {
        const t = byId(v.tags, ctx.params.id!);
        const related = v.tags.filter((x) => x.parentSlug === t.slug || t.parentSlug === x.slug);
        return {
          body: related.map((r, i) => ({
            id: String(Number(t.id) * 1000 + i),
            tagID: Number(t.id),
            relatedTagID: Number(r.id),
            rank: i + 1,
          })),
        };
      },
    },
    {
      method: 'GET',
      path: '/tags/:id/related-tags/tags',
      handler: (ctx) => {
        const t = byId(v.tags, ctx.params.id!);
        return {
          body: v.tags.filter((x) => x.parentSlug === t.slug || t.parentSlug === x.slug).map(tagObject),
        };
      },
    },
    { method: 'GET', path: '/status', handler: () => ({ body: 'OK' }) },
  ];
}
