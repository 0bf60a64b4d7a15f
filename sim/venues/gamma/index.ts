/**
 * Replica of gamma's API (gamma-api.yaml, "Limitless"): /markets/active (and per category),
 * /markets/categories/count, /markets/active/slugs, /markets/{addressOrSlug}, /markets/{slug}/orderbook
 * (CLOB markets only; AMM markets answer 400), /markets/{slug}/historical-price, /markets/{slug}/events,
 * /markets/search. Single markets are order-book ('clob') or pool ('amm') markets; a multi-outcome topic
 * is a 'group' of binary CLOB markets. Amounts are strings in collateral base units (6 dp) with a
 * `...Formatted` decimal twin; `prices` are percents [yes, no]. Every market carries the file's
 * `image_url` and `og_url` (made-up URLs derived from its slug).
 */
import type { Catalog, CatalogEvent, CatalogMarket } from '../../world/catalog.ts';
import type { WorldState } from '../../world/state.ts';
import { dec, iso, num } from '../format.ts';
import { HttpError, type Reply, type RequestContext, type Route } from '../http.ts';
import { HOUR, intervalMs, priceHistory } from '../market-views.ts';
import { clampLimit, offsetPage } from '../paging.ts';

const COLLATERAL = { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6, symbol: 'USDC' };
const CREATOR = {
  name: 'Limitless',
  imageURI: 'https://sim.pmdata.local/gamma/logo.svg',
  link: 'https://sim.pmdata.local/gamma',
};
const VENUE = {
  exchange: '0x05c748E2f4DcDe0ec9Fa8DDc40DE6b867f923fa5',
  adapter: '0x5a38afc17F7E97ad8d6C547ddb837E40B4aEDfC6',
};

function baseUnits(x: number): string {
  return String(Math.round(x * 1e6));
}

