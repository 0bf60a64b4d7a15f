/**
 * The one stream runner of the REST venues (docs/venues.md): a venue is declared once with `defineVenue`
 * (ingest/venues/<code>/index.ts: its code, its watermark source, its config section, how to build its
 * client, and its streams), and `runStream` runs any stream of it. A stream says only what is its own:
 *
 * - `read(client, ctx)`: an AsyncIterable of batches, the venue's read strategy. A pull source (pages
 *   read in a loop) and a push source (a WebSocket's messages, daily archive files, an async queue) are
 *   the same to the runner: it writes each batch before it asks for the next, so a read that depends on
 *   what was written (beta's events after its markets) just reads the tables after its `yield`;
 * - `rows(batch, ctx)`: the batch's rows by table name (the venue's mappers);
 * - `tables`: how each table is written (`writeChanged`, or `insertNew` for immutable records) and which
 *   summary counts its rows go to;
 * - `summary(mode, options)`: the summary's zero (its fields and their order are the log line's), which
 *   the runner and the read fill;
 * - `marks(ctx)`: the watermarks the run commits (`{stream, time}`, Unix ms) once its data is written (a
 *   read that decides on them as it goes queues them with `ctx.markAfter`);
 * - `write(batch, ctx)` (optional): what a batch holds beyond its `tables`, written the stream's own way
 *   after them (order book snapshots: ingest/orderbooks/store.ts `recordSnapshots`), and `source`: the
 *   data source the run bumps (default `venue:<code>`; null when `write` bumps its own).
 *
 * The runner owns what every stream repeated before: the counts (`requests`, `rereads`, `quarantined`,
 * `ms`, each table's read/written; `ctx.account` takes one `ReadCounts` of any client), the quarantine of
 * failed records (once per kind and id per run, stored with the next write), the writes, the watermark
 * commit after the data (core/watermarks.ts: a run that fails before its commit leaves its rows and no
 * mark; rows are idempotent, so the rerun writes nothing twice), the `venue:<code>` data-version bump
 * when a row was written, the progress callback (`onProgress(step, summary)` after each step), the
 * summary's log line, and the stream's lease(s) when asked (`lease: 'skip'` for a scheduled run, which
 * finds it held and returns null; `'wait'` for a run a user asked for). Upstream failures end the run
 * with that error; what earlier batches wrote stays (each batch is complete per record).
 *
 * The jobs, schedules and CLI of a stream come from its definition (jobs/processors/venue-streams.ts).
 */
import type { Redis } from 'ioredis';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { TableDescription } from '../../core/clickhouse/table.ts';
import type { Config, ConfigSection } from '../../core/config.ts';
import { createDataVersions, type DataSource, type DataVersions } from '../../core/data-version.ts';
import { type LeaseWaitOptions, withLease, withLeaseWaiting } from '../../core/lease.ts';
import type { Logger } from '../../core/logger.ts';
import { createWatermarks, type Mark, type Watermark, type Watermarks } from '../../core/watermarks.ts';
import type { FeedDefinition } from '../feed.ts';
import type { InvalidRecord, ReadCounts } from './records.ts';
import { insertNew, quarantineRecords, writeChanged } from './store.ts';

/** Rows of one batch by table name. */
export type RowsByTable = Readonly<Record<string, readonly Record<string, unknown>[]>>;

export interface TableCounts {
  read: number;
  written: number;
}

/** The fields every stream's summary has (the runner fills them). */
export interface StreamSummary {
  /** Failed records quarantined (once per kind and id). */
  quarantined: number;
  requests: number;
  /** Pages or records read again (a repeat, a failed record, a short listing). */
  rereads: number;
  ms: number;
}

