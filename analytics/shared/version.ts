/**
 * What every analytics product run shares: its dependency bag, and the version its rows carry (the
 * run's wall-clock time in Unix ms, above every earlier run's in this process and above a floor read back
 * from a product's own progress).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { DataVersions } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';

export interface AnalyticsDeps {
  clickhouse: ClickHouse;
  log: Logger;
  /** Bumped after a run that wrote (the API's response cache keys on it). */
  versions?: DataVersions;
}

let lastVersion = 0;
/** A version above every earlier run's (runs are serialized; the checkpoint carries the last one). */
export function nextVersion(floor = 0): number {
  lastVersion = Math.max(Date.now(), lastVersion + 1, floor + 1);
  return lastVersion;
}