function expirationDate(ms: number): string {
  const d = new Date(ms);
  return `${d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

function notFound(): HttpError {
  return new HttpError(404, { message: 'Market not found', statusCode: 404 });
}

export function gammaRoutes(catalog: Catalog, state: WorldState): Route[] {
  const v = catalog.venues.gamma;
  const categoryOf = (slug: string) => v.categories.find((c) => c.slug === slug);
  const tagLabels = (slugs: readonly string[]) =>
    slugs.map((s) => v.tags.find((t) => t.slug === s)?.label ?? s);

  const isGroup = (e: CatalogEvent) => e.marketKeys.length > 1;
  const groupSlug = (e: CatalogEvent) => e.ticker;

  const amounts = (keys: readonly string[]) => {
    let volume = 0;
    let oi = 0;
    let liquidity = 0;
    for (const k of keys) {
      volume += state.volume('gamma', k).notional;
      oi += state.openInterest('gamma', k);
      const b = state.book('gamma', k);
      liquidity +=
        b.bids.reduce((s, l) => s + l.price * l.size, 0) + b.asks.reduce((s, l) => s + l.price * l.size, 0);
    }
    return {
      volume: baseUnits(volume),
      volumeFormatted: dec(volume, 6),
      openInterest: baseUnits(oi),
      openInterestFormatted: dec(oi, 6),
      liquidity: baseUnits(liquidity),
      liquidityFormatted: dec(liquidity, 6),
    };
  };

  const marketObject = (m: CatalogMarket, inGroup: boolean): Record<string, unknown> => {
    const st = state.status('gamma', m.key);
    const px = state.price('gamma', m.key);
    const resolved = st.status === 'resolved';
    const yes = resolved ? (st.winningIndex === 0 ? 1 : 0) : px.last;
    const out: Record<string, unknown> = {
      id: Number(m.id),
      address: m.ammAddress,
      conditionId: m.chain!.conditionId,
      title: inGroup ? (m.groupItemTitle ?? m.question) : m.question,
      proxyTitle: null,
      description: m.description,
      collateralToken: COLLATERAL,
      creator: CREATOR,
      prices: [num(yes * 100, 2), num((1 - yes) * 100, 2)],
      categories: [categoryOf(m.category)?.label ?? m.category],
      tags: tagLabels(m.tags),
      status: resolved ? 'RESOLVED' : 'FUNDED',
      expired: st.status !== 'open',
      expirationDate: expirationDate(m.endTime),
      expirationTimestamp: m.endTime,
      ...amounts([m.key]),
      tradeType: m.kind,
      marketType: 'single',
      slug: m.slug,
      og_url: `https://sim.pmdata.local/gamma/og/${m.slug}.png`,
      image_url: `https://sim.pmdata.local/gamma/markets/${m.slug}.png`,
      createdAt: iso(m.createdAt),
      updatedAt: iso(Math.max(m.createdAt, px.lastTradeTime ?? m.createdAt)),
      winningOutcomeIndex: resolved ? st.winningIndex : null,
      outcomeTokens: m.outcomes,
    };
    if (m.kind === 'clob') {
      out.positionIds = m.tokenIds;
      out.tokens = { yes: m.tokenIds[0], no: m.tokenIds[1] };
      out.venue = VENUE;
    }
    return out;
  };

  const groupObject = (e: CatalogEvent): Record<string, unknown> => {
    const markets = e.marketKeys.map((k) => state.market('gamma', k));
    const sts = markets.map((m) => state.status('gamma', m.key));
    return {
      id: Number(e.id),
      slug: groupSlug(e),
      title: e.title,
      description: e.description,
      collateralToken: COLLATERAL,
      creator: CREATOR,
      categories: [categoryOf(e.category)?.label ?? e.category],
      tags: tagLabels(e.tags),
      status: sts.every((s) => s.status === 'resolved') ? 'RESOLVED' : 'FUNDED',
      expired: sts.every((s) => s.status !== 'open'),
      expirationDate: expirationDate(e.endTime),
      expirationTimestamp: e.endTime,
      ...amounts(e.marketKeys),
      tradeType: 'clob',
      marketType: 'group',
      createdAt: iso(e.createdAt),
      markets: markets.map((m) => marketObject(m, true)),
      venue: VENUE,
    };
  };

  /** One entry per event: a single market or a group. */
  const entries = (filter: (e: CatalogEvent) => boolean) => v.events.filter(filter);
  const entryObject = (e: CatalogEvent) =>
    isGroup(e) ? groupObject(e) : marketObject(state.market('gamma', e.marketKeys[0] as string), false);
  const entryActive = (e: CatalogEvent) =>
    e.marketKeys.some((k) => state.status('gamma', k).status === 'open');
  const entryTradeType = (e: CatalogEvent) =>
    isGroup(e) ? 'group' : state.market('gamma', e.marketKeys[0] as string).kind;

  const browse = (ctx: RequestContext, categoryId: string | undefined): Reply => {
    const q = ctx.query;
    const tradeType = q.str('tradeType');
    if (tradeType !== undefined && !['amm', 'clob', 'group'].includes(tradeType)) {
      throw new HttpError(400, { message: 'tradeType must be one of amm, clob, group', statusCode: 400 });
    }
    const automation = q.str('automationType');
    const cat = categoryId !== undefined ? v.categories.find((c) => c.id === categoryId) : undefined;
    if (categoryId !== undefined && !cat)
      throw new HttpError(400, { message: 'Invalid category', statusCode: 400 });
    let items = entries((e) => {
      if (!entryActive(e)) return false;
      if (tradeType !== undefined && entryTradeType(e) !== tradeType) return false;
      if (cat && e.category !== cat.slug && !e.tags.includes(cat.slug)) return false;
      if (automation === 'sports' && !e.sports) return false;
      if (automation === 'lumy' && e.seriesKey === null) return false;
      if (automation === 'manual' && (e.sports || e.seriesKey !== null)) return false;
      return true;
    });
    const sortBy = q.str('sortBy') ?? 'newest';
    const sorters: Record<string, (a: CatalogEvent, b: CatalogEvent) => number> = {
      newest: (a, b) => b.createdAt - a.createdAt || Number(b.id) - Number(a.id),
      ending_soon: (a, b) => a.endTime - b.endTime || Number(a.id) - Number(b.id),
      high_value: (a, b) =>
        b.marketKeys.reduce((s, k) => s + state.volume('gamma', k).notional, 0) -
          a.marketKeys.reduce((s, k) => s + state.volume('gamma', k).notional, 0) ||
        Number(a.id) - Number(b.id),
    };
    const sorter = sorters[sortBy];
    if (!sorter) throw new HttpError(400, { message: `Invalid sortBy ${sortBy}`, statusCode: 400 });
    items = [...items].sort(sorter);
    const page = q.int('page') ?? 1;
    if (page < 1) throw new HttpError(400, { message: 'page must be >= 1', statusCode: 400 });
    const limit = clampLimit(q.int('limit'), 10, 25);
    const p = offsetPage(items, (page - 1) * limit, limit, ctx.pageFault);
    return { body: { data: p.items.map(entryObject), totalMarketsCount: items.length } };
  };

  const findMarketOrGroup = (key: string): { market?: CatalogMarket; group?: CatalogEvent } => {
    const lower = key.toLowerCase();
    const market = v.markets.find(
      (m) => m.slug === key || (m.ammAddress !== null && m.ammAddress.toLowerCase() === lower),
    );
    if (market) return { market };
    const group = v.events.find((e) => isGroup(e) && groupSlug(e) === key);
    if (group) return { group };
    throw notFound();
  };

  const clobMarket = (slug: string | undefined): CatalogMarket => {
    const m = v.markets.find((x) => x.slug === slug);
    if (!m) throw notFound();
    return m;
  };

  return [
    { method: 'GET', path: '/markets/active', handler: (ctx) => browse(ctx, undefined) },
    {
      method: 'GET',
      path: '/markets/active/slugs',
      handler: () => ({
        body: entries(entryActive).map((e) => {
          if (isGroup(e)) {
            return {
              slug: groupSlug(e),
              strikePrice: null,
              ticker: e.seriesKey ?? groupSlug(e).toUpperCase().slice(0, 8),
              deadline: iso(e.endTime),
              markets: e.marketKeys.map((k) => ({ slug: state.market('gamma', k).slug })),
            };
          }
          const m = state.market('gamma', e.marketKeys[0] as string);
          const strike = /\$([0-9,.]+)/.exec(m.question)?.[1]?.replace(/,/g, '') ?? null;
          return { slug: m.slug, strikePrice: strike, ticker: e.seriesKey, deadline: iso(m.endTime) };
        }),
      }),
    },
    {
      method: 'GET',
      path: '/markets/active/:categoryId',
      handler: (ctx) => browse(ctx, ctx.params.categoryId),
    },
    {
      method: 'GET',
      path: '/markets/categories/count',
      handler: () => {
        const category: Record<string, number> = {};
        const active = entries(entryActive);
        for (const c of v.categories) {
          const n = active.filter((e) => e.category === c.slug || e.tags.includes(c.slug)).length;
          if (n > 0) category[c.id] = n;
        }
        return { body: { category, totalCount: active.length } };
      },
    },
    {
      method: 'GET',
      path: '/markets/search',
      handler: (ctx) => {
        const query = (ctx.query.str('query') ?? '').toLowerCase();
        if (!query) throw new HttpError(400, { message: 'query is required', statusCode: 400 });
        const limit = clampLimit(ctx.query.int('limit'), 10, 100);
        const page = ctx.query.int('page') ?? 1;
        const hits = entries(
          (e) =>
            e.title.toLowerCase().includes(query) ||
            e.marketKeys.some((k) => state.market('gamma', k).question.toLowerCase().includes(query)),
        );
        const p = offsetPage(hits, (page - 1) * limit, limit, ctx.pageFault);
        return { body: { markets: p.items.map(entryObject), totalMarketsCount: hits.length } };
      },
    },
    {
      method: 'GET',
      path: '/markets/:addressOrSlug',
      handler: (ctx) => {
        const hit = findMarketOrGroup(ctx.params.addressOrSlug ?? '');
        return { body: hit.market ? marketObject(hit.market, false) : groupObject(hit.group!) };
      },
    },
    {
      method: 'GET',
      path: '/markets/:slug/orderbook',
      handler: (ctx) => {
        const m = clobMarket(ctx.params.slug);
        if (m.kind === 'amm')
          throw new HttpError(400, {
            message: 'Market does not support orderbook (AMM market)',
            statusCode: 400,
          });
        const b = state.book('gamma', m.key, 0);
        const px = state.price('gamma', m.key);
        const bid = b.bids[0];
        const ask = b.asks[0];
        const midpoint = bid && ask ? (bid.price + ask.price) / 2 : px.last;
        // Adjusted midpoint: the size-weighted mid of the best levels (leans towards the thinner side's price).
        const adjusted =
          bid && ask ? (bid.price * ask.size + ask.price * bid.size) / (bid.size + ask.size) : midpoint;
        return {
          body: {
            adjustedMidpoint: num(adjusted, 4),
            midpoint: num(midpoint, 4),
            asks: b.asks.map((l) => ({ price: l.price, size: l.size })),
            bids: b.bids.map((l) => ({ price: l.price, size: l.size })),
            lastTradePrice: num(px.last, 4),
            maxSpread: 0.05,
            minSize: m.minOrderSize,
            tokenId: m.tokenIds[0],
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/markets/:slug/historical-price',
      handler: (ctx) => {
        const m = clobMarket(ctx.params.slug);
        const interval = ctx.query.str('interval') ?? '1h';
        if (!['1h', '6h', '1d', '1w', '1m', 'all'].includes(interval)) {
          throw new HttpError(400, { message: 'Invalid interval', statusCode: 400 });
        }
        const bucket = intervalMs(interval) ?? 24 * HOUR;
        const from = ctx.query.str('from')
          ? Date.parse(ctx.query.str('from') as string)
          : Number.NEGATIVE_INFINITY;
        const to = ctx.query.str('to') ? Date.parse(ctx.query.str('to') as string) : state.now() + 1;
        if (Number.isNaN(from) || Number.isNaN(to))
          throw new HttpError(400, { message: 'Invalid date', statusCode: 400 });
        return {
          body: [0, 1].map((i) => ({
            title: i === 0 ? 'YES Token' : 'NO Token',
            prices: priceHistory(state, 'gamma', m.key, i, from, to, bucket).map((p) => ({
              price: p.p,
              timestamp: iso(p.t),
            })),
          })),
        };
      },
    },
    {
      method: 'GET',
      path: '/markets/:slug/events',
      handler: (ctx) => {
        const m = clobMarket(ctx.params.slug);
        const limit = clampLimit(ctx.query.int('limit'), 10, 100);
        const page = ctx.query.int('page') ?? 1;
        const trades = [...state.trades('gamma', m.key)].reverse();
        const p = offsetPage(trades, (page - 1) * limit, limit, ctx.pageFault);
        return {
          body: {
            events: p.items.map((t) => ({
              id: t.id,
              type: 'NEW_TRADE',
              timestamp: iso(t.time),
              data: {
                title: m.question,
                address: m.ammAddress,
                strategy: t.side === 'buy' ? 'Buy' : 'Sell',
                outcome: t.outcomeIndex === 0 ? 'YES' : 'NO',
                contracts: dec(t.shares, 6),
                tradeAmount: dec(t.shares * t.price, 6),
                tradeAmountUSD: dec(t.shares * t.price, 6),
                marketId: Number(m.id),
              },
            })),
          },
        };
      },
    },
  ];
}
