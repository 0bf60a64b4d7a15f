/**
 * Venue alpha's chain ingestion: the generic EVM pipeline (ingest/chain/: log source, headers, writer,
 * range job, follower) composed with alpha's decoders, mapper, token map and tables.
 *
 * Jobs, the CLI and the benchmarks use `AlphaChainIngestor`, a small object of operations: the
 * reference pass (tokens), a backfill range job, the live follower, and the two lookups the CLI plans
 * with (the head, the block at a time). `AlphaChainParts` — the pieces it is built from — is for the page
 * workers (page-workers.ts), which run the same pipeline in other threads.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';
import { PermanentError } from '../../../../core/errors.ts';
import type { Logger } from '../../../../core/logger.ts';
import { BACKFILL_STREAM } from '../../../../core/watermarks.ts';
import { ALPHA_EVENT_TOPICS } from '../../../../schemas/abi/alpha-events.ts';
import {
  type BackfillRangeResult,
  type BlockRange,
  pageWalk,
  type RangeJobOptions,
  type RangeWalk,
  runBackfillRange,
} from '../../../chain/backfill.ts';
import { blockAtTime } from '../../../chain/block-at-time.ts';
import { createFollower, type Follower } from '../../../chain/follower.ts';
import { headersFor } from '../../../chain/headers.ts';
import { type ChainPipeline, createChainPipeline } from '../../../chain/pipeline.ts';
import { createLogSource, type LogSource, logPages } from '../../../chain/source.ts';
import { rangeTables } from '../../../chain/tables.ts';
import { type ChainWriter, type ChainWriterOptions, createChainWriter } from '../../../chain/writer.ts';
import { collectingSink } from './collect.ts';
import { createDecoderRegistry, type DecoderRegistry } from './decoders.ts';
import { createRowMapper, type RowMapper } from './mapper.ts';
import { ingestRangeOnWorkers, usesPageWorkers } from './page-workers.ts';
import type { Publisher } from './publish.ts';
import { type EventTable, emptyRowSet, REFERENCE_TABLES, type RowSink } from './rows.ts';
import type { AlphaChainSettings } from './settings.ts';
import { ALPHA_CHAIN_WRITES } from './tables.ts';
import { createTokenMap, type TokenMap } from './token-map.ts';

/** What alpha's chain ingestion offers its callers. */
export interface AlphaChainIngestor {
  readonly settings: AlphaChainSettings;
  /** Fails (PermanentError) when the node serves another chain than ALPHA_CHAIN_ID. */
  verifyChain(): Promise<void>;
  /** The node's head block number. */
  head(): Promise<number>;
  /** The first block at or after `timeMs` (Unix ms), at most `head` + 1. */
  blockAt(timeMs: number, head: number): Promise<number>;
  /**
   * The reference pass: ConditionPreparation, TokenRegistered, MarketPrepared and the NegRiskOperator's
   * QuestionPrepared over [from, to] into alpha_tokens, alpha_neg_risk_markets and
   * alpha_neg_risk_questions (and the in-memory token map), so range jobs running in any order know every
   * token's condition and every neg-risk UMA question's. Idempotent: the range's reference rows are rewritten.
   */
  referencePass(from: number, to: number, opts?: { signal?: AbortSignal }): Promise<{ tokens: number }>;
  /**
   * One backfill range job (ingest/chain/backfill.ts): resumes from its checkpoint, rewrites what lies
   * above it, spreads the blocks over page workers when the range is long enough.
   */
  ingestRange(range: BlockRange, opts?: RangeJobOptions): Promise<BackfillRangeResult>;
  /** Drops the marks of these range jobs (`backfill --force`: they run again from their start). */
  forgetCheckpoints(ranges: readonly BlockRange[]): Promise<void>;
  /** The live follower (ingest/chain/follower.ts); `publisher` gets every row it writes, removes or confirms. */
  follow(opts?: { publisher?: Publisher; fromBlock?: number; log?: Logger }): Follower;
}

/** The pieces an ingestor is built from (page workers build their own, sharing tokens and batches). */
export interface AlphaChainParts {
  settings: AlphaChainSettings;
  source: LogSource;
  decoders: DecoderRegistry;
  tokens: TokenMap;
  mapper: RowMapper;
  writer: ChainWriter<EventTable>;
  pipeline: ChainPipeline<EventTable>;
  log: Logger;
  /** True when the log source was given by the caller (page workers then cannot build their own). */
  readonly customSource: boolean;
}

export interface AlphaChainDeps {
  clickhouse?: ClickHouse;
  log: Logger;
  source?: LogSource;
  /** A page worker's: token lookups and rows go to the main thread (page-worker.ts). */
  tokens?: TokenMap;
  writer?: ChainWriter<EventTable>;
  /** Told after each change of the chain tables is visible (ChainWriterOptions.onDataChanged). */
  onDataChanged?: ChainWriterOptions<EventTable>['onDataChanged'];
}

