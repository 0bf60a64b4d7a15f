/** Derived market figures the replicas share: windowed volumes, price changes, price history. */
import type { VenueCode } from '../world/catalog.ts';
import type { WorldState } from '../world/state.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Price of outcome 0 at time t: the close of the last bar that started before t, else the initial price. */
export function priceAt(state: WorldState, venue: VenueCode, key: string, t: number): number {
  const bars = state.bars(venue, key, Number.NEGATIVE_INFINITY, t);
  const last = bars[bars.length - 1];
  return last ? last.close : state.market(venue, key).initialPrice;
}

/** Change of outcome 0's price over the window ending now. */
export function priceChange(state: WorldState, venue: VenueCode, key: string, windowMs: number): number {
  const now = state.now();
  return Number((state.price(venue, key).last - priceAt(state, venue, key, now - windowMs)).toFixed(4));
}

export interface VolumeWindows {
  total: number;
  h24: number;
  wk1: number;
  mo1: number;
  yr1: number;
}

export function volumeWindows(state: WorldState, venue: VenueCode, key: string): VolumeWindows {
  return {
    total: state.volume(venue, key).notional,
    h24: state.volume(venue, key, DAY).notional,
    wk1: state.volume(venue, key, 7 * DAY).notional,
    mo1: state.volume(venue, key, 30 * DAY).notional,
    yr1: state.volume(venue, key, 365 * DAY).notional,
  };
}

/**
 * Price history of an outcome: one point per `bucketMs` bucket that saw trades, at the bucket start,
 * with the last price in the bucket. Points are in [from, to).
 */
export function priceHistory(
  state: WorldState,
  venue: VenueCode,
  key: string,
  outcomeIndex: number,
  from: number,
  to: number,
  bucketMs: number,
): { t: number; p: number }[] {
  const out: { t: number; p: number }[] = [];
  for (const b of state.bars(venue, key, from, to)) {
    const t = Math.floor(b.t / bucketMs) * bucketMs;
    const p = outcomeIndex === 0 ? b.close : Number((1 - b.close).toFixed(6));
    const last = out[out.length - 1];
    if (last && last.t === t) last.p = p;
    else out.push({ t, p });
  }
  return out;
}

/** Window length of the interval names the upstreams use ('1h', '6h', '1d', '1w', '1m', 'max'/'all'). */
export function intervalMs(interval: string | undefined): number | null {
  switch (interval) {
    case '1h':
      return HOUR;
    case '6h':
      return 6 * HOUR;
    case '1d':
      return DAY;
    case '1w':
      return 7 * DAY;
    case '1m':
      return 30 * DAY;
    case 'max':
    case 'all':
    case undefined:
      return null;
    default:
      return null;
  }
}
