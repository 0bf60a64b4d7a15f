/**
 * Logs → rows. One page of logs (whole blocks, so whole transactions) goes in; rows for every alpha
 * table, quarantined records and counts come out. Transactions are mapped as a unit because adapter-
 * mediated actions are attributed to the real user through the transaction's other logs
 * (docs/chain-ingestion.md, "The chain"): the CTF sees a collateral adapter as stakeholder, and the user only shows
 * up as the adapter's counterparty in the ERC-1155 transfers (or the pUSD wrap/unwrap) of the same tx.
 */
import type { AlphaContract } from '../../../../schemas/abi/alpha-addresses.ts';
import { ALPHA_EVENT_TOPICS } from '../../../../schemas/abi/alpha-events.ts';
import type { DecodeResult, DecoderRegistry } from './decoders.ts';
import { createDirectLane, TopicClass, TransferRead } from './direct-lane.ts';
import { AmountOverflowError, hexNumber, idString, word, ZERO_WORD } from '../../../chain/hex.ts';
import { addTransfer, TxContext, type TxTransfers } from './mappers/attribution.ts';
import { createCollateralMapper } from './mappers/collateral.ts';
import {
  createMapContext,
  type Decoded,
  type FamilyMapper,
  type MapperOptions,
  type MapStats,
} from './mappers/context.ts';
import { createCtfMapper } from './mappers/ctf.ts';
import { createExchangeMapper } from './mappers/exchange.ts';
import { createNegRiskAdapterMapper } from './mappers/neg-risk-adapter.ts';
import { createOperatorMapper } from './mappers/operator.ts';
import { learnTokens } from './mappers/tokens.ts';
import { createUmaMapper } from './mappers/uma.ts';
import { PackedLogs } from '../../../chain/packed-logs.ts';
import type { BlockHeader, RpcLog } from '../../../chain/types.ts';
import { emptyRowSet, type QuarantineRow, type RowSet, type RowSink, type Status } from './rows.ts';

export { toU64 } from './mappers/context.ts';
export type { MapperOptions, MapStats, TxTransfers };

export const QUARANTINE_SOURCE = 'alpha-chain';