export interface TableSpec<S> {
  table: TableDescription;
  /** The key column (compared as text). */
  key: string;
  /** `changed` (default): only new or changed rows (`writeChanged`); `new`: only keys not stored (`insertNew`). */
  write?: 'changed' | 'new';
  /** `new`: the column the stored keys are looked up within (the sort prefix). */
  scope?: string;
  /** The statements' label prefix (default the table name with its first `_` as `.`: `gamma.markets`). */
  label?: string;
  /** Where the table's counts go in the summary (absent or null: the read counts them itself). */
  counts?: (s: S) => TableCounts | null;
  /** What adds to `read`: the distinct keys of the rows (default), every row, or nothing. */
  read?: 'keys' | 'rows' | 'none';
}

/** A watermark a run commits: its stream and its position (Unix ms); source and kind are the venue's. */
export interface StreamMark {
  stream: string;
  time: number;
}

export interface StreamContext<
  M extends string = string,
  O = unknown,
  S extends StreamSummary = StreamSummary,
> {
  readonly code: string;
  readonly mode: M;
  readonly options: O;
  readonly summary: S;
  readonly clickhouse: ClickHouse;
  readonly log: Logger;
  /** The run's configuration (null when the run was given a client and no config). */
  readonly config: Config | null;
  /** The data versions (null without Redis): for a `write` that bumps its own source. */
  readonly versions: DataVersions | null;
  /** Counts one upstream read: its requests and rereads; its failed records are quarantined. */
  account(r: ReadCounts): void;
  /** Quarantines failed records with the next write without counting them (a read counting its own). */
  quarantine(invalid: readonly InvalidRecord[]): void;
  /** Stores the failed records accounted so far now, not with the next write. */
  flush(): Promise<void>;
  /** Ends a step: `ms` updated, the progress callback told. */
  step(name: string): void;
  /** The run's observation time: the first call (the first write's) fixes it (per batch: `observe`). */
  observedAt(): number;
  /** The observation clock itself (a read that stamps several writes on its own). */
  now(): number;
  /** Rows the last batch wrote, by table name. */
  readonly written: Readonly<Record<string, number>>;
  /** Counts changes not written through a table (deletions): the data-version bump follows them. */
  changed(n: number): void;
  /** The position of one of the venue's marks (Unix ms), or null. */
  position(stream: string): Promise<number | null>;
  /** Queues a mark the run commits after its data (with the stream's `marks`). */
  markAfter(mark: StreamMark): void;
}

export interface StreamSchedule<M extends string> {
  /** The schedule id (`<code>:markets-poll`). */
  id: string;
  mode: M;
  everyMs(config: Config): number;
  /** The job's payload (default `{mode}`). */
  payload?: Record<string, unknown>;
}

export interface StreamDefinition<
  C = unknown,
  N extends string = string,
  M extends string = string,
  O = unknown,
  S extends StreamSummary = StreamSummary,
  B = unknown,
> {
  name: N;
  /** The job's name (default `<code>.<name>`) and attempts (default 5); queue `venues`. */
  job?: string;
  attempts?: number;
  modes: readonly M[];
  /** The leases a run takes, in order (one writer per table across processes). */
  leases(mode: M, options: O): readonly string[];
  /** A scheduled run that finds a lease held: `skip` (the next comes within one interval, default) or `retry`. */
  whenHeld?: Partial<Record<M, 'skip' | 'retry'>>;
  every: readonly StreamSchedule<M>[];
  summary(mode: M, options: O): S;
  read(client: C, ctx: StreamContext<M, O, S>): AsyncIterable<B>;
  rows(batch: B, ctx: StreamContext<M, O, S>): RowsByTable;
  tables: readonly TableSpec<S>[];
  /**
   * Writes what the batch holds beyond its `tables` its own way, after them; returns the rows written
   * that count for `source`'s bump.
   */
  write?(batch: B, ctx: StreamContext<M, O, S>): Promise<number>;
  /** The data source bumped when the run wrote a row (default `venue:<code>`; null: none, `write` bumps its own). */
  source?: DataSource | null;
  /** The marks to commit once the data is written, after those the read queued (`ctx.markAfter`). */
  marks?(ctx: StreamContext<M, O, S>): readonly StreamMark[] | Promise<readonly StreamMark[]>;
  /** Rows that may change canonical ids (a job enqueues the venue's assignment when > 0). */
  canonical?(summary: S): number;
  /** The step told after the commit (default `written`; null: none). */
  finalStep?: string | null;
  /** The observation time of the rows: one per run (default) or one per batch (a long sweep). */
  observe?: 'run' | 'batch';
  /** The summary's log line (none: not logged). */
  log?: { message: string; level?: 'info' | 'debug' };
}

