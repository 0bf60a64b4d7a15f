/**
 * A chain's pipeline over a block range: fetch (adaptive log pages, source.ts) → headers (headers.ts)
 * → map (the venue's `PageMapper`) → write (writer.ts: bounded batched inserts). The backfill range job
 * (backfill.ts) and the live follower (follower.ts) both decide what a range means (status,
 * checkpoints, reorg handling) around `ingestRange`.
 *
 * Invariant: every row written carries the block hash of the header the pipeline holds for its block;
 * a page whose logs disagree with their headers fails with ReorgDetectedError before any of its rows is
 * written (headers.ts); callers delete what the failed range wrote above their checkpoint.
 */
import type { Logger } from '../../core/logger.ts';
import { HeaderRequests, headersFor } from './headers.ts';
import type { PackedLogs } from './packed-logs.ts';
import { ReorgDetectedError } from './rpc-errors.ts';
import { type LogSource, logPages } from './source.ts';
import type { BlockHeader, MapStats, QuarantineRow, Status } from './types.ts';
import type { ChainWriter, RowSink } from './writer.ts';

/** A venue's mapping of one page of logs (whole transactions) to rows. */
export interface PageMapper<T extends string> {
  /**
   * Maps `logs`, handing each row to `sink` as it is made. `headers` holds every block that has a log
   * in `logs`; `statusOf` says whether a block is pending or confirmed.
   */
  mapPageTo(
    sink: RowSink<T>,
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<{ quarantine: QuarantineRow[]; stats: MapStats }>;
}

/** How a range is walked (source.ts `PageOptions`). */
export interface PipelineSettings {
  logRange: number;
  logRangeMax: number;
  logConcurrency: number;
  targetLogsPerPage: number;
}

export interface IngestOptions<T extends string> {
  statusOf(block: number): Status;
  /** Tables whose rows are dropped (a range job leaves the reference pass's tables alone). */
  skip?: readonly T[];
  /** Headers the caller already holds (the follower's unfinalized chain): logs must match them. */
  knownHeaders?: Map<number, BlockHeader>;
  /** Wraps each page's sink (the follower collects the rows it publishes). */
  tee?: (sink: RowSink<T>) => RowSink<T>;
  /** Called after each page is handed to the writer (rows may still be in flight). */
  onPage?(page: PageResult): Promise<void>;
  /** More ranges to walk after [from, to] (see `PageOptions.nextRange`): a page worker's next chunks. */
  nextRange?: () => { from: number; to: number } | undefined;
  /** getLogs requests in flight (default: the settings'). */
  logConcurrency?: number;
}

export interface PageResult {
  from: number;
  to: number;
  /** Header of block `to` (for checkpoints). */
  endHeader: BlockHeader;
  logs: number;
  rows: number;
  stats: MapStats;
}

export interface RangeResult {
  logs: number;
  rows: number;
  quarantined: number;
  ignored: number;
  skipped: number;
  endHeader: BlockHeader | undefined;
  /** Milliseconds spent waiting for log pages (fetch not keeping up) and for headers. */
  waitFetchMs: number;
  waitHeadersMs: number;
}

export interface ChainPipeline<T extends string> {
  /** Fetches, maps and hands to the writer every log of [from, to]. The caller flushes. */
  ingestRange(from: number, to: number, opts: IngestOptions<T>): Promise<RangeResult>;
  /** Maps one page of logs already in memory (headers given) and hands the rows to the writer. */
  writeLogs(
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    opts: IngestOptions<T>,
  ): Promise<MapStats & { rows: number }>;
}

export function addStats(a: MapStats, b: MapStats): MapStats {
  return {
    logs: a.logs + b.logs,
    decoded: a.decoded + b.decoded,
    ignored: a.ignored + b.ignored,
    quarantined: a.quarantined + b.quarantined,
    skipped: a.skipped + b.skipped,
  };
}

export function createChainPipeline<T extends string>(o: {
  source: LogSource;
  writer: ChainWriter<T>;
  mapper: PageMapper<T>;
  /** The contracts whose logs are read (eth_getLogs `address`). */
  addresses: readonly string[];
  settings: PipelineSettings;
  log: Logger;
}): ChainPipeline<T> {
  const { source, writer, mapper, settings, log } = o;

  async function writeMapped(
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    opts: IngestOptions<T>,
  ): Promise<MapStats & { rows: number }> {
    const sink = writer.sink({ skip: opts.skip });
    const mapped = await mapper.mapPageTo(opts.tee ? opts.tee(sink) : sink, logs, headers, opts.statusOf);
    const rows = sink.accepted;
    await writer.drainFull();
    const blockRows: BlockHeader[] = [];
    for (const n of logs.blocks()) blockRows.push(headers.get(n)!);
    await writer.addBlocks(blockRows);
    await writer.addQuarantine(mapped.quarantine);
    if (mapped.quarantine.length > 0) {
      log.warn(
        {
          quarantined: mapped.quarantine.length,
          first: mapped.quarantine[0]?.record_id,
          reason: mapped.quarantine[0]?.reason,
        },
        'Quarantined malformed logs',
      );
    }
    return { ...mapped.stats, rows };
  }

  return {
    async ingestRange(from, to, opts) {
      const result: RangeResult = {
        logs: 0,
        rows: 0,
        quarantined: 0,
        ignored: 0,
        skipped: 0,
        endHeader: undefined,
        waitFetchMs: 0,
        waitHeadersMs: 0,
      };
      const requested = new HeaderRequests(source, opts.knownHeaders, to);
      const pages = logPages(source, from, to, {
        addresses: o.addresses,
        initialRange: settings.logRange,
        maxRange: settings.logRangeMax,
        concurrency: opts.logConcurrency ?? settings.logConcurrency,
        targetLogsPerPage: settings.targetLogsPerPage,
        nextRange: opts.nextRange,
        log,
        // The headers of short ranges are requested ahead of their logs (HeaderRequests), the others'
        // once their logs arrive; all are checked against the logs as soon as the logs arrive.
        onRequest: (from, to) => requested.request(from, to),
        enrich: (logs, _from, to) => headersFor(source, logs, to, opts.knownHeaders, requested),
      });
      let t = performance.now();
      // A page denser than the target arrives in parts: each is written as it comes, and the page
      // counts as handled (onPage: progress, checkpoints) with its final part.
      let pageLogs = 0;
      let pageRows = 0;
      let pageStats: MapStats | undefined;
      for await (const page of pages) {
        result.waitFetchMs += performance.now() - t;
        const headers = page.extra;
        const endHeader = headers.get(page.to);
        if (!endHeader)
          throw new ReorgDetectedError(`Block ${page.to} is not available from the node`, page.to);
        const stats = await writeMapped(page.logs, headers, opts);
        // Mapped: the rows hold copies of what they read, so the page's memory can take the next pages.
        page.logs.release();
        result.logs += page.logs.length;
        result.rows += stats.rows;
        result.quarantined += stats.quarantined;
        result.ignored += stats.ignored;
        result.skipped += stats.skipped;
        pageLogs += page.logs.length;
        pageRows += stats.rows;
        pageStats = pageStats ? addStats(pageStats, stats) : stats;
        if (page.final) {
          requested.forget(page.to);
          result.endHeader = endHeader;
          await opts.onPage?.({
            from: page.from,
            to: page.to,
            endHeader,
            logs: pageLogs,
            rows: pageRows,
            stats: pageStats,
          });
          pageLogs = 0;
          pageRows = 0;
          pageStats = undefined;
        }
        t = performance.now();
      }
      return result;
    },
    writeLogs: writeMapped,
  };
}
