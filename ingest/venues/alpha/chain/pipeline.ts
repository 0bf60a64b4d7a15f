/**
 * The alpha chain pipeline: fetch (adaptive log pages) → headers (JSON-RPC batches) → decode + map →
 * write (bounded batched inserts). Used by the backfill jobs and the live follower alike; both decide
 * what a range means (status, checkpoints, reorg handling) around `ingestRange`.
 *
 * Invariant: every row written carries the block hash of the header the pipeline holds for its block;
 * a log whose blockHash differs from that header means the chain moved under us, and the range fails
 * with ReorgDetectedError before any row of that page (or part of a dense page) is written; its
 * callers delete what the failed range wrote above their checkpoint.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';
import type { Logger } from '../../../../core/logger.ts';
import { ALPHA_EVENT_TOPICS } from '../../../../schemas/abi/alpha-events.ts';
import { createDecoderRegistry, type DecoderRegistry } from './decoders.ts';
import { createRowMapper, type MapStats, type RowMapper } from './mapper.ts';
import { PackedLogs } from '../../../chain/packed-logs.ts';
import { ReorgDetectedError } from '../../../chain/rpc-errors.ts';
import type { AlphaChainSettings } from './settings.ts';
import { createLogSource, type LogSource, logPages } from '../../../chain/source.ts';
import { createTokenMap, type TokenMap } from './token-map.ts';
import type { BlockHeader, RpcLog } from '../../../chain/types.ts';
import { EVENT_TABLES, type EventTable, emptyRowSet, REFERENCE_TABLES, type RowSet, type Status } from './rows.ts';
import { type ChainWriter, type ChainWriterOptions, createChainWriter } from '../../../chain/writer.ts';

export interface IngestOptions {
  statusOf(block: number): Status;
  /** Write alpha_tokens rows (the follower does; backfill jobs leave them to the token pass). */
  writeTokens: boolean;
  /** Headers the caller already holds (the follower's unfinalized chain): logs must match them. */
  knownHeaders?: Map<number, BlockHeader>;
  /** Return every row written (the follower publishes them). */
  collect?: boolean;
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
  collected: RowSet | undefined;
  /** Milliseconds spent waiting for log pages (fetch not keeping up) and for headers. */
  waitFetchMs: number;
  waitHeadersMs: number;
}

export interface AlphaChain {
  settings: AlphaChainSettings;
  source: LogSource;
  decoders: DecoderRegistry;
  tokens: TokenMap;
  mapper: RowMapper;
  writer: ChainWriter;
  log: Logger;
  /** True when the log source was given by the caller (page workers then cannot build their own). */
  readonly customSource: boolean;
  /** Tables a range job rewrites (all but alpha_tokens, which the token pass owns). */
  readonly rangeTables: readonly EventTable[];
  /** Fetches, maps and hands to the writer every log of [from, to]. The caller flushes. */
  ingestRange(from: number, to: number, opts: IngestOptions): Promise<RangeResult>;
  /**
   * The token pass: ConditionPreparation and TokenRegistered over [from, to] into alpha_tokens (and the
   * in-memory map), so backfill jobs running in any order know every token's condition.
   */
  tokenPass(from: number, to: number, opts?: { signal?: AbortSignal }): Promise<{ tokens: number }>;
  /** Maps one page of logs already in memory (headers given) and hands the rows to the writer. */
  writeLogs(
    logs: RpcLog[] | PackedLogs,
    headers: Map<number, BlockHeader>,
    opts: IngestOptions,
  ): Promise<PageResult['stats'] & { rows: number }>;
}

/**
 * Ranges of at most this many blocks have their blocks' headers requested with their logs, together
 * with the headers of as many blocks after them: on a busy chain nearly every block of a short range
 * has logs, and a node building large log responses (anvil) answers nothing else until they are built,
 * so a header asked for once its logs arrive, or just as they are requested, waits behind the next
 * ranges' logs.
 */
const HEADER_REQUEST_BLOCKS = 100;

