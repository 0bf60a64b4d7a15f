/**
 * The progress reporter of the long-running commands (`pmdata backfill`, `pmdata recompute`;
 * docs/operations.md "Progress output"). One counter at a time is the main one (its phase: blocks,
 * windows, batches, steps), drawn with its unit, done/total, %, rate and ETA; other counters (events)
 * ride along with their rates.
 *
 * - On a terminal (stderr a TTY): one line rewritten in place (`\r` … erase to end of line), with a bar.
 * - Otherwise: a plain line every `intervalMs` (10 s), so logs of a long run stay short.
 * - Always a final summary on stdout: what was done, duration, rates, failures, quarantined.
 * - `quiet`: no progress and no notes; the summary and warnings only.
 * - `json`: the summary as one JSON line on stdout and nothing else there (no progress; notes and
 *   warnings go to stderr).
 */
import { PermanentError } from './errors.ts';

/** Where a command writes: `out` = stdout lines, `progress` = stderr (rewriting the line when `replace`). */
export interface ProgressIo {
  out(line: string): void;
  /** Progress output; `replace` rewrites the current line on a terminal. */
  progress(line: string, replace: boolean): void;
  /** stderr is a terminal: progress rewrites one line. */
  isTTY: boolean;
}

interface TextStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A `ProgressIo` over two streams (the process's stdout and stderr by default). */
export function streamIo(stdout: TextStream, stderr: TextStream): ProgressIo {
  return {
    out: (l) => stdout.write(`${l}\n`),
    progress: (l, replace) => stderr.write(replace ? `\r${l}\x1b[K` : `${l}\n`),
    isTTY: Boolean(stderr.isTTY),
  };
}

export type OutputMode = 'normal' | 'quiet' | 'json';

/** `--quiet` and `--json` as parsed by a command: json wins (it is quiet on stdout too). */
export function outputMode(values: { quiet?: boolean; json?: boolean }): OutputMode {
  return values.json ? 'json' : values.quiet ? 'quiet' : 'normal';
}

/** The help lines of the reporter's options, for the commands' usage texts. */
export const PROGRESS_OPTIONS_HELP =
  '  --quiet              no progress lines or notes: warnings and the final summary only (default: off)\n' +
  '  --json               the final summary as one JSON line on stdout, nothing else there (default: off)\n' +
  '  --progress-interval S\n' +
  '                       seconds between progress lines when stderr is not a terminal (default: 10)';

/** `--progress-interval S` in ms (default 10 s); a value that is not a positive number is refused. */
export function progressIntervalMs(raw: string | undefined): number {
  if (raw === undefined) return 10_000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s <= 0) {
    throw new PermanentError(`--progress-interval: expected a number of seconds > 0, got "${raw}"`);
  }
  return Math.round(s * 1000);
}

export const fmtCount = (n: number) => Math.round(n).toLocaleString('en-US');

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

/**
 * An ETA: what is left divided by the rate of the last `windowMs` (30 s), not of the whole run. A
 * chain's density changes (the benchmark world's first 350 blocks hold 30,000 logs, its last 220 the
 * other 5M), and a stall longer than the window shows as an unknown ETA ("?") instead of a shrinking one.
 */
export function createEta(total: number, startMs: number, windowMs = 30_000) {
  const samples: { t: number; done: number }[] = [{ t: startMs, done: 0 }];
  return {
    /** Records `done` at `nowMs`; returns the seconds left (Infinity when nothing moved). */
    update(nowMs: number, done: number): number {
      samples.push({ t: nowMs, done });
      while (samples.length > 2 && nowMs - samples[1]!.t >= windowMs) samples.shift();
      const since = samples[0]!;
      const rate = nowMs > since.t ? ((done - since.done) * 1000) / (nowMs - since.t) : 0;
      return rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
    },
  };
}

export interface ProgressOptions {
  /** What runs, the start of every line: `alpha backfill`, `recompute alpha-positions`. */
  label: string;
  io: ProgressIo;
  mode?: OutputMode;
  /** Not on a terminal: a progress line every `intervalMs` (default 10 s). */
  intervalMs?: number;
  /** On a terminal: the line is redrawn at most every `redrawMs` (default 250 ms). */
  redrawMs?: number;
  /** Width of the bar in characters (default 24). */
  barWidth?: number;
  /** Clock in ms (default performance.now()); tests pass their own. */
  now?: () => number;
}

export interface ProgressUpdate {
  /** The other counters' totals so far, by unit (`{ events: 12000 }`). */
  counters?: Record<string, number>;
  /** Text after the figures (`jobs 3/10`). */
  extra?: string;
  /** A new total of the main counter (when it becomes known). */
  total?: number | null;
}

export interface SummaryInput {
  status: 'done' | 'failed' | 'stopped' | 'enqueued';
  /** What was done, by unit, main counter first (`{ blocks: 120, events: 4000 }`). */
  done: Record<string, number>;
  failures: number;
  quarantined: number;
  /** The command's own figures, in words (`markets 10 read, 10 written`). */
  detail?: string;
  /** The command's own figures for the JSON line. */
  fields?: Record<string, unknown>;
}

export interface Summary {
  command: string;
  status: SummaryInput['status'];
  done: Record<string, number>;
  duration_s: number;
  /** `<unit>_per_s` of every counter in `done`. */
  rates: Record<string, number>;
  failures: number;
  quarantined: number;
  [field: string]: unknown;
}

