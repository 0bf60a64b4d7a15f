/**
 * The live, mutable state of the simulated world: what the replicas read and the chain driver writes.
 *
 * Invariants:
 * - Deterministic: the same catalog and the same sequence of calls give the same state.
 * - Non-alpha venues trade by themselves in `tick(now)`. Each market draws its own trade times and prices
 *   from its own rng stream, so `tick(a); tick(b)` gives the same trades as `tick(b)` alone.
 * - alpha trades and resolutions come from the chain driver (`recordTrade`, `recordResolution`,
 *   `setUmaStatus`) unless the state is created with `alpha: 'self'` (replicas without a chain).
 * - Every market is binary. Prices, books and bars are kept for outcome 0 (Yes / first outcome); the other
 *   outcome's view is the complement (price 1 − p, bids ↔ asks).
 * - Books are derived on read from (market, mid, trade count, minute): they move with every trade and every
 *   simulated minute, with no stored work per market.
 * - Memory is bounded: per-market minute bars and the per-venue trade logs are capped.
 */
import {
  type Catalog,
  type CatalogIndex,
  type CatalogMarket,
  indexCatalog,
  VENUES,
  type VenueCode,
} from './catalog.ts';
import { DECI_CENT, type PriceLevelStructure, priceLevelStructure, tickAt } from './price-levels.ts';
import { createRng, type Rng } from './rng.ts';

export type TradeSide = 'buy' | 'sell';
export type UmaStatus = 'proposed' | 'disputed' | 'resolved';
export type MarketStatus = 'open' | 'closed' | 'resolved';

export interface RecordTradeInput {
  venue: VenueCode;
  /** The catalog market key (alpha: conditionId). May be omitted when tokenId is given. */
  marketKey?: string;
  /** Which outcome token traded (default: outcome 0). */
  tokenId?: string;
  /** Taker side on that token. */
  side: TradeSide;
  /** Price of that token, 0..1. */
  price: number;
  shares: number;
  /** Unix ms. */
  time: number;
  /** Optional trade id (the replicas make one when absent). */
  id?: string;
}

export interface Trade {
  /** Per-venue sequence number, from 1. */
  seq: number;
  id: string;
  venue: VenueCode;
  marketKey: string;
  outcomeIndex: number;
  side: TradeSide;
  /** Price of the traded outcome. */
  price: number;
  shares: number;
  time: number;
}

export interface MinuteBar {
  /** Start of the minute, Unix ms. */
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Shares traded in the minute. */
  volume: number;
  /** Collateral traded (Σ shares × price of the traded outcome). */
  notional: number;
  /** Σ shares × outcome-0 price (volume-weighted mean = p0Notional / volume). */
  p0Notional: number;
  count: number;
  /** Open interest estimate at the end of the minute. */
  openInterest: number;
}

export interface BookLevel {
  price: number;
  size: number;
}

export interface Book {
  /** Best first: bids descending, asks ascending. */
  bids: BookLevel[];
  asks: BookLevel[];
  /** Unix ms of the book's state (last change). */
  timestamp: number;
  /** Changes whenever the book's content can change. */
  version: string;
}

export interface PriceView {
  /** Last trade price of outcome 0 (the planned initial price before any trade). */
  last: number;
  bestBid: number | null;
  bestAsk: number | null;
  mid: number;
  lastTradeTime: number | null;
}

export interface VolumeView {
  /** Σ shares × price (collateral units, e.g. USDC). */
  notional: number;
  shares: number;
  count: number;
}

export interface StatusView {
  status: MarketStatus;
  /** alpha only: latest UMA status, null before a proposal. */
  umaStatus: UmaStatus | null;
  umaHistory: { status: UmaStatus; time: number }[];
  winningIndex: number | null;
  resolvedAt: number | null;
  /** Unix ms when trading stopped (end time or resolution), null while open. */
  closedAt: number | null;
}

