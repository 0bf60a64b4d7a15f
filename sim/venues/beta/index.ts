/**
 * Replica of beta's API (beta-api.yaml, "Kalshi" v2 trade API): /markets, /markets/{ticker}, /events,
 * /events/{event_ticker}, /series, /series/{series_ticker}, /markets/trades, /markets/{ticker}/orderbook,
 * /markets/orderbooks, /series/{s}/markets/{t}/candlesticks and /markets/candlesticks.
 * Prices are fixed-point dollar strings (4 dp) beside deprecated integer cents; counts are fixed-point
 * strings (2 dp) beside integers. Order books are bids only (yes bids and no bids), ascending, best last.
 * Lists page with an opaque `cursor` ("" when there is no next page).
 */
import type { Catalog, CatalogEvent, CatalogMarket, CatalogSeries } from '../../world/catalog.ts';
import { priceLevelStructure, priceRanges } from '../../world/price-levels.ts';
import type { MinuteBar, Trade, WorldState } from '../../world/state.ts';
import { cents, dollars, fpCount, iso, unixS } from '../format.ts';
import { HttpError, type Reply, type RequestContext, type Route } from '../http.ts';
import { DAY, MINUTE, priceAt } from '../market-views.ts';
import { clampLimit, decodeCursor, encodeCursor, offsetPage } from '../paging.ts';

type MarketStatus = 'initialized' | 'active' | 'closed' | 'determined' | 'finalized';

function isOffsetCursor(x: unknown): x is { o: number } {
  return typeof x === 'object' && x !== null && Number.isInteger((x as { o?: unknown }).o);
}

function isSeqCursor(x: unknown): x is { s: number } {
  return typeof x === 'object' && x !== null && Number.isInteger((x as { s?: unknown }).s);
}

/**
 * The 'malformed' fault of beta's lists: the record's second string field becomes a number (its first,
 * the record's own id — ticker, event_ticker, trade_id — stays readable, so a client can quarantine the
 * record by its id, as a real upstream's wrong-typed field allows).
 */
function malformKeepingId(record: Record<string, unknown>): void {
  let seen = 0;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v !== 'string') continue;
    if (seen++ === 0) continue;
    record[k] = 404;
    return;
  }
}

/**
 * `settlement_timer_seconds`: a market is determined at the world's resolution and settled (finalized)
 * this long after; `settlement_ts` (served once settled) − the timer is the determination time.
 */
const SETTLEMENT_TIMER_S = 3600;

function notFound(): HttpError {
  return new HttpError(404, { error: { code: 'not_found', message: 'not found', service: 'exchange' } });
}

