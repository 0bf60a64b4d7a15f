/**
 * Replica of delta's API (delta-api.yaml, "Opinion" open API): /market (page, limit ≤ 20, status,
 * marketType), /market/{marketId}, /market/slug/{slug}, /market/categorical/{marketId},
 * /token/latest-price, /token/orderbook, /token/price-history, /quoteToken.
 * Every answer is wrapped as `{ code: 0, msg: 'success', result }`. A Yes/No topic is a binary market
 * (marketType 0); a multi-outcome topic is a categorical market (marketType 1) whose `childMarkets` are
 * binary markets with their own token ids. Times are Unix seconds. Every market carries the `slug`
 * `/market/slug/{slug}` takes (a binary market's or a child's own slug, a categorical market's event
 * ticker): the file's `MarketData` does not list it, the endpoint shows the upstream has one.
 */
import type { Catalog, CatalogEvent, CatalogMarket } from '../../world/catalog.ts';
import type { WorldState } from '../../world/state.ts';
import { dec, unixS } from '../format.ts';
import { HttpError, type RequestContext, type Route } from '../http.ts';
import { DAY, intervalMs, MINUTE, priceHistory } from '../market-views.ts';
import { clampLimit, offsetPage } from '../paging.ts';

const QUOTE_TOKEN = '0x55d398326f99059fF775485246999027B3197955';
const CHAIN_ID = '56';
const STATUS = { 2: 'Activated', 3: 'Resolving', 4: 'Resolved' } as const;

function ok(result: unknown) {
  return { body: { code: 0, msg: 'success', result } };
}

function fail(status: number, msg: string): HttpError {
  return new HttpError(status, { code: status, msg, result: null });
}

