/**
 * What the long-running commands (backfill, follow) print to, and how they format figures. Tests pass
 * their own `CliIo` to read the lines.
 */

export interface CliIo {
  out(line: string): void;
  /** Progress output; `replace` rewrites the current line on a terminal. */
  progress(line: string, replace: boolean): void;
  isTTY: boolean;
}

export const defaultIo: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  progress: (l, replace) => process.stderr.write(replace ? `\r${l}\x1b[K` : `${l}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

export interface CliOptions {
  io?: CliIo;
  /** BullMQ key prefix (tests use their own). */
  queuePrefix?: string;
  /** Stop signal (default: the process's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Progress interval (ms). */
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

/** Seconds as `1h05m`, `3m07s` or `42s`; `?` when unknown. */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(sec).padStart(2, '0')}s`
      : `${sec}s`;
}

/** What `pmdata backfill <venue>` passes a REST venue's backfill (jobs/commands/backfill-<venue>.ts). */
export interface BackfillVenueArgs {
  /** `--trades`: the venue's trades too (beta). */
  trades: boolean;
  /** `--from DATE` as Unix ms, or null. */
  from: number | null;
}