// biome-ignore lint/suspicious/noExplicitAny: a list of streams of different types
export type AnyStream = StreamDefinition<any, string, any, any, any, any>;

export interface VenueDefinition<C = unknown, Streams extends readonly AnyStream[] = readonly AnyStream[]> {
  /** The venue's code: its tables' prefix and its data source `venue:<code>`. */
  code: string;
  /** Its watermarks' source (core/watermarks.ts). */
  source: string;
  /** Where its failed records are quarantined (default the code). */
  quarantine?: string;
  /** Its own config section (its upstream URL; what all REST venues share is ingest/rest/config.ts). */
  config: ConfigSection;
  /** Its upstream client for a configuration. */
  client(config: Config): C;
  streams: Streams;
  /** Its long-running feeds (ingest/feed.ts: a job each, under a lease; beta's book feed). */
  feeds?: readonly FeedDefinition[];
}

/** A venue's declaration (ingest/venues/<code>/index.ts). */
export function defineVenue<C, const Streams extends readonly AnyStream[]>(
  v: VenueDefinition<C, Streams>,
): VenueDefinition<C, Streams> {
  const names = v.streams.map((s) => s.name);
  if (new Set(names).size !== names.length) throw new Error(`Venue ${v.code}: two streams of one name`);
  return v;
}

/** One stream of a venue (typed by its client), for `defineVenue`'s `streams`. */
export function defineStream<
  C,
  const N extends string,
  const M extends string,
  O,
  S extends StreamSummary,
  B,
>(s: StreamDefinition<C, N, M, O, S, B>): StreamDefinition<C, N, M, O, S, B> {
  return s;
}

type StreamOf<V extends VenueDefinition, N extends string> = string extends V['streams'][number]['name']
  ? V['streams'][number]
  : Extract<V['streams'][number], { name: N }>;
type ClientOf<V> = V extends { client(config: Config): infer C } ? C : never;
type ModeOf<T> = T extends { modes: readonly (infer M)[] } ? M & string : never;
// biome-ignore lint/suspicious/noExplicitAny: matches any mode
type OptionsOf<T> = T extends { summary(mode: any, options: infer O): unknown } ? O : never;
// biome-ignore lint/suspicious/noExplicitAny: matches any mode and options
export type SummaryOf<T> = T extends { summary(...args: any[]): infer S } ? S : never;

export interface RunDeps<C = unknown> {
  clickhouse: ClickHouse;
  log: Logger;
  config?: Config;
  redis?: Redis;
  /** The upstream client (default: the venue's, from `config`). */
  client?: C;
  /** Observation clock (default: the client's `clock`, the upstream's). */
  now?: () => number;
  /** The progress store (default: core/watermarks.ts over `clickhouse`). */
  watermarks?: Watermarks;
}

export interface RunOptions<M extends string, O, S> {
  mode: M;
  /** The stream's own options (beta: `{trades}`, `{from}`). */
  options?: O;
  /** Called after each step (the CLI's progress). */
  onProgress?: (step: string, summary: S) => void;
  /** Called with each watermark the run committed, after its data (the job enqueues the dependents). */
  onCommit?: (mark: Watermark) => void;
  /**
   * Takes the stream's leases around the run: `skip` resolves to null when one is held (a scheduled run);
   * `wait` waits for it (a run a user asked for; null only when `wait.signal` stops the wait). Absent: the
   * caller holds them (or needs none).
   */
  lease?: 'skip' | 'wait';
  wait?: LeaseWaitOptions;
}