export function deltaRoutes(catalog: Catalog, state: WorldState): Route[] {
  const v = catalog.venues.delta;
  const isCategorical = (e: CatalogEvent) => e.marketKeys.length > 1;

  const statusCode = (keys: readonly string[]): 2 | 3 | 4 => {
    const sts = keys.map((k) => state.status('delta', k).status);
    if (sts.every((s) => s === 'resolved')) return 4;
    if (sts.some((s) => s === 'open')) return 2;
    return 3;
  };

  const volumes = (keys: readonly string[]) => {
    let total = 0;
    let d1 = 0;
    let d7 = 0;
    for (const k of keys) {
      total += state.volume('delta', k).notional;
      d1 += state.volume('delta', k, DAY).notional;
      d7 += state.volume('delta', k, 7 * DAY).notional;
    }
    return { volume: dec(total, 6), volume24h: dec(d1, 6), volume7d: dec(d7, 6) };
  };

  const binaryFields = (m: CatalogMarket) => {
    const st = state.status('delta', m.key);
    const code = statusCode([m.key]);
    return {
      marketId: Number(m.id),
      marketTitle: m.groupItemTitle ?? m.question,
      slug: m.slug,
      status: code,
      statusEnum: STATUS[code],
      yesLabel: m.outcomes[0],
      noLabel: m.outcomes[1],
      rules: m.description,
      yesTokenId: m.tokenIds[0],
      noTokenId: m.tokenIds[1],
      conditionId: m.chain!.conditionId,
      resultTokenId: st.status === 'resolved' ? m.tokenIds[st.winningIndex ?? 0] : '',
      quoteToken: QUOTE_TOKEN,
      chainId: CHAIN_ID,
      questionId: m.chain!.questionId,
      createdAt: unixS(m.createdAt),
      cutoffAt: unixS(m.endTime),
      resolvedAt: st.resolvedAt === null ? 0 : unixS(st.resolvedAt),
    };
  };

  const collection = (e: CatalogEvent) => {
    const s = e.seriesKey ? v.series.find((x) => x.key === e.seriesKey) : undefined;
    if (!s) return undefined;
    const siblings = v.events.filter((x) => x.seriesKey === s.key && !isCategorical(x));
    const now = state.now();
    const period = (x: CatalogEvent) => {
      const m = state.market('delta', x.marketKeys[0] as string);
      return {
        marketId: Number(m.id),
        period: new Date(x.endTime).toISOString().slice(0, 10),
        startTime: unixS(x.startTime),
        endTime: unixS(x.endTime),
        startPrice: dec(m.initialPrice, 4),
        endPrice: dec(state.price('delta', m.key).last, 4),
      };
    };
    const current = siblings.find((x) => x.startTime <= now && now < x.endTime) ?? siblings[0];
    return {
      title: s.title,
      symbol: s.ticker,
      frequency: s.recurrence,
      ...(current ? { current: period(current) } : {}),
      next: siblings.filter((x) => x.endTime > now && x !== current).map(period),
    };
  };

  const marketData = (e: CatalogEvent): Record<string, unknown> => {
    const coll = collection(e);
    if (!isCategorical(e)) {
      const m = state.market('delta', e.marketKeys[0] as string);
      return {
        ...binaryFields(m),
        marketType: 0,
        childMarkets: [],
        ...volumes([m.key]),
        incentiveFactor: {},
        ...(coll ? { collection: coll } : {}),
      };
    }
    const children = e.marketKeys.map((k) => state.market('delta', k));
    const code = statusCode(e.marketKeys);
    const resolvedAt = Math.max(0, ...children.map((m) => state.status('delta', m.key).resolvedAt ?? 0));
    return {
      marketId: Number(e.id),
      marketTitle: e.title,
      slug: e.ticker,
      status: code,
      statusEnum: STATUS[code],
      marketType: 1,
      childMarkets: children.map((m) => ({ ...binaryFields(m), volume: volumes([m.key]).volume })),
      yesLabel: '',
      noLabel: '',
      rules: e.description,
      yesTokenId: '',
      noTokenId: '',
      conditionId: '',
      resultTokenId: '',
      ...volumes(e.marketKeys),
      quoteToken: QUOTE_TOKEN,
      chainId: CHAIN_ID,
      questionId: '',
      incentiveFactor: {},
      createdAt: unixS(e.createdAt),
      cutoffAt: unixS(e.endTime),
      resolvedAt: resolvedAt === 0 ? 0 : unixS(resolvedAt),
    };
  };

  const eventByMarketId = (id: string | undefined, categorical: boolean | null): CatalogEvent => {
    if (!id || !/^\d+$/.test(id)) throw fail(400, 'invalid marketId');
    const e = v.events.find((x) => (isCategorical(x) ? x.id === id : x.marketKeys[0] === id));
    if (!e || (categorical !== null && isCategorical(e) !== categorical)) throw fail(404, 'market not found');
    return e;
  };

  const token = (ctx: RequestContext) => {
    const id = ctx.query.str('token_id');
    if (!id) throw fail(400, 'token_id is required');
    const hit = state.index.marketByToken('delta', id);
    if (!hit) throw fail(404, 'token not found');
    return hit;
  };

  return [
    {
      method: 'GET',
      path: '/market',
      handler: (ctx) => {
        const q = ctx.query;
        const page = q.int('page') ?? 1;
        if (page < 1) throw fail(400, 'page must be >= 1');
        const limit = clampLimit(q.int('limit'), 10, 20);
        const status = q.str('status');
        if (status !== undefined && status !== 'activated' && status !== 'resolved')
          throw fail(400, 'invalid status');
        const type = q.int('marketType') ?? 0;
        if (![0, 1, 2].includes(type)) throw fail(400, 'invalid marketType');
        const sortBy = q.int('sortBy') ?? 1;
        const items = v.events.filter((e) => {
          if (type !== 2 && (type === 1) !== isCategorical(e)) return false;
          const code = statusCode(e.marketKeys);
          if (status === 'activated' && code !== 2) return false;
          if (status === 'resolved' && code !== 4) return false;
          return true;
        });
        const vol = (e: CatalogEvent) =>
          e.marketKeys.reduce((s, k) => s + state.volume('delta', k).notional, 0);
        const sorted = [...items].sort((a, b) => {
          switch (sortBy) {
            case 2:
              return a.endTime - b.endTime || Number(a.id) - Number(b.id);
            case 3:
            case 4:
              return vol(b) - vol(a) || Number(a.id) - Number(b.id);
            default:
              return b.createdAt - a.createdAt || Number(b.id) - Number(a.id);
          }
        });
        const p = offsetPage(sorted, (page - 1) * limit, limit, ctx.pageFault);
        return ok({ total: sorted.length, list: p.items.map(marketData) });
      },
    },
    {
      method: 'GET',
      path: '/market/:marketId',
      handler: (ctx) => ok({ data: marketData(eventByMarketId(ctx.params.marketId, false)) }),
    },
    {
      method: 'GET',
      path: '/market/slug/:slug',
      handler: (ctx) => {
        const slug = ctx.params.slug;
        const e = v.events.find(
          (x) => x.ticker === slug || x.marketKeys.some((k) => state.market('delta', k).slug === slug),
        );
        if (!e) throw fail(404, 'market not found');
        return ok({ data: marketData(e) });
      },
    },
    {
      method: 'GET',
      path: '/market/categorical/:marketId',
      handler: (ctx) => ok({ data: marketData(eventByMarketId(ctx.params.marketId, true)) }),
    },
    {
      method: 'GET',
      path: '/token/latest-price',
      handler: (ctx) => {
        const { market, outcomeIndex } = token(ctx);
        const trades = state.trades('delta', market.key);
        const last = trades[trades.length - 1];
        const p = state.price('delta', market.key).last;
        const price = outcomeIndex === 0 ? p : 1 - p;
        return ok({
          tokenId: market.tokenIds[outcomeIndex],
          price: dec(price, 4),
          side: last
            ? (last.side === 'buy') === (last.outcomeIndex === outcomeIndex)
              ? 'BUY'
              : 'SELL'
            : 'BUY',
          size: last ? dec(last.shares, 2) : '0',
          timestamp: last ? last.time : market.createdAt,
        });
      },
    },
    {
      method: 'GET',
      path: '/token/orderbook',
      handler: (ctx) => {
        const { market, outcomeIndex } = token(ctx);
        const b = state.book('delta', market.key, outcomeIndex);
        const level = (l: { price: number; size: number }) => ({
          price: dec(l.price, 4),
          size: dec(l.size, 2),
        });
        return ok({
          market: market.chain!.conditionId,
          tokenId: market.tokenIds[outcomeIndex],
          timestamp: b.timestamp,
          bids: b.bids.map(level),
          asks: b.asks.map(level),
        });
      },
    },
    {
      method: 'GET',
      path: '/token/price-history',
      handler: (ctx) => {
        const { market, outcomeIndex } = token(ctx);
        const interval = ctx.query.str('interval') ?? '1d';
        const buckets: Record<string, number> = {
          '1m': MINUTE,
          '1h': 60 * MINUTE,
          '1d': DAY,
          '1w': 7 * DAY,
          max: DAY,
        };
        const bucket = buckets[interval];
        if (bucket === undefined) throw fail(400, 'invalid interval');
        const start = ctx.query.int('start_at');
        const end = ctx.query.int('end_at');
        const from =
          start !== undefined
            ? start * 1000
            : interval === 'max'
              ? Number.NEGATIVE_INFINITY
              : state.now() - (intervalMs(interval === '1m' ? '1d' : interval === '1h' ? '1w' : '1m') ?? 0);
        const to = end !== undefined ? end * 1000 + 1 : state.now() + 1;
        const history = priceHistory(state, 'delta', market.key, outcomeIndex, from, to, bucket);
        return ok({ history: history.map((x) => ({ t: unixS(x.t), p: dec(x.p, 4) })) });
      },
    },
    {
      method: 'GET',
      path: '/quoteToken',
      handler: () =>
        ok({
          total: 1,
          list: [
            {
              id: 1,
              quoteTokenName: 'Tether USD',
              quoteTokenAddress: QUOTE_TOKEN,
              ctfExchangeAddress: '0x5F45344126D6488025B0b84A3A8189F2487a7246',
              decimal: 18,
              symbol: 'USDT',
              chainId: CHAIN_ID,
              createdAt: unixS(catalog.startTime - 365 * DAY),
            },
          ],
        }),
    },
  ];
}