/** Logs mapped between two turns of the event loop (see mapPageTo). */
const YIELD_EVERY = 1_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const T_FILLED_V1 = ALPHA_EVENT_TOPICS.orderFilledV1;
const T_FILLED_V2 = ALPHA_EVENT_TOPICS.orderFilledV2;
/** Events that teach the mapper token ids or neg-risk market fees before a page's rows are made. */
const TOKEN_TOPICS = new Set<string>([
  ALPHA_EVENT_TOPICS.conditionPreparation,
  ALPHA_EVENT_TOPICS.tokenRegistered,
  ALPHA_EVENT_TOPICS.marketPrepared,
  ALPHA_EVENT_TOPICS.positionsConverted,
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
    logs: RpcLog[] | PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<MappedPage>;
  /**
   * The same, handing each row to `sink` as soon as it is made (the writer serializes it at once, so
   * row objects die young instead of living as long as the page). Returns quarantine and counts.
   */
  mapPageTo(
    sink: RowSink,
    logs: RpcLog[] | PackedLogs,
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
  const collateral = createCollateralMapper(ctx);
  /** Each contract kind's family mapper; a kind not listed has no rows of its own (counted as skipped). */
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
    erc20Collateral: collateral,
    collateralToken: collateral,
  };

  /** The token id an OrderFilled log trades, read from its data words (a hint for the token lookup). */
  function fillTokenOf(log: RpcLog, v2: boolean): string | undefined {
    const d = log.data;
    if (d.length < 2 + 64 * 2) return undefined;
    if (v2) return idString(word(d, 1));
    const makerAsset = word(d, 0);
    return idString(makerAsset === ZERO_WORD ? word(d, 1) : makerAsset);
  }

  // Hot events straight from the bytes of their response (direct-lane.ts); the rest as objects below.
  const lane = createDirectLane({
    chainId,
    contracts,
    addressOf,
    symbolOf: (c) => ctx.symbols.get(addressOf(c)) ?? c.label,
    tokens: opts.tokens,
    fillV1Topic: T_FILLED_V1,
    fillV2Topic: T_FILLED_V2,
    tokenTopics: TOKEN_TOPICS,
  });

  async function mapPageTo(
    sink: RowSink,
    input: RpcLog[] | PackedLogs,
    headers: Map<number, BlockHeader>,
    statusOf: (block: number) => Status,
  ): Promise<Omit<MappedPage, 'rows'>> {
    const logs = Array.isArray(input) ? PackedLogs.of(input) : input;
    const quarantine: QuarantineRow[] = [];
    const stats: MapStats = { logs: logs.length, decoded: 0, ignored: 0, quarantined: 0, skipped: 0 };
    // The lane needs the bytes, and a sink that takes rows written column by column.
    const direct = logs.buf !== undefined ? sink.direct : undefined;
    if (direct) lane.page({ headers, statusOf });

    const quarantineLog = (log: RpcLog, kind: string, reason: string) => {
      stats.quarantined++;
      quarantine.push({
        source: QUARANTINE_SOURCE,
        kind,
        record_id: `${chainId}:${lower(log.transactionHash)}:${hexNumber(log.logIndex)}`,
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
    for (let i = 0; i < logs.length; i++) {
      if (logs.removed(i)) continue;
      if (logs.buf !== undefined) {
        const c = lane.topicClass(logs, i);
        if (c === TopicClass.Other) continue;
        if (c === TopicClass.FillV1 || c === TopicClass.FillV2) {
          const v2 = c === TopicClass.FillV2;
          let token = lane.fillToken(logs, i, v2);
          if (token === null) token = fillTokenOf(logs.log(i), v2);
          if (token !== undefined) fillTokens.add(token);
          continue;
        }
      }
      const log = logs.log(i);
      const raw0 = log.topics[0];
      const topic0 = raw0 === T_FILLED_V1 || raw0 === T_FILLED_V2 ? raw0 : raw0?.toLowerCase();
      if (topic0 === T_FILLED_V1 || topic0 === T_FILLED_V2) {
        const token = fillTokenOf(log, topic0 === T_FILLED_V2);
        if (token !== undefined) fillTokens.add(token);
        continue;
      }
      if (topic0 === undefined || !TOKEN_TOPICS.has(topic0)) continue;
      const r = decoders.decode(log);
      if (r.status !== 'decoded') continue;
      if (r.name === 'PositionsConverted') {
        convertMarkets.add(String(r.args.marketId));
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

    // 2. Rows, transaction by transaction (logs of a tx are contiguous in a page). Hot logs go to their
    //    rows at once (the lane); the others are decoded as they are mapped, and a transaction's decoded
    //    logs die with it instead of living as long as the page. Attribution reads the transaction's
    //    transfers, lane-written ones included (`readTransfers` reads them when first asked).
    //    Every YIELD_EVERY logs (at a transaction boundary) the event loop gets a turn, so inserts that
    //    finished meanwhile free their slots and the sink's next full batch goes out at once instead of
    //    after the page: the engine is not left idle while a dense page is mapped.
    let tx: Decoded[] = [];
    let txStart = 0;
    let sinceYield = 0;
    // The transfers of logs [from, to): ERC-1155 single transfers read from their bytes by the lane,
    // the other logs of the CTF and pUSD (or of an emitter the bytes do not name) decoded.
    const readTransfers = (from: number, to: number, into: TxTransfers, what: 1 | 2) => {
      const wanted = what === 1 ? 'conditionalTokens' : 'collateralToken';
      for (let j = from; j < to; j++) {
        if (logs.removed(j)) continue;
        const kind = lane.kindAt(logs, j);
        if (kind !== undefined && kind !== wanted) continue;
        if (what === 1 && kind === wanted && lane.readTransfer(logs, j, into) !== TransferRead.Unknown)
          continue;
        const log = logs.log(j);
        const r = decoders.decode(log);
        if (r.status === 'decoded') addTransfer(into, decodedOf(log, r), what);
      }
    };
    const endTx = (end: number) => {
      if (tx.length === 0) return;
      const from = txStart;
      const read = direct
        ? (into: TxTransfers, what: 1 | 2) => readTransfers(from, end, into, what)
        : undefined;
      mapTransaction(tx, read, sink, stats, quarantineLog);
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
      if (direct && lane.write(logs, i, direct)) {
        stats.decoded++;
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
    /** Reads the transaction's transfers when some logs were written by the lane (not in `txLogs`). */
    read: ((into: TxTransfers, what: 1 | 2) => void) | undefined,
    rows: RowSink,
    stats: MapStats,
    quarantineLog: (log: RpcLog, kind: string, reason: string) => void,
  ): void {
    const tx = new TxContext(
      read ??
        ((into, what) => {
          for (const d of txLogs) addTransfer(into, d, what);
        }),
    );
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
