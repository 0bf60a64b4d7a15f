/** Turning a time into a block (`pmdata backfill alpha --from-block 2024-01-01`). */
import { PermanentError } from '../../core/errors.ts';
import type { LogSource } from './source.ts';

/** Block number at or after `time` (Unix ms), by binary search over headers. */
export async function blockAtTime(
  source: Pick<LogSource, 'getHeaders'>,
  timeMs: number,
  head: number,
): Promise<number> {
  let lo = 0;
  let hi = head;
  const at = async (n: number) => {
    const h = (await source.getHeaders([n])).get(n);
    if (!h) throw new PermanentError(`Block ${n} is not available from the node`);
    return h.timestampMs;
  };
  if ((await at(hi)) < timeMs) return hi + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await at(mid)) < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
