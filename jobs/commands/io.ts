/**
 * What the long-running commands (backfill, follow) print to, and how they format figures. Tests pass
 * their own `CliIo` to read the lines.
 */

import { type ProgressIo, type Reporter, streamIo } from '../../core/progress.ts';

export { formatDuration } from '../../core/progress.ts';

/** stdout lines and stderr progress (core/progress.ts). */
export type CliIo = ProgressIo;

export const defaultIo: CliIo = streamIo(process.stdout, process.stderr);

export interface CliOptions {
  io?: CliIo;
  /** BullMQ key prefix (tests use their own). */
  queuePrefix?: string;
  /** Stop signal (default: the process's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Progress lines when stderr is not a terminal: one every this many ms (default: `--progress-interval`, 10 s). */
  progressEveryMs?: number;
  /**
   * BullMQ lock of the in-process worker (ms). A job whose worker died is taken over once its lock
   * expired; tests shorten it. Default 30 s (BullMQ's).
   */
  lockDurationMs?: number;
}

/** Prints lines to stdout (the one-shot commands and the roles' banners). */
export function printLines(lines: string[]) {
  process.stdout.write(`${lines.join('\n')}\n`);
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** What `pmdata backfill <venue>` passes a REST venue's backfill (jobs/commands/backfill-<venue>.ts). */
export interface BackfillVenueArgs {
  /** `--trades`: the venue's trades too (beta). */
  trades: boolean;
  /** `--from DATE` as Unix ms, or null. */
  from: number | null;
  /** The reporter (`--quiet`, `--json`, `--progress-interval`); default: a plain one on `io`. */
  progress?: Reporter;
  /** Stops a wait for a lease another sync holds (the backfill then exits 1 having read nothing more). */
  signal?: AbortSignal;
}
