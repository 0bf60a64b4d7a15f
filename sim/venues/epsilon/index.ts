/**
 * Replica of epsilon's public API (epsilon-api.yaml, "Probable"): events (list, by id, by slug, tags),
 * markets (list with `pagination`, by id), tags, and the order-book data endpoints /book, /midpoint,
 * /price, POST /prices, /prices-history, all under /public/api/v1. Unlike alpha's metadata API,
 * `outcomes` and `clobTokenIds` are real JSON arrays here. A market also carries the live API's `image`
 * (a made-up URL from its slug) and `marketVariant` (`marketVariant()`), which the file does not list.
 */
import { createHash } from 'node:crypto';
import type { Catalog, CatalogEvent, CatalogMarket, CatalogTag } from '../../world/catalog.ts';
import type { BookLevel, WorldState } from '../../world/state.ts';
import { dec, iso, num, unixS } from '../format.ts';
import { HttpError, type RequestContext, type Route } from '../http.ts';
import { intervalMs, MINUTE, priceHistory } from '../market-views.ts';
import { clampLimit, offsetPage } from '../paging.ts';

const BASE = '/public/api/v1';

/**
 * A market's `marketVariant`: a game between two teams is `SPORTS_TEAM_MATCH` (every sports topic of the
 * world is one), anything else `DEFAULT` (the world has no up/down, tweet-count or one-on-one markets).
 */
export function marketVariant(m: CatalogMarket): 'SPORTS_TEAM_MATCH' | 'DEFAULT' {
  return m.sports ? 'SPORTS_TEAM_MATCH' : 'DEFAULT';
}

function notFound(what: string): HttpError {
  return new HttpError(404, { detail: `${what} not found` });
}

