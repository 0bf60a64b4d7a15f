/**
 * `GET /v2/beta/orderbooks` and `GET /v2/beta/orderbooks-subcent` (docs/orderbooks.md): one ticker's
 * snapshots from orderbook_snapshots (venue beta: the YES book, asks already 1 − the NO bids, in dollars).
 *
 * - The integer-cent endpoint serves the polled snapshots (`source = 'rest'`) in SPEC's beta shape:
 *   sub-cent levels go to whole cents, bids floored and asks ceiled (never narrower than the book), levels
 *   that land on one cent merged by summing their exact sizes, the sum floored to whole contracts; a level
 *   outside 1–99 cents after rounding, or of 0 whole contracts, is left out. Depths are the whole
 *   contracts shown; best bid/ask are the first level's cents, null for an empty side.
 * - The sub-cent endpoint serves the stored decimals as they are (dollars, fractional sizes) with each
 *   snapshot's `source`, for the `sources` asked (rest, ws, default both); its key is (ts, sequence,
 *   source), unique when a rest and a ws snapshot share a time and sequence.
 */

import { micros } from '../../../core/decimal.ts';
import type {
  BetaOrderbooksQuery,
  BetaOrderbooksResponse,
  BetaSnapshot,
  BetaSubcentOrderbooksQuery,
  BetaSubcentOrderbooksResponse,
  BetaSubcentSnapshot,
} from '../../../schemas/api/beta-orderbooks.ts';
import type { BookSource } from '../../../schemas/tables/orderbooks.ts';
import type { RouteContext } from '../../context.ts';
import { ValidationFailure } from '../../errors.ts';
import {
  decimalNumber,
  decimalSum,
  exists,
  levels,
  notFound,
  type SnapshotRow,
  snapshotPage,
} from '../orderbooks.ts';

const VENUE = 'beta';
const BOOK_SOURCES: readonly BookSource[] = ['rest', 'ws'];
const MICROS_PER_CENT = 10_000n;
const MICROS_PER_CONTRACT = 1_000_000n;

/** A ticker is known when beta_markets or the recorded books hold it (404 otherwise). */
async function knownTicker(ctx: RouteContext, ticker: string): Promise<void> {
  const found = await exists(
    ctx,
    'api.beta.orderbooks.market',
    `SELECT 1 AS found FROM (
       (SELECT 1 FROM beta_markets WHERE ticker = {ticker:String} LIMIT 1)
       UNION ALL
       (SELECT 1 FROM orderbook_snapshots WHERE venue = {venue:String} AND market = {ticker:String} LIMIT 1)
     ) LIMIT 1`,
    { ticker, venue: VENUE },
  );
  if (!found) throw notFound(`Unknown market ticker: ${ticker.slice(0, 200)}`);
}

/**
 * One side's levels in whole cents: each price (dollars, ≤ 6 decimals) floored (bids) or ceiled (asks)
 * to the cent, sizes of one cent summed exactly and floored to whole contracts, best first; levels
 * outside 1–99 or of no whole contract left out.
 */
export function centLevels(
  prices: readonly string[],
  sizes: readonly string[],
  side: 'bid' | 'ask',
): { price: number; size: number }[] {
  const byCent = new Map<bigint, bigint>();
  prices.forEach((p, i) => {
    const m = micros(p);
    const cents = side === 'bid' ? m / MICROS_PER_CENT : (m + MICROS_PER_CENT - 1n) / MICROS_PER_CENT;
    if (cents < 1n || cents > 99n) return;
    byCent.set(cents, (byCent.get(cents) ?? 0n) + micros(sizes[i] ?? '0'));
  });
  const out: { price: number; size: number }[] = [];
  for (const [cents, size] of byCent) {
    const whole = size / MICROS_PER_CONTRACT;
    if (whole > 0n) out.push({ price: Number(cents), size: Number(whole) });
  }
  return out.sort((a, b) => (side === 'bid' ? b.price - a.price : a.price - b.price));
}

export function toBetaSnapshot(ticker: string, r: SnapshotRow): BetaSnapshot {
  const bids = centLevels(r.bid_prices, r.bid_sizes, 'bid');
  const asks = centLevels(r.ask_prices, r.ask_sizes, 'ask');
  return {
    ticker,
    timestamp: Number(r.ts_ms),
    yes_bids: bids,
    yes_asks: asks,
    best_bid: bids[0]?.price ?? null,
    best_ask: asks[0]?.price ?? null,
    bid_depth: bids.reduce((s, l) => s + l.size, 0),
    ask_depth: asks.reduce((s, l) => s + l.size, 0),
    sequence: Number(r.sequence),
  };
}

export function toBetaSubcentSnapshot(ticker: string, r: SnapshotRow): BetaSubcentSnapshot {
  return {
    ticker,
    timestamp: Number(r.ts_ms),
    source: r.source,
    yes_bids: levels(r.bid_prices, r.bid_sizes),
    yes_asks: levels(r.ask_prices, r.ask_sizes),
    best_bid: r.bid_prices[0] === undefined ? null : decimalNumber(r.bid_prices[0]),
    best_ask: r.ask_prices[0] === undefined ? null : decimalNumber(r.ask_prices[0]),
    bid_depth: decimalSum(r.bid_sizes),
    ask_depth: decimalSum(r.ask_sizes),
    sequence: Number(r.sequence),
  };
}

export async function betaOrderbooks(
  ctx: RouteContext,
  q: BetaOrderbooksQuery,
): Promise<BetaOrderbooksResponse> {
  const { rows, pagination } = await snapshotPage(ctx, q, {
    name: 'beta.orderbooks',
    venue: VENUE,
    market: q.ticker,
    sources: ['rest'],
    digest: { ticker: q.ticker },
    known: (c) => knownTicker(c, q.ticker),
  });
  return { snapshots: rows.map((r) => toBetaSnapshot(q.ticker, r)), pagination };
}

/** `sources`: a comma list of rest|ws → distinct, sorted; anything else is a 422 naming it. */
export function parseSources(raw: string | undefined): BookSource[] {
  if (raw === undefined) return [...BOOK_SOURCES];
  const items = raw.split(',').map((s) => s.trim());
  const bad = items.find((s) => !(BOOK_SOURCES as readonly string[]).includes(s));
  if (bad !== undefined) {
    throw new ValidationFailure([
      {
        loc: ['query', 'sources'],
        msg: `Input should be a comma-separated list of rest, ws (got "${bad.slice(0, 50)}")`,
        type: 'enum',
      },
    ]);
  }
  return BOOK_SOURCES.filter((s) => items.includes(s));
}

export async function betaSubcentOrderbooks(
  ctx: RouteContext,
  q: BetaSubcentOrderbooksQuery,
): Promise<BetaSubcentOrderbooksResponse> {
  const sources = parseSources(q.sources);
  const { rows, pagination } = await snapshotPage(ctx, q, {
    name: 'beta.orderbooks-subcent',
    venue: VENUE,
    market: q.ticker,
    sources,
    digest: { ticker: q.ticker, sources },
    known: (c) => knownTicker(c, q.ticker),
  });
  return { snapshots: rows.map((r) => toBetaSubcentSnapshot(q.ticker, r)), pagination };
}