/** Lease time, renewed while the run holds it. */
export const STREAM_LEASE_MS = 60_000;

/** The stream `name` of `venue` (an unknown name throws). */
export function streamOf<V extends VenueDefinition, N extends V['streams'][number]['name']>(
  venue: V,
  name: N,
): StreamOf<V, N> {
  const s = venue.streams.find((x) => x.name === name);
  if (!s) throw new Error(`Venue ${venue.code} has no stream ${name}`);
  return s as StreamOf<V, N>;
}

/** The client of a run: `deps.client`, else the venue's from `deps.config`. */
export function clientFor<C>(venue: VenueDefinition<C>, deps: Pick<RunDeps<C>, 'client' | 'config'>): C {
  if (deps.client) return deps.client;
  if (!deps.config) throw new Error(`The ${venue.code} sync needs deps.client or deps.config`);
  return venue.client(deps.config);
}

export function runStream<V extends VenueDefinition, N extends V['streams'][number]['name']>(
  venue: V,
  name: N,
  deps: RunDeps<ClientOf<V>>,
  opts: RunOptions<ModeOf<StreamOf<V, N>>, OptionsOf<StreamOf<V, N>>, SummaryOf<StreamOf<V, N>>> & {
    lease?: undefined;
  },
): Promise<SummaryOf<StreamOf<V, N>>>;
export function runStream<V extends VenueDefinition, N extends V['streams'][number]['name']>(
  venue: V,
  name: N,
  deps: RunDeps<ClientOf<V>> & { redis: Redis },
  opts: RunOptions<ModeOf<StreamOf<V, N>>, OptionsOf<StreamOf<V, N>>, SummaryOf<StreamOf<V, N>>>,
): Promise<SummaryOf<StreamOf<V, N>> | null>;
export async function runStream(
  venue: VenueDefinition,
  name: string,
  deps: RunDeps,
  opts: RunOptions<string, unknown, StreamSummary>,
): Promise<StreamSummary | null> {
  const stream = streamOf(venue, name);
  if (!stream.modes.includes(opts.mode))
    throw new Error(`Stream ${venue.code}.${name} has no mode ${opts.mode}`);
  if (opts.lease === undefined) return run(venue, stream, deps, opts);
  const redis = deps.redis;
  if (!redis) throw new Error(`A leased run of ${venue.code}.${name} needs deps.redis`);
  const leases = stream.leases(opts.mode, opts.options ?? {});
  const held = (i: number): Promise<StreamSummary | null> => {
    if (i === leases.length) return run(venue, stream, deps, opts);
    const key = leases[i] as string;
    return opts.lease === 'wait'
      ? withLeaseWaiting(redis, key, STREAM_LEASE_MS, () => held(i + 1), opts.wait)
      : withLease(redis, key, STREAM_LEASE_MS, () => held(i + 1));
  };
  return held(0);
}

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;

/** The default label of a table's statements: `gamma_markets` → `gamma.markets`. */
const labelOf = (t: TableDescription) => t.name.replace('_', '.');