export function epsilonRoutes(catalog: Catalog, state: WorldState): Route[] {
  const v = catalog.venues.epsilon;
  const eventByKey = new Map(v.events.map((e) => [e.key, e]));

  const tagObject = (t: CatalogTag) => ({ id: Number(t.id), label: t.label, slug: t.slug });
  const tagsOf = (slugs: readonly string[]) =>
    slugs.map((s) => v.tags.find((t) => t.slug === s)).filter((t): t is CatalogTag => t !== undefined);

  const marketObject = (m: CatalogMarket): Record<string, unknown> => {
    const st = state.status('epsilon', m.key);
    const px = state.price('epsilon', m.key);
    const resolved = st.status === 'resolved';
    const yes = resolved ? (st.winningIndex === 0 ? 1 : 0) : px.last;
    return {
      id: m.id,
      question: m.question,
      market_slug: m.slug,
      outcomes: m.outcomes,
      outcomePrices: [dec(yes, 4), dec(1 - yes, 4)],
      active: st.status === 'open',
      closed: st.status !== 'open',
      clobTokenIds: m.tokenIds,
      conditionId: m.chain!.conditionId,
      questionId: m.chain!.questionId,
      event_id: Number(m.eventKey),
      groupItemTitle: m.groupItemTitle,
      description: m.description,
      startDate: iso(m.startTime),
      endDate: iso(m.endTime),
      volume: num(state.volume('epsilon', m.key).notional),
      lastTradePrice: num(px.last, 4),
      bestBid: px.bestBid,
      bestAsk: px.bestAsk,
      tickSize: m.tickSize,
      minOrderSize: m.minOrderSize,
      winningOutcome: resolved ? m.outcomes[st.winningIndex ?? 0] : null,
      resolvedAt: st.resolvedAt === null ? null : iso(st.resolvedAt),
      image: `https://sim.pmdata.local/epsilon/markets/${m.slug}.png`,
      marketVariant: marketVariant(m),
    };
  };

  const eventStatus = (e: CatalogEvent) =>
    e.marketKeys.some((k) => state.status('epsilon', k).status === 'open') ? 'active' : 'closed';

  const eventObject = (e: CatalogEvent): Record<string, unknown> => ({
    id: e.id,
    slug: e.ticker,
    title: e.title,
    description: e.description,
    status: eventStatus(e),
    markets: e.marketKeys.map((k) => marketObject(state.market('epsilon', k))),
    volume: num(e.marketKeys.reduce((s, k) => s + state.volume('epsilon', k).notional, 0)),
    startDate: iso(e.startTime),
    endDate: iso(e.endTime),
    createdAt: iso(e.createdAt),
    negRisk: e.mutuallyExclusive && e.marketKeys.length > 1,
    tags: tagsOf(e.tags).map(tagObject),
  });

  const event = (ctx: RequestContext): CatalogEvent => {
    const e = eventByKey.get(ctx.params.id ?? '');
    if (!e) throw notFound('Event');
    return e;
  };

  const token = (id: string | undefined) => {
    if (!id) throw new HttpError(400, { detail: 'token_id is required' });
    const hit = state.index.marketByToken('epsilon', id);
    if (!hit) throw notFound('Order book');
    return hit;
  };

  const level = (l: BookLevel) => ({ price: dec(l.price, 4), size: dec(l.size, 2) });
  const book = (tokenId: string | undefined) => {
    const { market, outcomeIndex } = token(tokenId);
    const b = state.book('epsilon', market.key, outcomeIndex);
    const body = {
      market: market.chain!.conditionId,
      asset_id: market.tokenIds[outcomeIndex],
      timestamp: String(b.timestamp),
      hash: '',
      bids: [...b.bids].reverse().map(level),
      asks: [...b.asks].reverse().map(level),
      tick_size: String(market.tickSize),
      min_order_size: String(market.minOrderSize),
    };
    body.hash = createHash('sha1').update(JSON.stringify(body)).digest('hex');
    return body;
  };
  const best = (tokenId: string | undefined, side: string | undefined) => {
    const s = (side ?? '').toUpperCase();
    if (s !== 'BUY' && s !== 'SELL') throw new HttpError(400, { detail: 'side must be BUY or SELL' });
    const b = book(tokenId);
    const lv = s === 'BUY' ? b.bids[b.bids.length - 1] : b.asks[b.asks.length - 1];
    if (!lv) throw notFound('Price');
    return { side: s, price: lv.price };
  };

  return [
    {
      method: 'GET',
      path: `${BASE}/events`,
      handler: (ctx) => {
        const q = ctx.query;
        const page = q.int('page') ?? 1;
        if (page < 1) throw new HttpError(400, { detail: 'page must be >= 1' });
        const limit = clampLimit(q.int('limit'), 20, 100);
        const status = q.str('status') ?? 'active';
        if (!['active', 'closed', 'all'].includes(status))
          throw new HttpError(400, { detail: 'invalid status' });
        const tagIds = new Set(q.list('tag_id'));
        const tagSlugs = new Set(v.tags.filter((t) => tagIds.has(t.id)).map((t) => t.slug));
        const items = v.events.filter((e) => {
          if (status !== 'all' && eventStatus(e) !== status) return false;
          if (tagIds.size && !e.tags.some((t) => tagSlugs.has(t))) return false;
          return true;
        });
        const sort = q.str('sort');
        const sorted =
          sort === 'volume'
            ? [...items].sort(
                (a, b) =>
                  b.marketKeys.reduce((s, k) => s + state.volume('epsilon', k).notional, 0) -
                    a.marketKeys.reduce((s, k) => s + state.volume('epsilon', k).notional, 0) ||
                  Number(a.id) - Number(b.id),
              )
            : items;
        return { body: offsetPage(sorted, (page - 1) * limit, limit, ctx.pageFault).items.map(eventObject) };
      },
    },
    { method: 'GET', path: `${BASE}/events/:id`, handler: (ctx) => ({ body: eventObject(event(ctx)) }) },
    {
      method: 'GET',
      path: `${BASE}/events/slug/:slug`,
      handler: (ctx) => {
        const e = v.events.find((x) => x.ticker === ctx.params.slug);
        if (!e) throw notFound('Event');
        return { body: eventObject(e) };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/events/:id/tags`,
      handler: (ctx) => ({ body: tagsOf(event(ctx).tags).map(tagObject) }),
    },
    {
      method: 'GET',
      path: `${BASE}/markets`,
      handler: (ctx) => {
        const q = ctx.query;
        const page = q.int('page') ?? 1;
        if (page < 1) throw new HttpError(400, { detail: 'page must be >= 1' });
        const limit = clampLimit(q.int('limit'), 20, 100);
        const active = q.bool('active');
        const eventId = q.str('event_id');
        const items = v.markets.filter((m) => {
          if (eventId !== undefined && m.eventKey !== eventId) return false;
          if (active !== undefined && (state.status('epsilon', m.key).status === 'open') !== active)
            return false;
          return true;
        });
        const p = offsetPage(items, (page - 1) * limit, limit, ctx.pageFault);
        return {
          body: {
            markets: p.items.map(marketObject),
            pagination: { page, limit, total: items.length, hasMore: p.nextOffset !== null },
          },
        };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/markets/:id`,
      handler: (ctx) => {
        const m = state.index.market('epsilon', ctx.params.id ?? '');
        if (!m) throw notFound('Market');
        return { body: marketObject(m) };
      },
    },
    { method: 'GET', path: `${BASE}/tags`, handler: () => ({ body: v.tags.map(tagObject) }) },
    { method: 'GET', path: `${BASE}/book`, handler: (ctx) => ({ body: book(ctx.query.str('token_id')) }) },
    {
      method: 'GET',
      path: `${BASE}/midpoint`,
      handler: (ctx) => {
        const b = book(ctx.query.str('token_id'));
        const bid = Number(b.bids[b.bids.length - 1]?.price ?? 0);
        const ask = Number(b.asks[b.asks.length - 1]?.price ?? 1);
        return { body: { mid: dec((bid + ask) / 2, 4) } };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/price`,
      handler: (ctx) => ({ body: { price: best(ctx.query.str('token_id'), ctx.query.str('side')).price } }),
    },
    {
      method: 'POST',
      path: `${BASE}/prices`,
      handler: (ctx) => {
        if (!Array.isArray(ctx.body)) throw new HttpError(400, { detail: 'body must be an array' });
        const out: Record<string, Record<string, string>> = {};
        for (const r of ctx.body as { token_id?: string; side?: string }[]) {
          const { side, price } = best(r?.token_id, r?.side);
          out[r.token_id as string] = { ...(out[r.token_id as string] ?? {}), [side]: price };
        }
        return { body: out };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/prices-history`,
      handler: (ctx) => {
        const q = ctx.query;
        const { market, outcomeIndex } = token(q.str('market'));
        const interval = q.str('interval') ?? 'max';
        if (!['max', '1m', '1h', '6h', '1d', '1w'].includes(interval))
          throw new HttpError(400, { detail: 'invalid interval' });
        const window = intervalMs(interval);
        const startTs = q.int('startTs');
        const endTs = q.int('endTs');
        const now = state.now();
        const from =
          startTs !== undefined ? startTs * 1000 : window !== null ? now - window : Number.NEGATIVE_INFINITY;
        const to = endTs !== undefined ? endTs * 1000 + 1 : now + 1;
        const history = priceHistory(state, 'epsilon', market.key, outcomeIndex, from, to, MINUTE);
        return { body: { history: history.map((x) => ({ t: unixS(x.t), p: x.p })) } };
      },
    },
  ];
}