export interface Reporter {
  readonly mode: OutputMode;
  /** Starts a phase: the main counter's unit and total (null: unknown), from 0. */
  phase(unit: string, total: number | null, name?: string): void;
  /** The main counter's done so far (and the other counters'); draws when it is time. */
  update(done: number, o?: ProgressUpdate): void;
  /** A message for the user (skipped by `quiet`; stderr under `json`). */
  note(line: string): void;
  /** A message shown in every mode (stderr under `json`). */
  warn(line: string): void;
  /** Ends the progress line and prints the summary (one JSON line under `json`). */
  finish(s: SummaryInput): Summary;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function createProgress(opts: ProgressOptions): Reporter {
  const { label, io } = opts;
  const mode = opts.mode ?? 'normal';
  const now = opts.now ?? (() => performance.now());
  const intervalMs = opts.intervalMs ?? 10_000;
  const redrawMs = opts.redrawMs ?? 250;
  const barWidth = opts.barWidth ?? 24;
  const drawing = mode === 'normal';
  const started = now();
  let unit = 'items';
  let phaseName: string | undefined;
  let total: number | null = null;
  let phaseStarted = started;
  let done = 0;
  let counters: Record<string, number> = {};
  let extra = '';
  let eta = createEta(0, started);
  let etaSeconds = Number.POSITIVE_INFINITY;
  let lastDrawn = Number.NEGATIVE_INFINITY;
  /** A rewritten line is on the terminal (a note first ends it). */
  let lineShown = false;

  function line(t: number): string {
    const secs = Math.max((t - phaseStarted) / 1000, 1e-3);
    const allSecs = Math.max((t - started) / 1000, 1e-3);
    const parts = [label + (phaseName ? ` ${phaseName}` : '')];
    parts.push(total === null ? `${fmtCount(done)} ${unit}` : `${fmtCount(done)}/${fmtCount(total)} ${unit}`);
    if (total !== null && total > 0) {
      const share = Math.min(1, done / total);
      if (io.isTTY) {
        const full = Math.round(share * barWidth);
        parts.push(`[${'#'.repeat(full)}${'.'.repeat(barWidth - full)}]`);
      }
      parts.push(io.isTTY ? `${(100 * share).toFixed(1)}%` : `(${(100 * share).toFixed(1)}%)`);
    }
    parts.push(`${fmtCount(done / secs)} ${unit}/s`);
    for (const [u, n] of Object.entries(counters)) parts.push(`${fmtCount(n / allSecs)} ${u}/s`);
    if (total !== null) parts.push(`ETA ${formatDuration(etaSeconds)}`);
    if (extra) parts.push(extra);
    return parts.join(' ');
  }

  function draw(force: boolean) {
    if (!drawing) return;
    const t = now();
    if (!force && t - lastDrawn < (io.isTTY ? redrawMs : intervalMs)) return;
    lastDrawn = t;
    io.progress(line(t), io.isTTY);
    lineShown = io.isTTY;
  }

  function endLine() {
    if (lineShown) io.progress('', false);
    lineShown = false;
  }

  return {
    mode,
    phase(u, tot, name) {
      if (drawing && lineShown) draw(true);
      endLine();
      unit = u;
      total = tot;
      phaseName = name;
      done = 0;
      phaseStarted = now();
      eta = createEta(tot ?? 0, phaseStarted);
      etaSeconds = Number.POSITIVE_INFINITY;
      // Not on a terminal the first line of a phase comes after one interval, like the others.
      lastDrawn = io.isTTY ? Number.NEGATIVE_INFINITY : phaseStarted;
    },
    update(d, o = {}) {
      done = d;
      if (o.counters) counters = { ...counters, ...o.counters };
      if (o.extra !== undefined) extra = o.extra;
      if (o.total !== undefined && o.total !== total) {
        total = o.total;
        eta = createEta(total ?? 0, phaseStarted);
      }
      if (total !== null) etaSeconds = eta.update(now(), done);
      draw(false);
    },
    note(l) {
      if (mode === 'quiet') return;
      endLine();
      if (mode === 'json') io.progress(l, false);
      else io.out(l);
    },
    warn(l) {
      endLine();
      if (mode === 'json') io.progress(l, false);
      else io.out(l);
    },
    finish(s) {
      // The last figures stay on the terminal above the summary.
      if (lineShown) draw(true);
      endLine();
      const seconds = Math.max((now() - started) / 1000, 1e-3);
      const rates: Record<string, number> = {};
      for (const [u, n] of Object.entries(s.done)) rates[`${u}_per_s`] = round(n / seconds, 1);
      const summary: Summary = {
        ...s.fields,
        command: label,
        status: s.status,
        done: s.done,
        duration_s: round(seconds, 3),
        rates,
        failures: s.failures,
        quarantined: s.quarantined,
      };
      if (mode === 'json') {
        io.out(JSON.stringify(summary));
        return summary;
      }
      const doneText = Object.entries(s.done)
        .map(([u, n]) => `${fmtCount(n)} ${u}`)
        .join(', ');
      const rateText = Object.keys(s.done)
        .map((u) => `${fmtCount(s.done[u]! / seconds)} ${u}/s`)
        .join(', ');
      io.out(
        `${label} ${s.status} in ${seconds.toFixed(1)} s: ${s.detail ?? doneText}; ` +
          `${s.detail ? `${doneText} (${rateText})` : rateText}; ` +
          `${fmtCount(s.failures)} failed, ${fmtCount(s.quarantined)} quarantined`,
      );
      return summary;
    },
  };
}