export interface WorldStateOptions {
  /** Who trades and resolves alpha: the chain driver (default) or the state itself in tick(). */
  alpha?: 'chain' | 'self';
  /** Cap of stored trades per venue (oldest dropped in chunks; up to 1.25 × cap held). Default 200,000. */
  maxTradesPerVenue?: number;
  /** Cap of minute bars kept per market (same chunked trimming). Default 20,000. */
  maxBarsPerMarket?: number;
  /** Cap of trades kept per market for per-market reads (same chunked trimming). Default 2,000. */
  maxTradesPerMarket?: number;
  /**
   * Median trades per hour of a self-driven market (markets spread log-normally around it).
   * Default 6, and 1.5 for a 'large' catalog (≈ 1.6 M non-alpha trades over its 14 days).
   */
  tradesPerHour?: number;
}

export interface WorldState {
  readonly catalog: Catalog;
  readonly index: CatalogIndex;
  /** Current simulated time, Unix ms. */
  now(): number;
  recordTrade(input: RecordTradeInput): Trade;
  recordResolution(input: { conditionId: string; winningIndex: number; time: number }): void;
  setUmaStatus(conditionId: string, status: UmaStatus, time?: number): void;
  /** Moves time forward by ms, running tick(). */
  advanceTime(ms: number): void;
  /** Runs the self-driven venues' trading up to `now` and sets the clock to it (never backwards). */
  tick(now: number): void;

  market(venue: VenueCode, key: string): CatalogMarket;
  price(venue: VenueCode, key: string): PriceView;
  /** Book of outcome `outcomeIndex` (default 0). Empty once the market is closed or resolved. */
  book(venue: VenueCode, key: string, outcomeIndex?: number): Book;
  volume(venue: VenueCode, key: string, windowMs?: number): VolumeView;
  status(venue: VenueCode, key: string): StatusView;
  /** Minute bars of outcome 0 with t in [from, to). */
  bars(venue: VenueCode, key: string, from?: number, to?: number): MinuteBar[];
  /** Trades of a venue in seq order (oldest first), or one market's most recent (see the caps in the options). */
  trades(venue: VenueCode, marketKey?: string): readonly Trade[];
  /** Open interest estimate in shares (see docs/sim-venues.md). */
  openInterest(venue: VenueCode, key: string): number;
  /** A plain-data export of everything mutable (for determinism checks). */
  exportState(): unknown;
}