async function run(
  venue: VenueDefinition,
  stream: AnyStream,
  deps: RunDeps,
  opts: RunOptions<string, unknown, StreamSummary>,
): Promise<StreamSummary> {
  const t0 = performance.now();
  const ch = deps.clickhouse;
  const client = clientFor(venue, deps);
  const clock = (client as { clock?: () => number }).clock;
  const now = deps.now ?? (clock ? () => clock.call(client) : Date.now);
  const watermarks = deps.watermarks ?? createWatermarks(ch);
  const options = opts.options ?? {};
  const summary: StreamSummary = stream.summary(opts.mode, options);
  const quarantineSource = venue.quarantine ?? venue.code;
  const versions = deps.redis ? createDataVersions({ redis: deps.redis }) : null;

  /** Failed records accounted and not yet stored, and those stored this run (by kind and id). */
  const pending = new Map<string, InvalidRecord>();
  const uncounted: InvalidRecord[] = [];
  const stored = new Set<string>();
  let observed: number | null = null;
  let written = 0;
  let lastWritten: Record<string, number> = {};
  const queued: StreamMark[] = [];

  const step = (name: string) => {
    summary.ms = Math.round(performance.now() - t0);
    opts.onProgress?.(name, summary);
  };
  const ctx: StreamContext<string, unknown, StreamSummary> = {
    code: venue.code,
    mode: opts.mode,
    options,
    summary,
    clickhouse: ch,
    log: deps.log,
    config: deps.config ?? null,
    versions,
    account(r) {
      summary.requests += r.requests;
      summary.rereads += r.rereads;
      for (const x of r.invalid) pending.set(invalidKey(x), x);
    },
    quarantine(invalid) {
      uncounted.push(...invalid);
    },
    flush: () => flushQuarantine(),
    step,
    observedAt() {
      observed ??= now();
      return observed;
    },
    now,
    get written() {
      return lastWritten;
    },
    changed(n) {
      written += n;
    },
    async position(name) {
      return (await watermarks.read(venue.source, name))?.time ?? null;
    },
    markAfter(mark) {
      queued.push(mark);
    },
  };

  async function flushQuarantine() {
    const fresh = [...pending.values()].filter((x) => !stored.has(invalidKey(x)));
    pending.clear();
    for (const x of fresh) stored.add(invalidKey(x));
    summary.quarantined += fresh.length;
    const all = [...fresh, ...uncounted.splice(0)];
    await quarantineRecords(ch, quarantineSource, all);
  }

  for await (const batch of stream.read(client, ctx)) {
    const rows = stream.rows(batch, ctx);
    if (stream.observe === 'batch') observed = null;
    const at = ctx.observedAt();
    await flushQuarantine();
    lastWritten = {};
    for (const spec of stream.tables as readonly TableSpec<StreamSummary>[]) {
      const list = rows[spec.table.name];
      if (list === undefined) continue;
      const counts = spec.counts?.(summary) ?? null;
      const mode = spec.read ?? 'keys';
      if (counts && mode !== 'none') {
        counts.read += mode === 'rows' ? list.length : new Set(list.map((r) => String(r[spec.key]))).size;
      }
      const label = spec.label ?? labelOf(spec.table);
      const n =
        spec.write === 'new'
          ? await insertNew(ch, spec.table, list, at, { key: spec.key, scope: spec.scope, label })
          : await writeChanged(ch, spec.table, list, at, { key: spec.key, label });
      if (counts) counts.written += n;
      lastWritten[spec.table.name] = (lastWritten[spec.table.name] ?? 0) + n;
      written += n;
    }
    if (stream.write) written += await stream.write(batch, ctx);
  }
  await flushQuarantine();

  // The marks after the data: every batch's rows are acknowledged before the first mark is recorded.
  for (const m of [...queued, ...((await stream.marks?.(ctx)) ?? [])]) {
    const mark: Mark = { source: venue.source, stream: m.stream, kind: 'head', time: m.time };
    const committed = await watermarks.commit(mark);
    opts.onCommit?.(committed);
  }
  const source = stream.source === undefined ? (`venue:${venue.code}` as const) : stream.source;
  if (written > 0 && versions && source !== null) await versions.bump(source);
  summary.ms = Math.round(performance.now() - t0);
  const final = stream.finalStep === undefined ? 'written' : stream.finalStep;
  if (final !== null) step(final);
  if (stream.log) deps.log[stream.log.level ?? 'info']({ ...summary }, stream.log.message);
  return summary;
}