/** Headers requested ahead of the logs that need them, by block. */
class HeaderRequests {
  readonly #byBlock = new Map<number, Promise<BlockHeader | undefined>>();
  /** Highest block whose header is requested. */
  #upTo = -1;
  constructor(
    private readonly source: LogSource,
    private readonly known: Map<number, BlockHeader> | undefined,
    /** The walk's last block (headers are not requested past it, but for a range beyond it). */
    private readonly last: number,
  ) {}

  /** A range [from, to] is requested: requests the headers of its blocks and the next ones if short. */
  request(from: number, to: number): void {
    if (to - from + 1 > HEADER_REQUEST_BLOCKS) return;
    const lo = Math.max(from, this.#upTo + 1);
    const hi = Math.max(to, Math.min(this.last, to + HEADER_REQUEST_BLOCKS));
    if (lo > hi) return;
    this.#upTo = hi;
    const numbers: number[] = [];
    for (let n = lo; n <= hi; n++) if (!this.known?.has(n) && !this.#byBlock.has(n)) numbers.push(n);
    if (numbers.length === 0) return;
    // A failed request leaves its blocks to the fetch made when their logs arrive.
    const all = this.source.getHeaders(numbers).catch(() => new Map<number, BlockHeader>());
    for (const n of numbers)
      this.#byBlock.set(
        n,
        all.then((m) => m.get(n)),
      );
  }

  get(n: number): Promise<BlockHeader | undefined> | undefined {
    return this.#byBlock.get(n);
  }

  /** Drops the requests of blocks up to `to` (their pages are handled). */
  forget(to: number): void {
    for (const n of this.#byBlock.keys()) if (n <= to) this.#byBlock.delete(n);
  }
}

function addStats(a: MapStats, b: MapStats): MapStats {
  return {
    logs: a.logs + b.logs,
    decoded: a.decoded + b.decoded,
    ignored: a.ignored + b.ignored,
    quarantined: a.quarantined + b.quarantined,
    skipped: a.skipped + b.skipped,
  };
}

export function createAlphaChain(
  deps: {
    clickhouse?: ClickHouse;
    log: Logger;
    source?: LogSource;
    /** A page worker's: token lookups and rows go to the main thread (page-worker.ts). */
    tokens?: TokenMap;
    writer?: ChainWriter;
    /** Told after each change of the chain tables is visible (ChainWriterOptions.onDataChanged). */
    onDataChanged?: ChainWriterOptions['onDataChanged'];
  },
  settings: AlphaChainSettings,
): AlphaChain {
  const log = deps.log;
  const source =
    deps.source ??
    createLogSource({
      urls: settings.rpcUrls,
      log,
      httpReader: settings.rpcReader,
      maxResponseBodySize: 512 * 1024 * 1024,
      timeoutMs: 60_000,
    });
  const decoders = createDecoderRegistry(settings.sets);
  const tokens = deps.tokens ?? createTokenMap({ clickhouse: deps.clickhouse, chainId: settings.chainId });
  const mapper = createRowMapper(decoders, {
    chainId: settings.chainId,
    sets: settings.sets,
    roles: settings.roles,
    positionIds: settings.positionIds,
    tokens,
  });
  const writer =
    deps.writer ??
    createChainWriter({
      clickhouse: deps.clickhouse,
      log,
      chainId: settings.chainId,
      batchRows: settings.batchRows,
      maxInFlight: settings.maxInFlight,
      onDataChanged: deps.onDataChanged,
    });
  const rangeTables = EVENT_TABLES.filter((t) => !REFERENCE_TABLES.includes(t));

  async function headersFor(
    logs: PackedLogs,
    extra: number,
    known: Map<number, BlockHeader> | undefined,
    requested?: HeaderRequests,
  ): Promise<Map<number, BlockHeader>> {
    const wanted = new Set<number>([extra]);
    for (const n of logs.blocks()) wanted.add(n);
    const out = new Map<number, BlockHeader>();
    const missing: number[] = [];
    for (const n of wanted) {
      const h = known?.get(n) ?? (await requested?.get(n));
      if (h) out.set(n, h);
      else missing.push(n);
    }
    if (missing.length > 0) {
      const fetched = await source.getHeaders(missing);
      for (const [n, h] of fetched) out.set(n, h);
    }
    // Logs come in block order: the hash is compared again only where the block (or its hash) changes.
    for (let i = 0; i < logs.length; i++) {
      if (i > 0 && logs.sameBlockAsPrevious(i)) continue;
      const n = logs.blockNumber(i);
      const h = out.get(n);
      const hash = logs.blockHash(i);
      if (!h || h.hash !== hash.toLowerCase()) {
        throw new ReorgDetectedError(
          `Block ${n} changed while reading it: log block hash ${hash}, header ${h?.hash ?? 'missing'}`,
          n,
        );
      }
    }
    return out;
  }

  async function writeMapped(
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    opts: IngestOptions,
    collected: RowSet | undefined,
  ): Promise<MapStats & { rows: number }> {
    const sink = writer.sink({ skip: opts.writeTokens ? [] : REFERENCE_TABLES, collect: collected });
    const mapped = await mapper.mapPageTo(sink, logs, headers, opts.statusOf);
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
    settings,
    source,
    decoders,
    tokens,
    mapper,
    writer,
    log,
    customSource: deps.source !== undefined,
    rangeTables,
    async ingestRange(from, to, opts) {
      const result: RangeResult = {
        logs: 0,
        rows: 0,
        quarantined: 0,
        ignored: 0,
        skipped: 0,
        endHeader: undefined,
        collected: opts.collect ? emptyRowSet() : undefined,
        waitFetchMs: 0,
        waitHeadersMs: 0,
      };
      const requested = new HeaderRequests(source, opts.knownHeaders, to);
      const pages = logPages(source, from, to, {
        addresses: decoders.logAddresses,
        initialRange: settings.logRange,
        maxRange: settings.logRangeMax,
        concurrency: opts.logConcurrency ?? settings.logConcurrency,
        targetLogsPerPage: settings.targetLogsPerPage,
        nextRange: opts.nextRange,
        log,
        // The headers of short ranges are requested ahead of their logs (HeaderRequests), the others'
        // once their logs arrive; all are checked against the logs as soon as the logs arrive.
        onRequest: (from, to) => requested.request(from, to),
        enrich: (logs, _from, to) => headersFor(logs, to, opts.knownHeaders, requested),
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
        const stats = await writeMapped(page.logs, headers, opts, result.collected);
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
    async writeLogs(logs, headers, opts) {
      return writeMapped(Array.isArray(logs) ? PackedLogs.of(logs) : logs, headers, opts, undefined);
    },
    async tokenPass(from, to, opts = {}) {
      const tokenSources = [
        settings.roles.conditionalTokens.toLowerCase(),
        settings.roles.negRiskAdapter.toLowerCase(),
        ...Object.values(settings.sets)
          .flat()
          .filter((c) => c.kind === 'exchangeV1')
          .map((c) => c.address.toLowerCase()),
      ].filter((a) => decoders.contractAt(a));
      // Rewrite the range's token rows: idempotent whatever ran before.
      await writer.deleteRange(from, to, REFERENCE_TABLES, false);
      let count = 0;
      const pages = logPages(source, from, to, {
        addresses: tokenSources,
        topics: [
          [
            ALPHA_EVENT_TOPICS.conditionPreparation,
            ALPHA_EVENT_TOPICS.tokenRegistered,
            ALPHA_EVENT_TOPICS.marketPrepared,
          ],
        ],
        initialRange: settings.logRangeMax,
        maxRange: settings.logRangeMax,
        concurrency: settings.logConcurrency,
        targetLogsPerPage: settings.targetLogsPerPage,
        log,
      });
      for await (const page of pages) {
        opts.signal?.throwIfAborted();
        if (page.logs.length === 0) continue;
        const headers = await headersFor(page.logs, page.to, undefined);
        const mapped = await mapper.mapPage(page.logs, headers, () => 'confirmed');
        page.logs.release();
        count += mapped.rows.alpha_tokens.length;
        await writer.add({
          ...emptyRowSet(),
          alpha_tokens: mapped.rows.alpha_tokens,
          alpha_neg_risk_markets: mapped.rows.alpha_neg_risk_markets,
        });
      }
      await writer.flush();
      return { tokens: count };
    },
  };
}