interface MarketLive {
  market: CatalogMarket;
  last: number;
  lastTradeTime: number | null;
  tradeCount: number;
  notional: number;
  shares: number;
  openInterest: number;
  bars: MinuteBar[];
  uma: { status: UmaStatus; time: number }[];
  resolved: { winningIndex: number; time: number } | null;
  /** Self-driven trading stream (non-alpha, or alpha in 'self' mode). */
  stream: { rng: Rng; ratePerMs: number; nextAt: number } | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** tick() processes time in windows aligned to this, bounding its buffer (results do not depend on it). */
const TICK_WINDOW = HOUR;

function clampPrice(p: number, tick: number): number {
  return Math.min(1 - tick, Math.max(tick, p));
}

function roundTick(p: number, tick: number): number {
  const decimals = tick >= 0.01 ? 2 : 3;
  return Number((Math.round(p / tick) * tick).toFixed(decimals));
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Price of outcome 0 implied by a trade of `outcomeIndex` at `price` (6 dp, as on chain). */
function outcome0Price(outcomeIndex: number, price: number): number {
  return outcomeIndex === 0 ? price : Number((1 - price).toFixed(6));
}

function nextExp(rng: Rng, ratePerMs: number): number {
  return -Math.log(1 - rng.next()) / ratePerMs;
}

export function createWorldState(catalog: Catalog, options: WorldStateOptions = {}): WorldState {
  const alphaMode = options.alpha ?? 'chain';
  const maxTrades = options.maxTradesPerVenue ?? 200_000;
  const maxBars = options.maxBarsPerMarket ?? 20_000;
  const maxMarketTrades = options.maxTradesPerMarket ?? 2_000;
  const medianPerHour = options.tradesPerHour ?? (catalog.size === 'large' ? 1.5 : 6);
  const index = indexCatalog(catalog);
  let clock = catalog.startTime;
  const live = new Map<string, MarketLive>();
  const tradeLogs = new Map<VenueCode, Trade[]>(VENUES.map((v) => [v, []]));
  const tradeSeq = new Map<VenueCode, number>(VENUES.map((v) => [v, 0]));
  const perMarketTrades = new Map<string, Trade[]>();

  for (const v of VENUES) {
    for (const m of catalog.venues[v].markets) {
      const selfDriven = v !== 'alpha' || alphaMode === 'self';
      let stream: MarketLive['stream'] = null;
      if (selfDriven) {
        const rng = createRng(`${catalog.seed}|trading|${v}|${m.key}`);
        const perHour = Math.exp(rng.normal(Math.log(medianPerHour), 0.8));
        const ratePerMs = perHour / HOUR;
        const first = Math.max(catalog.startTime, m.startTime);
        stream = { rng, ratePerMs, nextAt: first + nextExp(rng, ratePerMs) };
      }
      live.set(`${v}|${m.key}`, {
        market: m,
        last: m.initialPrice,
        lastTradeTime: null,
        tradeCount: 0,
        notional: 0,
        shares: 0,
        openInterest: 0,
        bars: [],
        uma: [],
        resolved: null,
        stream,
      });
    }
  }

  function get(venue: VenueCode, key: string): MarketLive {
    const l = live.get(`${venue}|${key}`);
    if (!l) throw new Error(`unknown ${venue} market ${key}`);
    return l;
  }

  /** When trading stops for a market, or null while it trades. */
  function closedAt(l: MarketLive): number | null {
    const r = resolutionOf(l);
    const end = l.market.endTime;
    if (r && r.time <= clock) return Math.min(end, r.time);
    return clock >= end ? end : null;
  }

  function resolutionOf(l: MarketLive): { winningIndex: number; time: number } | null {
    if (l.resolved) return l.resolved;
    const planned = l.market.resolution;
    const selfResolves = l.market.venue !== 'alpha' || alphaMode === 'self';
    if (selfResolves && planned && planned.time <= clock) {
      return { winningIndex: planned.winningIndex, time: planned.time };
    }
    return null;
  }

  function umaHistoryOf(l: MarketLive): { status: UmaStatus; time: number }[] {
    if (l.market.venue !== 'alpha') return [];
    if (alphaMode === 'chain') return l.uma;
    const planned = l.market.resolution;
    if (!planned) return [];
    const steps: { status: UmaStatus; time: number }[] = planned.disputed
      ? [
          { status: 'proposed', time: planned.time - 6 * HOUR },
          { status: 'disputed', time: planned.time - 5 * HOUR },
          { status: 'proposed', time: planned.time - 2 * HOUR },
          { status: 'resolved', time: planned.time },
        ]
      : [
          { status: 'proposed', time: planned.time - 2 * HOUR },
          { status: 'resolved', time: planned.time },
        ];
    return steps.filter((s) => s.time <= clock);
  }

  function apply(
    l: MarketLive,
    input: {
      outcomeIndex: number;
      side: TradeSide;
      price: number;
      shares: number;
      time: number;
      id?: string;
    },
  ): Trade {
    const m = l.market;
    const venue = m.venue;
    const p0 = outcome0Price(input.outcomeIndex, input.price);
    l.last = p0;
    l.lastTradeTime = input.time;
    l.tradeCount++;
    l.shares += input.shares;
    l.notional += input.shares * input.price;
    // Open interest approximation: a buy opens half its shares as new contracts, a sell closes a quarter.
    l.openInterest = Math.max(
      0,
      l.openInterest + (input.side === 'buy' ? input.shares / 2 : -input.shares / 4),
    );
    const t = Math.floor(input.time / MINUTE) * MINUTE;
    const bar = l.bars[l.bars.length - 1];
    if (bar && bar.t === t) {
      bar.high = Math.max(bar.high, p0);
      bar.low = Math.min(bar.low, p0);
      bar.close = p0;
      bar.volume += input.shares;
      bar.notional += input.shares * input.price;
      bar.p0Notional += input.shares * p0;
      bar.count++;
      bar.openInterest = l.openInterest;
    } else {
      l.bars.push({
        t,
        open: p0,
        high: p0,
        low: p0,
        close: p0,
        volume: input.shares,
        notional: input.shares * input.price,
        p0Notional: input.shares * p0,
        count: 1,
        openInterest: l.openInterest,
      });
      if (l.bars.length > maxBars * 1.25) l.bars.splice(0, l.bars.length - maxBars);
    }
    const seq = (tradeSeq.get(venue) ?? 0) + 1;
    tradeSeq.set(venue, seq);
    const trade: Trade = {
      seq,
      id: input.id ?? `${venue}-${seq}`,
      venue,
      marketKey: m.key,
      outcomeIndex: input.outcomeIndex,
      side: input.side,
      price: input.price,
      shares: input.shares,
      time: input.time,
    };
    const log = tradeLogs.get(venue) as Trade[];
    log.push(trade);
    // Trim in chunks (amortized O(1) per trade): the log holds between max and 1.25 × max trades.
    if (log.length > maxTrades * 1.25) log.splice(0, log.length - maxTrades);
    const mk = `${venue}|${m.key}`;
    let per = perMarketTrades.get(mk);
    if (!per) {
      per = [];
      perMarketTrades.set(mk, per);
    }
    per.push(trade);
    if (per.length > maxMarketTrades * 1.25) per.splice(0, per.length - maxMarketTrades);
    return trade;
  }

  interface SynthTrade {
    l: MarketLive;
    time: number;
    outcomeIndex: number;
    side: TradeSide;
    price: number;
    shares: number;
    id: string;
  }

  /** Draws one synthetic trade for a self-driven market at `time`, starting from outcome-0 price `last`. */
  function synthTrade(l: MarketLive, rng: Rng, time: number, last: number): SynthTrade & { p0: number } {
    const m = l.market;
    const tick = m.tickSize;
    const span = Math.max(1, m.endTime - m.startTime);
    const progress = Math.min(1, Math.max(0, (time - m.startTime) / span));
    // Prices drift towards the planned outcome as the close nears.
    const target = m.resolution ? (m.resolution.winningIndex === 0 ? 1 : 0) : m.initialPrice;
    const pull = 0.01 + 0.08 * progress * progress;
    const moved = last + rng.normal(0, 0.012) + pull * (target - last);
    const p0 = roundTick(clampPrice(moved, tick), tick);
    const outcomeIndex = rng.chance(0.5) ? 0 : 1;
    const up = p0 >= last;
    // Buying outcome 0 or selling outcome 1 pushes outcome 0 up.
    const side: TradeSide = (outcomeIndex === 0) === up ? 'buy' : 'sell';
    const shares = round2(Math.max(1, Math.exp(rng.normal(3, 1.1))));
    const price = outcomeIndex === 0 ? p0 : roundTick(1 - p0, tick);
    return { l, time, outcomeIndex, side, price, shares, id: venueTradeId(m.venue, rng), p0 };
  }

  function venueTradeId(venue: VenueCode, rng: Rng): string {
    const h = rng.hex32().slice(2);
    if (venue === 'beta') {
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    }
    return `0x${h}`;
  }

  /** Runs self-driven trading up to `now` in windows of at most an hour, so the pending buffer stays small. */
  function tick(now: number): void {
    while (clock < now)
      tickWindow(Math.min(now, Math.floor(clock / TICK_WINDOW) * TICK_WINDOW + TICK_WINDOW));
  }

  function tickWindow(now: number): void {
    if (now <= clock) return;
    const pending: SynthTrade[] = [];
    for (const l of live.values()) {
      const s = l.stream;
      if (!s) continue;
      const m = l.market;
      const stopAt = Math.min(m.endTime, m.resolution ? m.resolution.time : Number.POSITIVE_INFINITY);
      // Each market draws times and prices from its own stream in its own order, so the trades do not
      // depend on how time was cut into ticks.
      let last = l.last;
      while (s.nextAt <= now && s.nextAt < stopAt) {
        const t = synthTrade(l, s.rng, Math.floor(s.nextAt), last);
        last = outcome0Price(t.outcomeIndex, t.price);
        pending.push(t);
        s.nextAt += nextExp(s.rng, s.ratePerMs);
      }
    }
    // Apply in time order so each venue's trade log is time-ordered; ties keep market order (stable sort).
    pending.sort((a, b) => a.time - b.time);
    for (const t of pending) {
      clock = Math.max(clock, t.time);
      apply(t.l, t);
    }
    clock = now;
  }

  function book(venue: VenueCode, key: string, outcomeIndex = 0): Book {
    const l = get(venue, key);
    const m = l.market;
    const closed = closedAt(l);
    const minute = Math.floor(clock / MINUTE);
    if (closed !== null) {
      return { bids: [], asks: [], timestamp: closed, version: `${l.tradeCount}:closed` };
    }
    const tick = m.tickSize;
    const step = tick < 0.01 ? tick * 5 : tick;
    const rng = createRng(`${catalog.seed}|book|${venue}|${key}|${l.tradeCount}|${minute}`);
    const mid = clampPrice(l.last, step);
    const halfSpread = step * rng.int(1, 3);
    // Both sides always keep at least one level strictly inside (0, 1).
    const bestAsk = roundTick(Math.min(1 - step, Math.max(2 * step, mid + halfSpread / 2)), tick);
    const bestBid = roundTick(Math.max(step, Math.min(bestAsk - step, mid - halfSpread / 2)), tick);
    const depth = rng.int(4, 9);
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    for (let i = 0; i < depth; i++) {
      const bp = roundTick(bestBid - i * step, tick);
      if (bp > 0) bids.push({ price: bp, size: round2(rng.int(5, 400) * (1 + i * 0.5)) });
      const ap = roundTick(bestAsk + i * step, tick);
      if (ap < 1) asks.push({ price: ap, size: round2(rng.int(5, 400) * (1 + i * 0.5)) });
    }
    const timestamp = Math.max(l.lastTradeTime ?? catalog.startTime, minute * MINUTE);
    const version = `${l.tradeCount}:${minute}`;
    const structure = venue === 'beta' ? priceLevelStructure(catalog, key) : 'linear_cent';
    if (structure !== 'linear_cent') {
      const deeper = createRng(`${catalog.seed}|subcent-book|${key}|${l.tradeCount}|${minute}`);
      subcentLevels(bids, -1, structure, deeper);
      subcentLevels(asks, 1, structure, deeper);
    }
    if (outcomeIndex === 0) return { bids, asks, timestamp, version };
    // The other outcome mirrors outcome 0: a bid at p for outcome 0 is an ask at 1 − p for outcome 1.
    const mirrorTick = structure === 'linear_cent' ? tick : Math.min(tick, DECI_CENT);
    const mirror = (x: BookLevel): BookLevel => ({ price: roundTick(1 - x.price, mirrorTick), size: x.size });
    return { bids: asks.map(mirror), asks: bids.map(mirror), timestamp, version };
  }

  /**
   * A sub-cent market's deeper levels: between two cent levels of one side, a level a whole number of
   * $0.001 behind the nearer one (where the structure allows $0.001 there), from the market's own rng, so
   * the best levels, and with them every price the world serves, stay those of the cent book.
   */
  function subcentLevels(side: BookLevel[], dir: 1 | -1, structure: PriceLevelStructure, rng: Rng): void {
    for (let i = side.length - 2; i >= 0; i--) {
      const from = (side[i] as BookLevel).price;
      const steps = rng.int(1, 9);
      const size = round2(rng.int(1, 250) * 1.5);
      if (!rng.chance(0.7)) continue;
      const p = roundTick(from + dir * steps * DECI_CENT, DECI_CENT);
      if (tickAt(structure, p) !== DECI_CENT) continue;
      side.splice(i + 1, 0, { price: p, size });
    }
  }

  function price(venue: VenueCode, key: string): PriceView {
    const l = get(venue, key);
    const r = resolutionOf(l);
    if (r && r.time <= clock) {
      const p = r.winningIndex === 0 ? 1 : 0;
      return { last: p, bestBid: null, bestAsk: null, mid: p, lastTradeTime: l.lastTradeTime };
    }
    const b = book(venue, key, 0);
    const bestBid = b.bids[0]?.price ?? null;
    const bestAsk = b.asks[0]?.price ?? null;
    const mid = bestBid !== null && bestAsk !== null ? (bestBid + bestAsk) / 2 : l.last;
    return { last: l.last, bestBid, bestAsk, mid, lastTradeTime: l.lastTradeTime };
  }

  function resolveKey(venue: VenueCode, marketKey: string | undefined, tokenId: string | undefined) {
    if (tokenId !== undefined) {
      const hit = index.marketByToken(venue, tokenId);
      if (!hit) throw new Error(`unknown ${venue} token ${tokenId}`);
      if (
        marketKey !== undefined &&
        hit.market.key !== marketKey &&
        hit.market.alpha?.conditionId !== marketKey
      ) {
        throw new Error(`token ${tokenId} is not in market ${marketKey}`);
      }
      return { l: get(venue, hit.market.key), outcomeIndex: hit.outcomeIndex };
    }
    if (marketKey === undefined) throw new Error('recordTrade needs marketKey or tokenId');
    const m = venue === 'alpha' ? index.marketByConditionId(marketKey) : index.market(venue, marketKey);
    if (!m) throw new Error(`unknown ${venue} market ${marketKey}`);
    return { l: get(venue, m.key), outcomeIndex: 0 };
  }

  function alphaByCondition(conditionId: string): MarketLive {
    const m = index.marketByConditionId(conditionId);
    if (!m) throw new Error(`unknown alpha condition ${conditionId}`);
    return get('alpha', m.key);
  }

  return {
    catalog,
    index,
    now: () => clock,
    recordTrade(input) {
      if (!(input.price >= 0 && input.price <= 1))
        throw new RangeError(`price must be in [0,1], got ${input.price}`);
      if (!(input.shares > 0)) throw new RangeError(`shares must be > 0, got ${input.shares}`);
      const { l, outcomeIndex } = resolveKey(input.venue, input.marketKey, input.tokenId);
      if (input.time > clock) clock = input.time;
      return apply(l, { ...input, outcomeIndex });
    },
    recordResolution({ conditionId, winningIndex, time }) {
      const l = alphaByCondition(conditionId);
      l.resolved = { winningIndex, time };
      if (time > clock) clock = time;
      const lastUma = l.uma[l.uma.length - 1];
      if (lastUma?.status !== 'resolved') l.uma.push({ status: 'resolved', time });
    },
    setUmaStatus(conditionId, status, time) {
      const l = alphaByCondition(conditionId);
      l.uma.push({ status, time: time ?? clock });
    },
    advanceTime(ms) {
      if (!(ms >= 0)) throw new RangeError(`advanceTime needs ms >= 0, got ${ms}`);
      tick(clock + ms);
    },
    tick,
    market: (venue, key) => get(venue, key).market,
    price,
    book,
    volume(venue, key, windowMs) {
      const l = get(venue, key);
      if (windowMs === undefined) return { notional: l.notional, shares: l.shares, count: l.tradeCount };
      const from = clock - windowMs;
      const out = { notional: 0, shares: 0, count: 0 };
      for (let i = l.bars.length - 1; i >= 0; i--) {
        const b = l.bars[i] as MinuteBar;
        if (b.t < from) break;
        out.notional += b.notional;
        out.shares += b.volume;
        out.count += b.count;
      }
      return out;
    },
    status(venue, key) {
      const l = get(venue, key);
      const r = resolutionOf(l);
      const c = closedAt(l);
      const uma = umaHistoryOf(l);
      return {
        status: r && r.time <= clock ? 'resolved' : c !== null ? 'closed' : 'open',
        umaStatus: uma[uma.length - 1]?.status ?? null,
        umaHistory: uma,
        winningIndex: r && r.time <= clock ? r.winningIndex : null,
        resolvedAt: r && r.time <= clock ? r.time : null,
        closedAt: c,
      };
    },
    bars(venue, key, from = Number.NEGATIVE_INFINITY, to = Number.POSITIVE_INFINITY) {
      return get(venue, key).bars.filter((b) => b.t >= from && b.t < to);
    },
    trades(venue, marketKey) {
      if (marketKey === undefined) return tradeLogs.get(venue) as Trade[];
      const m =
        venue === 'alpha'
          ? (index.marketByConditionId(marketKey) ?? index.market(venue, marketKey))
          : index.market(venue, marketKey);
      if (!m) return [];
      return perMarketTrades.get(`${venue}|${m.key}`) ?? [];
    },
    openInterest: (venue, key) => get(venue, key).openInterest,
    exportState() {
      const markets: unknown[] = [];
      for (const [k, l] of live) {
        markets.push([
          k,
          l.last,
          l.lastTradeTime,
          l.tradeCount,
          l.notional,
          l.shares,
          l.openInterest,
          l.bars,
          l.uma,
          l.resolved,
        ]);
      }
      return { clock, markets, trades: VENUES.map((v) => tradeLogs.get(v)) };
    },
  };
}
