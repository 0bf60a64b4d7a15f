/**
 * Replica of alpha's order-book API ("CLOB" in alpha-book-api.yaml): /book, POST /books, /price, /prices
 * (GET and POST), /midpoint, POST /spreads, /prices-history, /markets-by-token/{token_id}.
 * Books list bids ascending and asks descending (the best of each is the last element), prices and sizes
 * as strings, `timestamp` as a Unix-ms string, as the live API does.
 */
import { createHash } from 'node:crypto';
import type { Catalog } from '../../world/catalog.ts';
import type { BookLevel, WorldState } from '../../world/state.ts';
import { dec, unixS } from '../format.ts';
import { HttpError, type RequestContext, type Route } from '../http.ts';
import { intervalMs, MINUTE, priceHistory } from '../market-views.ts';

const MAX_BOOKS = 500;

function noBook(): HttpError {
  return new HttpError(404, { error: 'No orderbook exists for the requested token id' });
}

export function alphaBookRoutes(_catalog: Catalog, state: WorldState): Route[] {
  const token = (tokenId: string | undefined) => {
    if (!tokenId) throw new HttpError(400, { error: 'Invalid payload' });
    const hit = state.index.marketByToken('alpha', tokenId);
    if (!hit) throw noBook();
    return hit;
  };

  const level = (l: BookLevel) => ({ price: dec(l.price, 4), size: dec(l.size, 2) });

  const summary = (tokenId: string) => {
    const { market, outcomeIndex } = token(tokenId);
    if (state.status('alpha', market.key).status !== 'open') throw noBook();
    const b = state.book('alpha', market.key, outcomeIndex);
    const bids = [...b.bids].reverse().map(level);
    const asks = [...b.asks].reverse().map(level);
    const last = state.price('alpha', market.key).last;
    const lastPrice = outcomeIndex === 0 ? last : 1 - last;
    const body = {
      market: market.alpha!.conditionId,
      asset_id: tokenId,
      timestamp: String(b.timestamp),
      hash: '',
      bids,
      asks,
      min_order_size: String(market.minOrderSize),
      tick_size: String(market.tickSize),
      neg_risk: market.alpha!.negRisk,
      last_trade_price: dec(lastPrice, 4),
    };
    body.hash = createHash('sha1')
      .update(JSON.stringify({ ...body, hash: '' }))
      .digest('hex');
    return body;
  };

  /** BUY → the best bid, SELL → the best ask (what the live endpoint answers). */
  const bestPrice = (tokenId: string, side: string) => {
    const s = summary(tokenId);
    const lv = side === 'BUY' ? s.bids[s.bids.length - 1] : s.asks[s.asks.length - 1];
    if (!lv) throw noBook();
    return lv.price;
  };

  const sideOf = (x: string | undefined): 'BUY' | 'SELL' => {
    const s = (x ?? '').toUpperCase();
    if (s !== 'BUY' && s !== 'SELL') throw new HttpError(400, { error: 'Invalid side' });
    return s;
  };

  const requests = (ctx: RequestContext): { token_id: string; side?: string }[] => {
    if (!Array.isArray(ctx.body)) throw new HttpError(400, { error: 'Invalid payload' });
    if (ctx.body.length > MAX_BOOKS) throw new HttpError(400, { error: `at most ${MAX_BOOKS} tokens` });
    return ctx.body.map((x) => {
      const r = x as { token_id?: unknown; side?: unknown };
      if (typeof r?.token_id !== 'string') throw new HttpError(400, { error: 'Invalid payload' });
      return { token_id: r.token_id, side: typeof r.side === 'string' ? r.side : undefined };
    });
  };

  return [
    { method: 'GET', path: '/book', handler: (ctx) => ({ body: summary(ctx.query.str('token_id') ?? '') }) },
    {
      method: 'POST',
      path: '/books',
      handler: (ctx) => {
        const out = [];
        for (const r of requests(ctx)) {
          try {
            out.push(summary(r.token_id));
          } catch (e) {
            if (!(e instanceof HttpError && e.status === 404)) throw e;
          }
        }
        return { body: out };
      },
    },
    {
      method: 'GET',
      path: '/price',
      handler: (ctx) => ({
        body: { price: bestPrice(ctx.query.str('token_id') ?? '', sideOf(ctx.query.str('side'))) },
      }),
    },
    {
      method: 'GET',
      path: '/prices',
      handler: (ctx) => {
        const tokens = ctx.query.list('token_ids');
        const sides = ctx.query.list('sides');
        const out: Record<string, Record<string, string>> = {};
        tokens.forEach((t, i) => {
          const side = sideOf(sides[i] ?? sides[0]);
          out[t] = { ...(out[t] ?? {}), [side]: bestPrice(t, side) };
        });
        return { body: out };
      },
    },
    {
      method: 'POST',
      path: '/prices',
      handler: (ctx) => {
        const out: Record<string, Record<string, string>> = {};
        for (const r of requests(ctx)) {
          const side = sideOf(r.side);
          out[r.token_id] = { ...(out[r.token_id] ?? {}), [side]: bestPrice(r.token_id, side) };
        }
        return { body: out };
      },
    },
    {
      method: 'GET',
      path: '/midpoint',
      handler: (ctx) => {
        const s = summary(ctx.query.str('token_id') ?? '');
        const bid = Number(s.bids[s.bids.length - 1]?.price ?? 0);
        const ask = Number(s.asks[s.asks.length - 1]?.price ?? 1);
        return { body: { mid: dec((bid + ask) / 2, 4) } };
      },
    },
    {
      method: 'POST',
      path: '/spreads',
      handler: (ctx) => {
        const out: Record<string, string> = {};
        for (const r of requests(ctx)) {
          const s = summary(r.token_id);
          const bid = Number(s.bids[s.bids.length - 1]?.price ?? 0);
          const ask = Number(s.asks[s.asks.length - 1]?.price ?? 1);
          out[r.token_id] = dec(ask - bid, 4);
        }
        return { body: out };
      },
    },
    {
      method: 'GET',
      path: '/prices-history',
      handler: (ctx) => {
        const q = ctx.query;
        const { market, outcomeIndex } = token(q.str('market'));
        const fidelity = q.num('fidelity') ?? 1;
        if (!(fidelity >= 1)) throw new HttpError(400, { error: 'invalid fidelity' });
        const now = state.now();
        const startTs = q.num('startTs');
        const endTs = q.num('endTs');
        const window = intervalMs(q.str('interval'));
        const to = endTs !== undefined ? endTs * 1000 + 1 : now + 1;
        const from =
          startTs !== undefined ? startTs * 1000 : window !== null ? now - window : Number.NEGATIVE_INFINITY;
        const points = priceHistory(state, 'alpha', market.key, outcomeIndex, from, to, fidelity * MINUTE);
        return { body: { history: points.map((x) => ({ t: unixS(x.t), p: x.p })) } };
      },
    },
    {
      method: 'GET',
      path: '/markets-by-token/:token_id',
      handler: (ctx) => {
        const { market } = token(ctx.params.token_id);
        return {
          body: {
            condition_id: market.alpha!.conditionId,
            primary_token_id: market.tokenIds[0],
            secondary_token_id: market.tokenIds[1],
          },
        };
      },
    },
    { method: 'GET', path: '/', handler: () => ({ body: 'OK' }) },
  ];
}
