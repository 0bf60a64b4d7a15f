/**
 * The world `pmdata demo` runs (jobs/commands/demo.ts): for the small size, a longer and busier history
 * than the size's own, so that its wallets are old and active enough for the trading styles
 * (docs/profiles.md: 5 trades and 3 days of wallet age). Other sizes already span 7 or 14 days and run as
 * they are.
 *
 * Small: the same topics spread over 6 days instead of 3 (the first traders are 5 days old at the end of
 * the history), 12 matches per market and day instead of 8, and whales that only take, at a taker weight
 * of 1.2 instead of 0.6, so a whale trades at its own size, and one degen wallet making about 18 small round
 * trips a day (sold whole at the first dip below the entry, so mostly lost) to reach DEGEN's 50 closed
 * positions, which the busiest wallets of a small world otherwise do not (they close about 30). On the
 * demo's seed: ≈ 1,105 matches, ≈ 3,280 fills, 145 hourly blocks (the size's own world: ≈ 460, ≈ 1,400,
 * 73); every primary style and every style flag appear (test/demo-world-profiles.test.ts).
 *
 * Every size: the live phase starts 5 minutes of world time before the catalog's end, a UTC midnight
 * (the history's last hourly block is an hour before it), so beta's book feed records the last minutes of
 * a day and that day's tick datasets are final a few minutes after midnight (docs/ticks.md).
 */
import type { StartSimOptions } from './index.ts';
import type { CatalogSize } from './world/catalog.ts';

export type DemoWorldOptions = Pick<
  StartSimOptions,
  | 'horizonDays'
  | 'matchesPerMarketDay'
  | 'takersOnly'
  | 'takerWeights'
  | 'degenRoundTrips'
  | 'liveStartsBeforeEnd'
>;

/** How long before a UTC midnight (the catalog's end) the demo's live phase starts. */
export const DEMO_LIVE_BEFORE_MIDNIGHT_MS = 5 * 60_000;

export function demoWorldOptions(size: CatalogSize): DemoWorldOptions {
  const live = { liveStartsBeforeEnd: DEMO_LIVE_BEFORE_MIDNIGHT_MS };
  if (size !== 'small') return live;
  return {
    ...live,
    horizonDays: 6,
    matchesPerMarketDay: 12,
    takersOnly: ['whale'],
    takerWeights: { whale: 1.2 },
    degenRoundTrips: { wallets: 1, perDay: 18 },
  };
}
