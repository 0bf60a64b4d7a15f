/**
 * The world `pmdata demo` runs (jobs/commands/demo.ts): for the small size, a longer and busier history
 * than the size's own, so that its wallets are old and active enough for the trading styles
 * (docs/profiles.md: 5 trades and 3 days of wallet age). Other sizes already span 7 or 14 days and run as
 * they are.
 *
 * Small: the same topics spread over 6 days instead of 3 (the first traders are 5 days old at the end of
 * the history), 12 matches per market and day instead of 8, and whales that only take, at a taker weight
 * of 1.2 instead of 0.6, so a whale trades at its own size. On the demo's seed: ≈ 910 matches, ≈ 2,700
 * fills, 145 hourly blocks (the size's own world: ≈ 460, ≈ 1,400, 73); every primary style but DEGEN and
 * every style flag but `is_degen` appear (test/demo-world-profiles.test.ts). DEGEN needs 50 closed
 * positions; the busiest wallets of a small world close about 30.
 */
import type { StartSimOptions } from './index.ts';
import type { CatalogSize } from './world/catalog.ts';

export type DemoWorldOptions = Pick<
  StartSimOptions,
  'horizonDays' | 'matchesPerMarketDay' | 'takersOnly' | 'takerWeights'
>;

export function demoWorldOptions(size: CatalogSize): DemoWorldOptions {
  if (size !== 'small') return {};
  return { horizonDays: 6, matchesPerMarketDay: 12, takersOnly: ['whale'], takerWeights: { whale: 1.2 } };
}
