/**
 * Logs → rows. One page of logs (whole blocks, so whole transactions) goes in; rows for every alpha
 * table, quarantined records and counts come out. Transactions are mapped as a unit because adapter-
 * mediated actions are attributed to the real user through the transaction's other logs
 * (docs/chain-ingestion.md, "The chain"): the CTF sees a collateral adapter as stakeholder, and the user only shows
 * up as the adapter's counterparty in the ERC-1155 transfers (or the pUSD wrap/unwrap) of the same tx.
 *
 * Each event has one mapping. The hot events (fills, ERC-1155 and collateral transfers, pUSD wraps,
 * OrdersMatched, FeeCharged) are written by the direct lane from the page's bytes (direct-lane.ts) or
 * quarantined with the reason it declined them; every other event is decoded (decoders.ts) and mapped
 * by its contract family's module (mappers/*.ts). A log `PackedLogs.of` could not write as it was
 * (`defect`) is quarantined as 'bad_log' before anything reads it.
 */
import { toEventSelector } from 'viem';
import type { AlphaContract } from '../../../../schemas/abi/alpha-addresses.ts';
import { ALPHA_EVENT_TOPICS, eventAbi } from '../../../../schemas/abi/alpha-events.ts';
import { AmountOverflowError, hexNumber } from '../../../chain/hex.ts';
import type { PackedLogs } from '../../../chain/packed-logs.ts';
import type { BlockHeader, MapStats, RpcLog } from '../../../chain/types.ts';
import { collectingSink } from './collect.ts';
import type { DecodeResult, DecoderRegistry } from './decoders.ts';
import { createDirectLane, LaneResult, TopicClass } from './direct-lane.ts';
import { TxContext, type TxTransfers } from './mappers/attribution.ts';
import { createMapContext, type Decoded, type FamilyMapper, type MapperOptions } from './mappers/context.ts';
import { createCtfMapper } from './mappers/ctf.ts';
import { createExchangeMapper } from './mappers/exchange.ts';
import { createNegRiskAdapterMapper } from './mappers/neg-risk-adapter.ts';
import { createOperatorMapper } from './mappers/operator.ts';
import { learnTokens } from './mappers/tokens.ts';
import { createUmaMapper, umaQuestionId } from './mappers/uma.ts';
import { emptyRowSet, type QuarantineRow, type RowSet, type RowSink, type Status } from './rows.ts';

export { toU64 } from './mappers/context.ts';
export type { MapperOptions, TxTransfers };

export const QUARANTINE_SOURCE = 'alpha-chain';

/** Logs mapped between two turns of the event loop (see mapPageTo). */
const YIELD_EVERY = 1_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Events that teach the mapper token ids, neg-risk market fees or neg-risk questions' conditions before a
 * page's rows are made, and the UMA events whose neg-risk questions' conditions are looked up then.
 */
const TOKEN_TOPICS = new Set<string>([
  ALPHA_EVENT_TOPICS.conditionPreparation,
  ALPHA_EVENT_TOPICS.tokenRegistered,
  ALPHA_EVENT_TOPICS.marketPrepared,
  ALPHA_EVENT_TOPICS.positionsConverted,
  ALPHA_EVENT_TOPICS.operatorQuestionPrepared,
  ...[...eventAbi('umaCtfAdapter'), ...eventAbi('optimisticOracleV2')].map((e) => toEventSelector(e)),
]);

export interface MappedPage {
  rows: RowSet;
  quarantine: QuarantineRow[];
  stats: MapStats;
}