/** Tables a range job rewrites (all but the reference pass's). */
const RANGE_TABLES = rangeTables(ALPHA_CHAIN_WRITES);

export function createAlphaChainParts(deps: AlphaChainDeps, settings: AlphaChainSettings): AlphaChainParts {
  const log = deps.log;
  const source =
    deps.source ??
    createLogSource({
      urls: settings.rpcUrls,
      log,
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
      tables: ALPHA_CHAIN_WRITES,
      clickhouse: deps.clickhouse,
      log,
      chainId: settings.chainId,
      batchRows: settings.batchRows,
      maxInFlight: settings.maxInFlight,
      onDataChanged: deps.onDataChanged,
    });
  const pipeline = createChainPipeline({
    source,
    writer,
    mapper,
    addresses: decoders.logAddresses,
    settings,
    log,
  });
  return {
    settings,
    source,
    decoders,
    tokens,
    mapper,
    writer,
    pipeline,
    log,
    customSource: deps.source !== undefined,
  };
}

/** The reference pass over [from, to] (see AlphaChainIngestor.referencePass). */
async function referencePass(
  parts: AlphaChainParts,
  from: number,
  to: number,
  opts: { signal?: AbortSignal } = {},
): Promise<{ tokens: number }> {
  const { settings, decoders, source, writer, mapper, log } = parts;
  const tokenSources = [
    settings.roles.conditionalTokens.toLowerCase(),
    settings.roles.negRiskAdapter.toLowerCase(),
    ...Object.values(settings.sets)
      .flat()
      .filter((c) => c.kind === 'exchangeV1' || c.kind === 'negRiskOperator')
      .map((c) => c.address.toLowerCase()),
  ].filter((a) => decoders.contractAt(a));
  // Rewrite the range's reference rows: idempotent whatever ran before.
  await writer.deleteRange(from, to, REFERENCE_TABLES, false);
  let count = 0;
  const pages = logPages(source, from, to, {
    addresses: tokenSources,
    topics: [
      [
        ALPHA_EVENT_TOPICS.conditionPreparation,
        ALPHA_EVENT_TOPICS.tokenRegistered,
        ALPHA_EVENT_TOPICS.marketPrepared,
        ALPHA_EVENT_TOPICS.operatorQuestionPrepared,
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
    const headers = await headersFor(source, page.logs, page.to, undefined);
    const mapped = await mapper.mapPage(page.logs, headers, () => 'confirmed');
    page.logs.release();
    count += mapped.rows.alpha_tokens.length;
    await writer.add({
      alpha_tokens: mapped.rows.alpha_tokens,
      alpha_neg_risk_markets: mapped.rows.alpha_neg_risk_markets,
      alpha_neg_risk_questions: mapped.rows.alpha_neg_risk_questions,
    });
  }
  await writer.flush();
  return { tokens: count };
}

/** The ingestor (of `parts` when given: a benchmark measures the same pieces on their own too). */
export function createAlphaChain(
  deps: AlphaChainDeps,
  settings: AlphaChainSettings,
  parts: AlphaChainParts = createAlphaChainParts(deps, settings),
): AlphaChainIngestor {
  const { source, writer, pipeline } = parts;
  const inThread: RangeWalk = pageWalk((from, to, o) =>
    pipeline.ingestRange(from, to, { statusOf: o.statusOf, skip: REFERENCE_TABLES, onPage: o.onPage }),
  );
  const walk: RangeWalk = (from, to, o) =>
    usesPageWorkers(parts, from, to) ? ingestRangeOnWorkers(parts, from, to, o) : inThread(from, to, o);
  return {
    settings,
    async verifyChain() {
      const id = await source.chainId();
      if (id !== settings.chainId) {
        throw new PermanentError(`The RPC serves chain ${id}, but ALPHA_CHAIN_ID is ${settings.chainId}`);
      }
    },
    head: () => source.headNumber(),
    blockAt: (timeMs, head) => blockAtTime(source, timeMs, head),
    referencePass: (from, to, opts) => referencePass(parts, from, to, opts),
    ingestRange: (range, opts) =>
      runBackfillRange(
        { source, writer, finalityDepth: settings.finalityDepth, rangeTables: RANGE_TABLES, walk },
        range,
        opts,
      ),
    async forgetCheckpoints(ranges) {
      for (const r of ranges) await writer.forgetMark(BACKFILL_STREAM, { from: r.from, to: r.to });
    },
    follow: (opts = {}) => {
      if (!deps.clickhouse) throw new Error('The alpha follower needs a ClickHouse client');
      return createFollower({
        chain: {
          source,
          writer,
          tables: ALPHA_CHAIN_WRITES,
          settings,
          ingestRange: pipeline.ingestRange,
          collector: () => {
            const rows = emptyRowSet();
            return { tee: (sink) => collectingSink(sink as RowSink, rows), rows: () => rows };
          },
        },
        clickhouse: deps.clickhouse,
        log: opts.log ?? deps.log,
        publisher: opts.publisher,
        fromBlock: opts.fromBlock,
      });
    },
  };
}