export function betaRoutes(catalog: Catalog, state: WorldState): Route[] {
  const v = catalog.venues.beta;
  const categoryLabel = (slug: string) => v.categories.find((c) => c.slug === slug)?.label ?? slug;
  const tagLabel = (slug: string) => v.tags.find((t) => t.slug === slug)?.label ?? slug;
  const seriesByKey = new Map(v.series.map((s) => [s.key, s]));
  const eventByKey = new Map(v.events.map((e) => [e.key, e]));

  const statusOf = (m: CatalogMarket): MarketStatus => {
    const now = state.now();
    if (now < m.startTime) return 'initialized';
    const st = state.status('beta', m.key);
    if (st.status === 'resolved')
      return now - (st.resolvedAt ?? now) < SETTLEMENT_TIMER_S * 1000 ? 'determined' : 'finalized';
    if (st.status === 'closed') return 'closed';
    return 'active';
  };

  /**
   * When the market last changed as served: its creation, a trade, or a status change (opening at
   * startTime, closing, determination, finalization an hour later), whichever is latest and not after now.
   * `updated_time` and the `min_updated_ts` filter both use it, as the upstream does.
   */
  const updatedAt = (m: CatalogMarket): number => {
    const now = state.now();
    const st = state.status('beta', m.key);
    let t = Math.max(m.createdAt, state.price('beta', m.key).lastTradeTime ?? m.createdAt);
    if (now >= m.startTime) t = Math.max(t, m.startTime);
    if (st.closedAt !== null) t = Math.max(t, st.closedAt);
    if (st.resolvedAt !== null) {
      const finalized = st.resolvedAt + SETTLEMENT_TIMER_S * 1000;
      t = Math.max(t, now >= finalized ? finalized : st.resolvedAt);
    }
    return Math.min(t, Math.max(now, m.createdAt));
  };

  const marketObject = (m: CatalogMarket): Record<string, unknown> => {
    const st = state.status('beta', m.key);
    const px = state.price('beta', m.key);
    const book = state.book('beta', m.key);
    const yesBid = book.bids[0]?.price ?? 0;
    const yesAsk = book.asks[0]?.price ?? 1;
    const now = state.now();
    const prevLast = priceAt(state, 'beta', m.key, now - DAY);
    const vol = state.volume('beta', m.key);
    const vol24 = state.volume('beta', m.key, DAY);
    const oi = state.openInterest('beta', m.key);
    const status = statusOf(m);
    const settled = st.status === 'resolved';
    const result = settled ? (st.winningIndex === 0 ? 'yes' : 'no') : '';
    const last = px.lastTradeTime === null ? 0 : px.last;
    const yesLabel = m.groupItemTitle ?? (m.outcomes[0] === 'Yes' ? m.question : m.outcomes[0]);
    const out: Record<string, unknown> = {
      ticker: m.key,
      event_ticker: m.eventKey,
      market_type: 'binary',
      title: m.question,
      subtitle: '',
      yes_sub_title: yesLabel,
      no_sub_title: yesLabel,
      created_time: iso(m.createdAt),
      updated_time: iso(updatedAt(m)),
      open_time: iso(m.startTime),
      close_time: iso(m.endTime),
      expected_expiration_time: iso(m.resolution?.time ?? m.endTime + 3 * 60 * MINUTE),
      expiration_time: iso(m.endTime + 7 * DAY),
      latest_expiration_time: iso(m.endTime + 7 * DAY),
      settlement_timer_seconds: SETTLEMENT_TIMER_S,
      status,
      response_price_units: 'usd_cent',
      notional_value: 100,
      notional_value_dollars: dollars(1),
      yes_bid: settled ? 0 : cents(yesBid),
      yes_bid_dollars: dollars(settled ? 0 : yesBid),
      yes_ask: settled ? 0 : cents(yesAsk),
      yes_ask_dollars: dollars(settled ? 0 : yesAsk),
      no_bid: settled ? 0 : cents(1 - yesAsk),
      no_bid_dollars: dollars(settled ? 0 : 1 - yesAsk),
      no_ask: settled ? 0 : cents(1 - yesBid),
      no_ask_dollars: dollars(settled ? 0 : 1 - yesBid),
      last_price: cents(last),
      last_price_dollars: dollars(last),
      previous_yes_bid: cents(Math.max(0, prevLast - 0.01)),
      previous_yes_bid_dollars: dollars(Math.max(0, prevLast - 0.01)),
      previous_yes_ask: cents(Math.min(1, prevLast + 0.01)),
      previous_yes_ask_dollars: dollars(Math.min(1, prevLast + 0.01)),
      previous_price: cents(prevLast),
      previous_price_dollars: dollars(prevLast),
      volume: Math.floor(vol.shares),
      volume_fp: fpCount(vol.shares),
      volume_24h: Math.floor(vol24.shares),
      volume_24h_fp: fpCount(vol24.shares),
      liquidity: 0,
      liquidity_dollars: dollars(0),
      open_interest: Math.floor(oi),
      open_interest_fp: fpCount(oi),
      result,
      can_close_early: m.sports !== null,
      fractional_trading_enabled: true,
      expiration_value: settled ? (result === 'yes' ? yesLabel : '') : '',
      rules_primary: `If ${m.question.replace(/\?$/, '')}, then the market resolves to Yes.`,
      rules_secondary: 'The market closes early if the outcome is known before the close time.',
      tick_size: 1,
      price_level_structure: priceLevelStructure(catalog, m.key),
      price_ranges: priceRanges(priceLevelStructure(catalog, m.key)),
      strike_type: 'custom',
      custom_strike: m.groupItemTitle ? { outcome: m.groupItemTitle } : null,
    };
    if (settled) {
      out.settlement_value = st.winningIndex === 0 ? 100 : 0;
      out.settlement_value_dollars = dollars(st.winningIndex === 0 ? 1 : 0);
      // Settled (finalized) SETTLEMENT_TIMER_S after the determination; served once settled.
      if (status === 'finalized') out.settlement_ts = iso((st.resolvedAt ?? now) + SETTLEMENT_TIMER_S * 1000);
    }
    return out;
  };

  const eventObject = (e: CatalogEvent, nested: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      event_ticker: e.key,
      series_ticker: e.seriesKey ?? '',
      sub_title: e.sports
        ? `${e.sports.awayTeam.abbreviation} at ${e.sports.homeTeam.abbreviation} (${e.sports.gameDate})`
        : `On ${e.endTime ? iso(e.endTime).slice(0, 10) : ''}`,
      title: e.title,
      collateral_return_type: e.mutuallyExclusive ? 'MECNET' : 'binary',
      mutually_exclusive: e.mutuallyExclusive,
      category: categoryLabel(e.category),
      strike_date: iso(e.endTime),
      strike_period: null,
      available_on_brokers: true,
      product_metadata: null,
      last_updated_ts: iso(Math.max(e.createdAt, state.now())),
    };
    if (nested) out.markets = e.marketKeys.map((k) => marketObject(state.market('beta', k)));
    return out;
  };

  const seriesObject = (s: CatalogSeries, withVolume: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      ticker: s.ticker,
      frequency: s.recurrence === 'one_off' ? 'custom' : s.recurrence,
      title: s.title,
      category: categoryLabel(s.category),
      tags: s.tags.map(tagLabel),
      settlement_sources: [{ name: 'Official source', url: `https://sim.pmdata.local/sources/${s.slug}` }],
      contract_url: `https://sim.pmdata.local/contracts/${s.ticker.toLowerCase()}.pdf`,
      contract_terms_url: `https://sim.pmdata.local/terms/${s.ticker.toLowerCase()}.pdf`,
      product_metadata: null,
      fee_type: 'quadratic',
      fee_multiplier: 1,
      additional_prohibitions: [],
    };
    if (withVolume) {
      let shares = 0;
      for (const e of v.events) {
        if (e.seriesKey !== s.key) continue;
        for (const k of e.marketKeys) shares += state.volume('beta', k).shares;
      }
      out.volume = Math.floor(shares);
      out.volume_fp = fpCount(shares);
    }
    return out;
  };

  const cursorPage = <T>(ctx: RequestContext, items: T[], max: number, fallback: number) => {
    const limit = clampLimit(ctx.query.int('limit'), fallback, max);
    const cursor = ctx.query.str('cursor');
    const offset = cursor ? decodeCursor(cursor, isOffsetCursor).o : 0;
    const page = offsetPage(items, offset, limit, ctx.pageFault);
    return {
      items: page.items,
      cursor: page.nextOffset === null ? '' : encodeCursor({ o: page.nextOffset }),
    };
  };

  const statusFilter = (value: string | undefined): ((s: MarketStatus) => boolean) | null => {
    switch (value) {
      case undefined:
        return null;
      case 'unopened':
        return (s) => s === 'initialized';
      case 'open':
        return (s) => s === 'active';
      case 'paused':
        return () => false;
      case 'closed':
        return (s) => s === 'closed' || s === 'determined';
      case 'settled':
        return (s) => s === 'finalized' || s === 'determined';
      default:
        throw new HttpError(400, { error: { code: 'invalid_parameters', message: 'invalid status' } });
    }
  };

  const listMarkets = (ctx: RequestContext): Reply => {
    const q = ctx.query;
    const events = new Set(q.list('event_ticker'));
    const series = q.str('series_ticker');
    const tickers = new Set(q.list('tickers'));
    const status = statusFilter(q.str('status'));
    const s = (n: string) => {
      const x = q.int(n);
      return x === undefined ? undefined : x * 1000;
    };
    const [minCreated, maxCreated, minClose, maxClose, minSettled, maxSettled, minUpdated] = [
      s('min_created_ts'),
      s('max_created_ts'),
      s('min_close_ts'),
      s('max_close_ts'),
      s('min_settled_ts'),
      s('max_settled_ts'),
      s('min_updated_ts'),
    ];
    const items = v.markets.filter((m) => {
      if (events.size && !events.has(m.eventKey)) return false;
      if (series !== undefined && m.seriesKey !== series) return false;
      if (tickers.size && !tickers.has(m.key)) return false;
      if (status && !status(statusOf(m))) return false;
      if (minCreated !== undefined && m.createdAt < minCreated) return false;
      if (maxCreated !== undefined && m.createdAt > maxCreated) return false;
      if (minClose !== undefined && m.endTime < minClose) return false;
      if (maxClose !== undefined && m.endTime > maxClose) return false;
      if (minSettled !== undefined || maxSettled !== undefined) {
        const at = state.status('beta', m.key).resolvedAt;
        if (at === null) return false;
        if (minSettled !== undefined && at < minSettled) return false;
        if (maxSettled !== undefined && at > maxSettled) return false;
      }
      if (minUpdated !== undefined && updatedAt(m) < minUpdated) return false;
      return true;
    });
    const page = cursorPage(ctx, items, 1000, 100);
    return {
      body: { markets: page.items.map(marketObject), cursor: page.cursor },
      malform: malformKeepingId,
    };
  };

  const listEvents = (ctx: RequestContext): Reply => {
    const q = ctx.query;
    const series = q.str('series_ticker');
    const status = q.str('status');
    if (status !== undefined && !['open', 'closed', 'settled'].includes(status)) {
      throw new HttpError(400, { error: { code: 'invalid_parameters', message: 'invalid status' } });
    }
    const minClose = q.int('min_close_ts');
    const items = v.events.filter((e) => {
      if (series !== undefined && e.seriesKey !== series) return false;
      if (minClose !== undefined && !(e.endTime > minClose * 1000)) return false;
      if (status !== undefined) {
        const sts = e.marketKeys.map((k) => statusOf(state.market('beta', k)));
        const st = sts.some((x) => x === 'active' || x === 'initialized')
          ? 'open'
          : sts.every((x) => x === 'finalized' || x === 'determined')
            ? 'settled'
            : 'closed';
        if (st !== status) return false;
      }
      return true;
    });
    const page = cursorPage(ctx, items, 200, 200);
    const nested = q.bool('with_nested_markets') === true;
    return {
      body: { events: page.items.map((e) => eventObject(e, nested)), cursor: page.cursor },
      malform: malformKeepingId,
    };
  };

  const listTrades = (ctx: RequestContext): Reply => {
    const q = ctx.query;
    const limit = clampLimit(q.int('limit'), 100, 1000);
    const ticker = q.str('ticker');
    const minTs = q.int('min_ts');
    const maxTs = q.int('max_ts');
    const cursor = q.str('cursor');
    const log: readonly Trade[] = ticker ? state.trades('beta', ticker) : state.trades('beta');
    // Newest first. The cursor is the seq of the last trade served (a keyset, stable while trades arrive).
    const list: Trade[] = [];
    for (let i = log.length - 1; i >= 0; i--) {
      const t = log[i] as Trade;
      if (minTs !== undefined && t.time < minTs * 1000) continue;
      if (maxTs !== undefined && t.time > maxTs * 1000) continue;
      list.push(t);
    }
    const after = cursor ? decodeCursor(cursor, isSeqCursor).s : null;
    const startIdx = after === null ? 0 : list.findIndex((t) => t.seq < after);
    const offset = startIdx < 0 ? list.length : startIdx;
    const page = offsetPage(list, offset, limit, ctx.pageFault);
    const lastServed = page.nextOffset === null ? null : (list[page.nextOffset - 1] as Trade);
    const out = page.items;
    const nextSeq = lastServed?.seq ?? null;
    return {
      body: {
        trades: out.map((t) => {
          const yes = t.outcomeIndex === 0 ? t.price : 1 - t.price;
          const takerYes = (t.outcomeIndex === 0) === (t.side === 'buy');
          return {
            trade_id: t.id,
            ticker: t.marketKey,
            price: cents(yes),
            count: Math.round(t.shares),
            count_fp: fpCount(t.shares),
            yes_price: cents(yes),
            no_price: 100 - cents(yes),
            yes_price_dollars: dollars(yes),
            no_price_dollars: dollars(1 - yes),
            taker_side: takerYes ? 'yes' : 'no',
            created_time: iso(t.time),
          };
        }),
        cursor: nextSeq === null ? '' : encodeCursor({ s: nextSeq }),
      },
      malform: malformKeepingId,
    };
  };

  const market = (ticker: string | undefined): CatalogMarket => {
    const m = ticker ? state.index.market('beta', ticker) : undefined;
    if (!m) throw notFound();
    return m;
  };

  /** Bids only, ascending (best last): yes bids = outcome-0 bids, no bids = outcome-1 bids. */
  const orderbook = (m: CatalogMarket, depth: number) => {
    const yes = state.book('beta', m.key, 0).bids;
    const no = state.book('beta', m.key, 1).bids;
    const top = <T>(xs: T[]) => (depth > 0 ? xs.slice(0, depth) : xs).reverse();
    const y = top(yes);
    const n = top(no);
    return {
      orderbook: {
        yes: y.map((l) => [cents(l.price), Math.round(l.size)]),
        no: n.map((l) => [cents(l.price), Math.round(l.size)]),
        yes_dollars: y.map((l) => [dollars(l.price), Math.round(l.size)]),
        no_dollars: n.map((l) => [dollars(l.price), Math.round(l.size)]),
      },
      orderbook_fp: {
        yes_dollars: y.map((l) => [dollars(l.price), fpCount(l.size)]),
        no_dollars: n.map((l) => [dollars(l.price), fpCount(l.size)]),
      },
    };
  };

  const candles = (m: CatalogMarket, startS: number, endS: number, periodMin: number, max: number) => {
    const period = periodMin * MINUTE;
    const start = startS * 1000;
    const end = Math.min(endS * 1000, state.now());
    const bars = state.bars('beta', m.key, m.startTime - period, end + 1);
    const out: Record<string, unknown>[] = [];
    let prevClose: number | null = null;
    let oi = 0;
    let bi = 0;
    // Candles end on period boundaries; one per period from the market's opening to min(end, now).
    const first = Math.ceil(Math.max(start, m.startTime) / period) * period;
    for (
      let endAt = Math.ceil(Math.max(m.startTime, bars[0]?.t ?? m.startTime) / period) * period;
      endAt <= end && out.length < max;
      endAt += period
    ) {
      const inPeriod: MinuteBar[] = [];
      while (bi < bars.length && (bars[bi] as MinuteBar).t < endAt) {
        inPeriod.push(bars[bi] as MinuteBar);
        bi++;
      }
      const o = inPeriod[0];
      const c = inPeriod[inPeriod.length - 1];
      const hi = inPeriod.reduce((x, b) => Math.max(x, b.high), 0);
      const lo = inPeriod.reduce((x, b) => Math.min(x, b.low), 1);
      const volume = inPeriod.reduce((x, b) => x + b.volume, 0);
      const p0n = inPeriod.reduce((x, b) => x + b.p0Notional, 0);
      if (c) oi = c.openInterest;
      const ref = c?.close ?? prevClose ?? m.initialPrice;
      const previous = prevClose;
      if (c) prevClose = c.close;
      if (endAt < first) continue;
      const bidAsk = (delta: number) => {
        const f = (p: number) => Math.min(0.99, Math.max(0.01, p + delta));
        const op = f(o?.open ?? ref);
        const lw = f(o ? lo : ref);
        const hg = f(o ? hi : ref);
        const cl = f(ref);
        return {
          open: cents(op),
          open_dollars: dollars(op),
          low: cents(lw),
          low_dollars: dollars(lw),
          high: cents(hg),
          high_dollars: dollars(hg),
          close: cents(cl),
          close_dollars: dollars(cl),
        };
      };
      const price: Record<string, unknown> = o
        ? {
            open: cents(o.open),
            open_dollars: dollars(o.open),
            low: cents(lo),
            low_dollars: dollars(lo),
            high: cents(hi),
            high_dollars: dollars(hi),
            close: cents(ref),
            close_dollars: dollars(ref),
            mean: cents(p0n / volume),
            mean_dollars: dollars(p0n / volume),
            previous: previous === null ? null : cents(previous),
            previous_dollars: previous === null ? null : dollars(previous),
            min: cents(lo),
            min_dollars: dollars(lo),
            max: cents(hi),
            max_dollars: dollars(hi),
          }
        : {
            open: null,
            open_dollars: null,
            low: null,
            low_dollars: null,
            high: null,
            high_dollars: null,
            close: null,
            close_dollars: null,
            mean: null,
            mean_dollars: null,
            previous: previous === null ? null : cents(previous),
            previous_dollars: previous === null ? null : dollars(previous),
            min: null,
            min_dollars: null,
            max: null,
            max_dollars: null,
          };
      out.push({
        end_period_ts: unixS(endAt),
        yes_bid: bidAsk(-0.01),
        yes_ask: bidAsk(0.01),
        price,
        volume: Math.floor(volume),
        volume_fp: fpCount(volume),
        open_interest: Math.floor(oi),
        open_interest_fp: fpCount(oi),
      });
    }
    return out;
  };

  const candleParams = (ctx: RequestContext, allowed: number[] | null) => {
    const q = ctx.query;
    const start = q.int('start_ts');
    const end = q.int('end_ts');
    const period = q.int('period_interval');
    if (start === undefined || end === undefined || period === undefined) {
      throw new HttpError(400, {
        error: { code: 'invalid_parameters', message: 'start_ts, end_ts and period_interval are required' },
      });
    }
    if ((allowed && !allowed.includes(period)) || period < 1) {
      throw new HttpError(400, { error: { code: 'invalid_parameters', message: 'invalid period_interval' } });
    }
    return { start, end, period };
  };

  return [
    { method: 'GET', path: '/markets', handler: listMarkets },
    { method: 'GET', path: '/markets/trades', handler: listTrades },
    {
      method: 'GET',
      path: '/markets/orderbooks',
      handler: (ctx) => {
        const tickers = ctx.query.list('tickers');
        if (tickers.length < 1 || tickers.length > 100) {
          throw new HttpError(400, { error: { code: 'invalid_parameters', message: '1 to 100 tickers' } });
        }
        return {
          body: {
            orderbooks: tickers
              .map((t) => state.index.market('beta', t))
              .filter((m): m is CatalogMarket => m !== undefined)
              .map((m) => ({ ticker: m.key, orderbook_fp: orderbook(m, 0).orderbook_fp })),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/markets/candlesticks',
      handler: (ctx) => {
        const tickers = ctx.query.list('market_tickers');
        if (tickers.length < 1 || tickers.length > 100) {
          throw new HttpError(400, {
            error: { code: 'invalid_parameters', message: '1 to 100 market_tickers' },
          });
        }
        const { start, end, period } = candleParams(ctx, null);
        let budget = 10_000;
        const markets = [];
        for (const t of tickers) {
          const m = state.index.market('beta', t);
          if (!m) continue;
          const cs = candles(m, start, end, period, budget);
          budget -= cs.length;
          markets.push({ market_ticker: m.key, candlesticks: cs });
        }
        return { body: { markets } };
      },
    },
    {
      method: 'GET',
      path: '/markets/:ticker',
      handler: (ctx) => ({ body: { market: marketObject(market(ctx.params.ticker)) } }),
    },
    {
      method: 'GET',
      path: '/markets/:ticker/orderbook',
      handler: (ctx) => {
        const depth = ctx.query.int('depth') ?? 0;
        if (depth < 0 || depth > 100)
          throw new HttpError(400, { error: { code: 'invalid_parameters', message: 'depth 0..100' } });
        return { body: orderbook(market(ctx.params.ticker), depth) };
      },
    },
    { method: 'GET', path: '/events', handler: listEvents },
    {
      method: 'GET',
      path: '/events/:event_ticker',
      handler: (ctx) => {
        const e = eventByKey.get(ctx.params.event_ticker ?? '');
        if (!e) throw notFound();
        const nested = ctx.query.bool('with_nested_markets') === true;
        return {
          body: {
            event: eventObject(e, nested),
            markets: nested ? [] : e.marketKeys.map((k) => marketObject(state.market('beta', k))),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/series',
      handler: (ctx) => {
        const category = ctx.query.str('category');
        const tags = ctx.query.list('tags').map((t) => t.toLowerCase());
        const withVolume = ctx.query.bool('include_volume') === true;
        const items = v.series.filter((s) => {
          if (category !== undefined && categoryLabel(s.category) !== category) return false;
          if (tags.length && !s.tags.some((t) => tags.includes(tagLabel(t).toLowerCase()))) return false;
          return true;
        });
        return { body: { series: items.map((s) => seriesObject(s, withVolume)) }, malform: malformKeepingId };
      },
    },
    {
      method: 'GET',
      path: '/series/:series_ticker',
      handler: (ctx) => {
        const s = seriesByKey.get(ctx.params.series_ticker ?? '');
        if (!s) throw notFound();
        return { body: { series: seriesObject(s, ctx.query.bool('include_volume') === true) } };
      },
    },
    {
      method: 'GET',
      path: '/series/:series_ticker/markets/:ticker/candlesticks',
      handler: (ctx) => {
        const m = market(ctx.params.ticker);
        if (m.seriesKey !== ctx.params.series_ticker) throw notFound();
        const { start, end, period } = candleParams(ctx, [1, 60, 1440]);
        return { body: { ticker: m.key, candlesticks: candles(m, start, end, period, 10_000) } };
      },
    },
    {
      method: 'GET',
      path: '/exchange/status',
      handler: () => ({ body: { exchange_active: true, trading_active: true } }),
    },
  ];
}