export interface RowMapper {
  /**
   * Maps one page. `headers` must hold every block that has a log in `logs`; `statusOf` says whether
   * a block is pending or confirmed. Token knowledge for fills is resolved before mapping.
   */
  mapPage(
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<MappedPage>;
  /**
   * The same, handing each row to `sink` as soon as it is made (the writer serializes it at once, so
   * row objects die young instead of living as long as the page). Returns quarantine and counts. Hot
   * rows go through `sink.direct`; a sink without one gets them as objects read back from their bytes
   * (collect.ts).
   */
  mapPageTo(
    sink: RowSink,
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<Omit<MappedPage, 'rows'>>;
}

export function createRowMapper(decoders: DecoderRegistry, opts: MapperOptions): RowMapper {
  const ctx = createMapContext(opts);
  const { chainId, contracts, addressOf } = ctx;
  const lower = (a: string) => a.toLowerCase();
  const exchange = createExchangeMapper(ctx);
  const uma = createUmaMapper(ctx);
  /**
   * Each contract kind's family mapper; a kind not listed has no rows of its own (counted as skipped).
   * Hot events never reach them: the lane writes or declines those (so the collateral tokens, whose
   * events are all hot, have none).
   */
  const families: Partial<Record<AlphaContract['kind'], FamilyMapper>> = {
    exchangeV1: exchange.exchange,
    exchangeV2: exchange.exchange,
    feeModule: exchange.feeModule,
    conditionalTokens: createCtfMapper(ctx),
    negRiskAdapter: createNegRiskAdapterMapper(ctx),
    negRiskOperator: createOperatorMapper(ctx),
    umaCtfAdapter: uma.adapter,
    umaCtfAdapterV1: uma.adapter,
    optimisticOracleV2: uma.optimisticOracle,
  };

  const lane = createDirectLane({
    chainId,
    contracts,
    addressOf,
    symbolOf: (c) => ctx.symbols.get(addressOf(c)) ?? c.label,
    tokens: opts.tokens,
    fillV1Topic: ALPHA_EVENT_TOPICS.orderFilledV1,
    fillV2Topic: ALPHA_EVENT_TOPICS.orderFilledV2,
    tokenTopics: TOKEN_TOPICS,
  });

  async function mapPageTo(
    target: RowSink,
    logs: PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<Omit<MappedPage, 'rows'>> {
    const sink = target.direct ? target : collectingSink(target);
    const direct = sink.direct!;
    const quarantine: QuarantineRow[] = [];
    const stats: MapStats = { logs: logs.length, decoded: 0, ignored: 0, quarantined: 0, skipped: 0 };
    const blocks = { headers, statusOf };
    // Logs `PackedLogs.of` wrote markers for: checked only on a page that holds some.
    const defects = logs.hasDefects;

    const quarantineLog = (log: RpcLog, kind: string, reason: string) => {
      stats.quarantined++;
      const index = hexNumber(log.logIndex);
      quarantine.push({
        source: QUARANTINE_SOURCE,
        kind,
        record_id: `${chainId}:${lower(log.transactionHash)}:${Number.isNaN(index) ? log.logIndex : index}`,
        reason,
        payload: JSON.stringify(log),
      });
    };

    // Consecutive logs share their block and transaction: lowercase each hash once.
    let lastBlockHash = '';
    let lastBlockHashLower = '';
    let lastTxHash = '';
    let lastTxHashLower = '';
    const decodedOf = (log: RpcLog, r: Extract<DecodeResult, { status: 'decoded' }>): Decoded => {
      const blockNumber = hexNumber(log.blockNumber);
      if (log.blockHash !== lastBlockHash) {
        lastBlockHash = log.blockHash;
        lastBlockHashLower = lower(log.blockHash);
      }
      if (log.transactionHash !== lastTxHash) {
        lastTxHash = log.transactionHash;
        lastTxHashLower = lower(log.transactionHash);
      }
      const header = headers.get(blockNumber);
      if (!header) throw new Error(`mapPage: no header for block ${blockNumber}`);
      return {
        log,
        key: {
          chain_id: chainId,
          block_number: blockNumber,
          block_hash: lastBlockHashLower,
          block_time: header.timestampMs,
          tx_hash: lastTxHashLower,
          log_index: hexNumber(log.logIndex),
          status: statusOf(blockNumber),
        },
        contract: r.contract,
        name: r.name,
        args: r.args,
      };
    };

    // 1. Token knowledge first: this page's preparations and registrations (rare: decoded here and again
    //    below), the token ids its fills trade and the neg-risk markets it converts in, looked up at once.
    const fillTokens = new Set<string>();
    const convertMarkets = new Set<string>();
    const negRiskQuestions = new Set<string>();
    for (let i = 0; i < logs.length; i++) {
      if (logs.removed(i) || (defects && logs.defect(i) !== undefined)) continue;
      const c = lane.topicClass(logs, i);
      if (c === TopicClass.Other) continue;
      if (c === TopicClass.FillV1 || c === TopicClass.FillV2) {
        const token = lane.fillToken(logs, i, c === TopicClass.FillV2);
        if (token !== undefined) fillTokens.add(token);
        continue;
      }
      const log = logs.log(i);
      const r = decoders.decode(log);
      if (r.status !== 'decoded') continue;
      if (r.name === 'PositionsConverted') {
        convertMarkets.add(String(r.args.marketId));
        continue;
      }
      const kind = r.contract.kind;
      if (kind === 'umaCtfAdapter' || kind === 'umaCtfAdapterV1' || kind === 'optimisticOracleV2') {
        // A neg-risk UMA question: its condition is looked up below (unless this page prepares it).
        const oo = kind === 'optimisticOracleV2';
        const adapter = oo ? String(r.args.requester) : ctx.addressOf(r.contract);
        if (ctx.umaAdapterNegRisk.get(adapter)) {
          const q = oo ? umaQuestionId(ctx, adapter, r.args.ancillaryData) : String(r.args.questionID ?? '');
          if (q !== '') negRiskQuestions.add(q);
        }
        continue;
      }
      try {
        learnTokens(ctx, decodedOf(log, r), sink);
      } catch (err) {
        quarantineLog(
          log,
          err instanceof AmountOverflowError ? 'amount_overflow' : 'bad_data',
          (err as Error).message,
        );
      }
    }
    await opts.tokens.resolve(fillTokens);
    await opts.tokens.resolveMarkets(convertMarkets);
    const unknownQuestions = [...negRiskQuestions].filter((q) => !opts.tokens.questionCondition(q));
    if (unknownQuestions.length > 0) await opts.tokens.resolveQuestions(unknownQuestions);

    // 2. Rows, transaction by transaction (logs of a tx are contiguous in a page). Hot logs go to their
    //    rows at once (the lane); the others are decoded as they are mapped, and a transaction's decoded
    //    logs die with it instead of living as long as the page. Attribution reads the transaction's
    //    transfers from the bytes, as the lane writes them (`readTransfers`, when first asked).
    //    Every YIELD_EVERY logs (at a transaction boundary) the event loop gets a turn, so inserts that
    //    finished meanwhile free their slots and the sink's next full batch goes out at once instead of
    //    after the page: the engine is not left idle while a dense page is mapped.
    let tx: Decoded[] = [];
    let txStart = 0;
    let sinceYield = 0;
    // What attribution reads of logs [from, to): the CTF's ERC-1155 transfers (what 1) or the pUSD
    // movements (what 2) the lane writes.
    const readTransfers = (from: number, to: number, into: TxTransfers, what: 1 | 2) => {
      for (let j = from; j < to; j++) {
        if (logs.removed(j) || (defects && logs.defect(j) !== undefined)) continue;
        if (what === 1) lane.readTransfer(logs, j, into);
        else lane.readPusd(logs, j, into);
      }
    };
    const endTx = (end: number) => {
      if (tx.length === 0) return;
      const from = txStart;
      mapTransaction(tx, (into, what) => readTransfers(from, end, into, what), sink, stats, quarantineLog);
    };
    for (let i = 0; i < logs.length; i++) {
      if (logs.removed(i)) continue;
      if (i === 0 || !logs.sameTxAsPrevious(i)) {
        endTx(i);
        tx = [];
        txStart = i;
        if (sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await yieldToLoop();
        }
      }
      sinceYield++;
      if (defects) {
        const defect = logs.defect(i);
        if (defect !== undefined) {
          quarantineLog(logs.log(i), 'bad_log', defect);
          continue;
        }
      }
      const lr = lane.write(logs, i, direct, blocks);
      if (lr === LaneResult.Written) {
        stats.decoded++;
        continue;
      }
      if (lr === LaneResult.Declined) {
        quarantineLog(logs.log(i), lane.declined.kind, lane.declined.reason);
        continue;
      }
      const log = logs.log(i);
      const r = decoders.decode(log);
      if (r.status === 'ignored') {
        stats.ignored++;
        continue;
      }
      if (r.status === 'quarantine') {
        quarantineLog(log, r.kind, r.reason);
        continue;
      }
      tx.push(decodedOf(log, r));
      stats.decoded++;
    }
    endTx(logs.length);
    return { quarantine, stats };
  }

  function mapTransaction(
    txLogs: Decoded[],
    read: (into: TxTransfers, what: 1 | 2) => void,
    rows: RowSink,
    stats: MapStats,
    quarantineLog: (log: RpcLog, kind: string, reason: string) => void,
  ): void {
    const tx = new TxContext(read);
    for (const d of txLogs) {
      try {
        mapOne(d, tx, rows, stats);
      } catch (err) {
        quarantineLog(
          d.log,
          err instanceof AmountOverflowError ? 'amount_overflow' : 'bad_data',
          (err as Error).message,
        );
      }
    }
  }

  function mapOne(d: Decoded, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const family = families[d.contract.kind];
    if (family) family(d, d.key, tx, rows, stats);
    else stats.skipped++;
  }

  return {
    mapPageTo,
    async mapPage(logs, headers, statusOf) {
      const rows = emptyRowSet();
      const mapped = await mapPageTo(rows, logs, headers, statusOf);
      return { rows, ...mapped };
    },
  };
}
