/**
 * Logs → rows. One page of logs (whole blocks, so whole transactions) goes in; rows for every alpha
 * table, quarantined records and counts come out. Transactions are mapped as a unit because adapter-
 * mediated actions are attributed to the real user through the transaction's other logs
 * (alpha-chain.md §5, §11.5): the CTF sees a collateral adapter as stakeholder, and the user only shows
 * up as the adapter's counterparty in the ERC-1155 transfers (or the pUSD wrap/unwrap) of the same tx.
 */
import type { Hex } from 'viem';
import type { AddressSets, AlphaContract } from '../../schemas/abi/alpha-addresses.ts';
import { allContracts } from '../../schemas/abi/alpha-addresses.ts';
import { ALPHA_EVENT_TOPICS } from '../../schemas/abi/alpha-events.ts';
import type { Args, DecodeResult, DecoderRegistry } from './decoders.ts';
import { createDirectLane, TopicClass, TransferRead } from './direct-lane.ts';
import {
  AmountOverflowError,
  hexNumber,
  idString,
  optionalBytes32,
  ratio,
  word,
  ZERO_ADDRESS,
  ZERO_WORD,
} from './hex.ts';
import { PackedLogs } from './packed-logs.ts';
import { type PositionIdScheme, positionIdOf } from './position-ids.ts';
import type { TokenMap } from './token-map.ts';
import {
  type ActivityRow,
  type BlockHeader,
  type EventKey,
  emptyRowSet,
  type QuarantineRow,
  type RowSet,
  type RowSink,
  type RpcLog,
  type Status,
  type TokenTransferRow,
  type U64,
} from './types.ts';

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

export interface MapperOptions {
  chainId: number;
  sets: AddressSets;
  /** Role addresses: collateral of standard (USDC.e) and neg-risk (WCOL) positions, the pUSD token. */
  roles: { usdcE: string; wcol: string; pUsd: string };
  positionIds: PositionIdScheme;
  tokens: TokenMap;
}

export interface MapStats {
  logs: number;
  decoded: number;
  ignored: number;
  quarantined: number;
  /** Activity-level events deliberately not turned into activity rows (exchange mints, adapter echoes). */
  skipped: number;
}

export interface MappedPage {
  rows: RowSet;
  quarantine: QuarantineRow[];
  stats: MapStats;
}

interface Decoded {
  log: RpcLog;
  key: EventKey;
  contract: AlphaContract;
  name: string;
  args: Args;
}

/** A U64 from a normalized decimal string or number; throws when it does not fit UInt64. */
export function toU64(v: unknown): U64 {
  if (typeof v === 'number') return v;
  const s = String(v);
  if (s.length <= 15) return Number(s);
  const b = BigInt(s);
  if (b < 0n || b > 0xffffffffffffffffn) throw new AmountOverflowError(`amount ${s} exceeds UInt64`);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : s;
}

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** An alpha_token_transfers row, field by field (no spread: the table gets the most rows of any). */
function tokenTransferRow(
  key: EventKey,
  batchIndex: number,
  operator: string,
  from: string,
  to: string,
  tokenId: string,
  amount: U64,
): TokenTransferRow {
  return {
    chain_id: key.chain_id,
    block_number: key.block_number,
    block_hash: key.block_hash,
    block_time: key.block_time,
    tx_hash: key.tx_hash,
    log_index: key.log_index,
    status: key.status,
    batch_index: batchIndex,
    operator,
    from_address: from,
    to_address: to,
    token_id: tokenId,
    amount,
  };
}

function sumU64(values: U64[]): U64 {
  let total = 0n;
  for (const v of values) total += BigInt(v);
  return toU64(total.toString());
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
  const chainId = opts.chainId;
  const lower = (a: string) => a.toLowerCase();
  const contracts = allContracts(opts.sets);
  const exchanges = new Set(
    contracts.filter((c) => c.kind === 'exchangeV1' || c.kind === 'exchangeV2').map((c) => lower(c.address)),
  );
  const negRiskAdapters = new Set(
    contracts.filter((c) => c.kind === 'negRiskAdapter').map((c) => lower(c.address)),
  );
  const collateralAdapters = new Set(
    contracts.filter((c) => c.kind === 'collateralAdapter').map((c) => lower(c.address)),
  );
  const umaAdapters = new Set(
    contracts
      .filter((c) => c.kind === 'umaCtfAdapter' || c.kind === 'umaCtfAdapterV1')
      .map((c) => lower(c.address)),
  );
  const negRiskAdapterContracts = new Map(
    contracts.filter((c) => c.kind === 'collateralAdapter').map((c) => [lower(c.address), c.negRisk]),
  );
  const usdcE = lower(opts.roles.usdcE);
  const wcol = lower(opts.roles.wcol);
  const pUsd = lower(opts.roles.pUsd);
  const symbols = new Map<string, string>([
    [usdcE, 'USDC.e'],
    [pUsd, 'pUSD'],
  ]);
  for (const c of contracts)
    if (c.kind === 'erc20Collateral' || c.kind === 'collateralToken') symbols.set(lower(c.address), c.label);

  // Contract addresses as row values, lowercased once per contract instead of once per row.
  const lowered = new Map<string, string>();
  const addressOf = (c: AlphaContract): string => {
    let a = lowered.get(c.address);
    if (a === undefined) {
      a = lower(c.address);
      lowered.set(c.address, a);
    }
    return a;
  };

  // Position ids through a bounded cache: a derivation is two keccak256 (tens of µs in JS), and each binary
  // condition's ids are wanted by its preparation (twice: tokens, lifecycle) and by every adapter-mediated
  // split, merge and redemption of it.
  const POSITION_CACHE_MAX = 50_000;
  const positionCache = new Map<string, string>();
  function positionId(collateral: string, conditionId: string, indexSet: bigint): string {
    const k = `${collateral}${conditionId}${indexSet}`;
    let id = positionCache.get(k);
    if (id === undefined) {
      id = positionIdOf(opts.positionIds, collateral as Hex, conditionId as Hex, indexSet);
      if (positionCache.size >= POSITION_CACHE_MAX) positionCache.clear();
      positionCache.set(k, id);
    }
    return id;
  }

  function tokenIdsOf(collateral: string, conditionId: string, indexSets: string[]): Set<string> {
    const out = new Set<string>();
    for (const s of indexSets) out.add(positionId(collateral, conditionId, BigInt(s)));
    return out;
  }

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
    symbolOf: (c) => symbols.get(addressOf(c)) ?? c.label,
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
        learnTokens(decodedOf(log, r), sink);
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

  function learnTokens(d: Decoded, rows: RowSink): void {
    const a = d.args;
    const base = {
      chain_id: chainId,
      block_number: d.key.block_number,
      tx_hash: d.key.tx_hash,
      log_index: d.key.log_index,
    };
    if (d.contract.kind === 'conditionalTokens' && d.name === 'ConditionPreparation') {
      if (Number(a.outcomeSlotCount) !== 2) return;
      const conditionId = str(a.conditionId);
      const negRisk = negRiskAdapters.has(str(a.oracle));
      const collateral = negRisk ? wcol : usdcE;
      const yes = positionId(collateral, conditionId, 1n);
      const no = positionId(collateral, conditionId, 2n);
      for (const [token, index, complement] of [
        [yes, 0, no],
        [no, 1, yes],
      ] as const) {
        opts.tokens.set(token, { condition_id: conditionId, outcome_index: index });
        rows.alpha_tokens.push({
          ...base,
          token_id: token,
          condition_id: conditionId,
          outcome_index: index,
          complement_token_id: complement,
          neg_risk: negRisk,
          source: 'condition_prepared',
        });
      }
    } else if (d.contract.kind === 'negRiskAdapter' && d.name === 'MarketPrepared') {
      const feeBips = Number(a.feeBips);
      opts.tokens.setMarketFee(str(a.marketId), feeBips);
      rows.alpha_neg_risk_markets.push({
        ...base,
        market_id: str(a.marketId),
        oracle: str(a.oracle),
        fee_bips: feeBips,
      });
    } else if (d.contract.kind === 'exchangeV1' && d.name === 'TokenRegistered') {
      const token = str(a.token0);
      const conditionId = str(a.conditionId);
      if (!opts.tokens.get(token)) opts.tokens.set(token, { condition_id: conditionId, outcome_index: -1 });
      rows.alpha_tokens.push({
        ...base,
        token_id: token,
        condition_id: conditionId,
        outcome_index: opts.tokens.get(token)?.outcome_index ?? -1,
        complement_token_id: str(a.token1),
        neg_risk: d.contract.negRisk,
        source: 'token_registered',
      });
    }
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
        mapOne(d, d.key, tx, rows, stats);
      } catch (err) {
        quarantineLog(
          d.log,
          err instanceof AmountOverflowError ? 'amount_overflow' : 'bad_data',
          (err as Error).message,
        );
      }
    }
  }

  function mapOne(d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const c = d.contract;
    const address = addressOf(c);
    switch (c.kind) {
      case 'exchangeV1':
      case 'exchangeV2':
        mapExchange(d, key, rows);
        return;
      case 'feeModule': {
        const v2025 = d.log.topics.length === 4;
        rows.alpha_exchange_events.push({
          ...key,
          kind: 'fee_refunded',
          contract: address,
          exchange_version: 1,
          neg_risk: c.negRisk,
          order_hash: v2025 ? str(a.orderHash) : '',
          account: str(a.to),
          token_id: str(a.id),
          amount: toU64(v2025 ? a.refund : a.amount),
          args: JSON.stringify(a),
        });
        return;
      }
      case 'conditionalTokens':
        mapCtf(d, key, tx, rows, stats);
        return;
      case 'negRiskAdapter':
        mapNegRiskAdapter(d, key, tx, rows, stats);
        return;
      case 'negRiskOperator':
        mapOperator(d, key, rows);
        return;
      case 'umaCtfAdapter':
      case 'umaCtfAdapterV1':
        mapUmaAdapter(d, key, rows);
        return;
      case 'optimisticOracleV2': {
        if (!umaAdapters.has(str(a.requester))) {
          stats.skipped++;
          return;
        }
        const kind = {
          RequestPrice: 'request_price',
          ProposePrice: 'propose_price',
          DisputePrice: 'dispute_price',
          Settle: 'settle',
        }[d.name];
        const price = d.name === 'Settle' ? a.price : d.name === 'RequestPrice' ? null : a.proposedPrice;
        rows.alpha_oracle.push({
          ...key,
          kind: kind ?? d.name,
          contract: address,
          neg_risk: false,
          question_id: '',
          requester: str(a.requester),
          proposer: str(a.proposer),
          disputer: str(a.disputer),
          identifier: str(a.identifier),
          request_timestamp: toU64(a.timestamp),
          ancillary_data: str(a.ancillaryData),
          price: price === null || price === undefined ? null : str(price),
          payouts: [],
          args: JSON.stringify(a),
        });
        return;
      }
      case 'erc20Collateral':
      case 'collateralToken': {
        const symbol = symbols.get(address) ?? c.label;
        if (d.name === 'Transfer') {
          rows.alpha_collateral.push({
            chain_id: key.chain_id,
            block_number: key.block_number,
            block_hash: key.block_hash,
            block_time: key.block_time,
            tx_hash: key.tx_hash,
            log_index: key.log_index,
            status: key.status,
            kind: 'transfer',
            token: address,
            symbol,
            from_address: str(a.from),
            to_address: str(a.to),
            caller: '',
            asset: '',
            amount: toU64(a.value),
          });
        } else {
          rows.alpha_collateral.push({
            ...key,
            kind: d.name === 'Wrapped' ? 'wrap' : 'unwrap',
            token: address,
            symbol,
            from_address: '',
            to_address: str(a.to),
            caller: str(a.caller),
            asset: str(a.asset),
            amount: toU64(a.amount),
          });
        }
        return;
      }
      default:
        stats.skipped++;
    }
  }

  function mapExchange(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const c = d.contract;
    const exchange = addressOf(c);
    const version = c.kind === 'exchangeV2' ? 2 : 1;
    if (d.name === 'OrderFilled') {
      let side: 'BUY' | 'SELL';
      let tokenId: string;
      const makerAmount = a.makerAmountFilled as U64;
      const takerAmount = a.takerAmountFilled as U64;
      if (version === 1) {
        const makerAsset = a.makerAssetId as string;
        const takerAsset = a.takerAssetId as string;
        if ((makerAsset === '0') === (takerAsset === '0')) {
          throw new Error(
            `OrderFilled: exactly one asset id must be 0 (collateral), got ${makerAsset}/${takerAsset}`,
          );
        }
        side = makerAsset === '0' ? 'BUY' : 'SELL';
        tokenId = side === 'BUY' ? takerAsset : makerAsset;
      } else {
        const s = a.side as number;
        if (s !== 0 && s !== 1) throw new Error(`OrderFilled: side ${s} is neither BUY (0) nor SELL (1)`);
        side = s === 0 ? 'BUY' : 'SELL';
        tokenId = a.tokenId as string;
      }
      const shares = side === 'BUY' ? takerAmount : makerAmount;
      const usd = side === 'BUY' ? makerAmount : takerAmount;
      const taker = a.taker as string;
      const known = opts.tokens.get(tokenId);
      // Written field by field (no spread): this is the hottest object of the pipeline.
      rows.alpha_fills.push({
        chain_id: key.chain_id,
        block_number: key.block_number,
        block_hash: key.block_hash,
        block_time: key.block_time,
        tx_hash: key.tx_hash,
        log_index: key.log_index,
        exchange,
        exchange_version: version,
        neg_risk: c.negRisk,
        order_hash: a.orderHash as string,
        maker: a.maker as string,
        taker,
        role: taker === exchange ? 'taker' : 'maker',
        side,
        token_id: tokenId,
        condition_id: known?.condition_id ?? '',
        outcome_index: known?.outcome_index ?? -1,
        maker_amount: makerAmount,
        taker_amount: takerAmount,
        shares,
        usd,
        price: ratio(usd, shares),
        fee: a.fee as U64,
        fee_asset: version === 1 && side === 'BUY' ? 'shares' : 'collateral',
        builder: version === 2 ? optionalBytes32((a.builder as string).slice(2)) : '',
        metadata: version === 2 ? optionalBytes32((a.metadata as string).slice(2)) : '',
        status: key.status,
      });
      return;
    }
    const base = {
      ...key,
      contract: exchange,
      exchange_version: version as 1 | 2,
      neg_risk: c.negRisk,
      args: JSON.stringify(a),
    };
    switch (d.name) {
      case 'OrdersMatched': {
        const tokenId =
          version === 2
            ? str(a.tokenId)
            : str(a.makerAssetId) === '0'
              ? str(a.takerAssetId)
              : str(a.makerAssetId);
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'orders_matched',
          order_hash: str(a.takerOrderHash),
          account: str(a.takerOrderMaker),
          token_id: tokenId,
          amount: toU64(a.makerAmountFilled),
        });
        return;
      }
      case 'FeeCharged':
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'fee_charged',
          order_hash: '',
          account: str(a.receiver),
          token_id: version === 1 ? str(a.tokenId) : '0',
          amount: toU64(a.amount),
        });
        return;
      case 'TokenRegistered':
        rows.alpha_lifecycle.push({
          ...key,
          kind: 'token_registered',
          version,
          neg_risk: c.negRisk,
          contract: exchange,
          condition_id: str(a.conditionId),
          question_id: '',
          market_id: '',
          oracle: '',
          outcome_slot_count: 0,
          tokens: null,
          payout_numerators: [],
          args: JSON.stringify(a),
        });
        return;
      case 'OrderCancelled':
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'order_cancelled',
          order_hash: str(a.orderHash),
          account: '',
          token_id: '',
          amount: 0,
        });
        return;
      case 'TradingPaused':
      case 'TradingUnpaused':
        rows.alpha_exchange_events.push({
          ...base,
          kind: d.name === 'TradingPaused' ? 'trading_paused' : 'trading_unpaused',
          order_hash: '',
          account: str(a.pauser),
          token_id: '',
          amount: 0,
        });
        return;
    }
  }

  function lifecycleBase(d: Decoded, key: EventKey, kind: string) {
    return {
      ...key,
      kind,
      version: d.contract.version,
      neg_risk: d.contract.negRisk,
      contract: addressOf(d.contract),
      condition_id: '',
      question_id: '',
      market_id: '',
      oracle: '',
      outcome_slot_count: 0,
      tokens: null as string | null,
      payout_numerators: [] as string[],
      args: JSON.stringify(d.args),
    };
  }

  function mapCtf(d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const ctf = addressOf(d.contract);
    switch (d.name) {
      case 'ConditionPreparation': {
        const conditionId = str(a.conditionId);
        const slots = Number(a.outcomeSlotCount);
        const negRisk = negRiskAdapters.has(str(a.oracle));
        let tokens: string | null = null;
        if (slots === 2) {
          const collateral = negRisk ? wcol : usdcE;
          tokens = JSON.stringify([
            { token_id: positionId(collateral, conditionId, 1n), label: 'Yes' },
            { token_id: positionId(collateral, conditionId, 2n), label: 'No' },
          ]);
        }
        rows.alpha_lifecycle.push({
          ...lifecycleBase(d, key, 'condition_prepared'),
          neg_risk: negRisk,
          condition_id: conditionId,
          question_id: str(a.questionId),
          oracle: str(a.oracle),
          outcome_slot_count: slots,
          tokens,
        });
        return;
      }
      case 'ConditionResolution':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(d, key, 'condition_resolved'),
          neg_risk: negRiskAdapters.has(str(a.oracle)),
          condition_id: str(a.conditionId),
          question_id: str(a.questionId),
          oracle: str(a.oracle),
          outcome_slot_count: Number(a.outcomeSlotCount),
          payout_numerators: a.payoutNumerators as string[],
        });
        return;
      case 'TransferSingle':
        rows.alpha_token_transfers.push(
          tokenTransferRow(key, 0, str(a.operator), str(a.from), str(a.to), str(a.id), a.value as U64),
        );
        return;
      case 'TransferBatch': {
        const ids = a.ids as string[];
        const values = a.values as U64[];
        const operator = str(a.operator);
        const from = str(a.from);
        const to = str(a.to);
        // A row per id (the most rows of any event).
        for (let i = 0; i < ids.length; i++) {
          rows.alpha_token_transfers.push(tokenTransferRow(key, i, operator, from, to, ids[i]!, values[i]!));
        }
        return;
      }
      case 'PositionSplit':
      case 'PositionsMerge':
      case 'PayoutRedemption': {
        const redeem = d.name === 'PayoutRedemption';
        const stakeholder = str(redeem ? a.redeemer : a.stakeholder);
        // The NegRiskAdapter's own event carries the user; exchange mints/merges are trades.
        if (negRiskAdapters.has(stakeholder) || exchanges.has(stakeholder)) {
          stats.skipped++;
          return;
        }
        const collateral = str(a.collateralToken);
        const conditionId = str(a.conditionId);
        const indexSets = (redeem ? a.indexSets : a.partition) as string[];
        const type = d.name === 'PositionSplit' ? 'SPLIT' : redeem ? 'REDEEM' : 'MERGE';
        let ids: Set<string> | undefined;
        const conditionTokens = () => {
          ids ??= tokenIdsOf(collateral, conditionId, indexSets);
          return ids;
        };
        const wallet = attribute(tx, d, stakeholder, type, conditionTokens);
        if (wallet === undefined) {
          stats.skipped++;
          return;
        }
        // A redemption's shares are what the CTF burned from the redeemer in this transaction.
        const amount = redeem ? tx.burned(stakeholder, conditionTokens()) : toU64(a.amount);
        // Field by field, no spread: splits are as frequent as fills.
        rows.alpha_activity.push({
          chain_id: key.chain_id,
          block_number: key.block_number,
          block_hash: key.block_hash,
          block_time: key.block_time,
          tx_hash: key.tx_hash,
          log_index: key.log_index,
          status: key.status,
          type,
          version: collateralAdapters.has(stakeholder) ? 2 : 1,
          neg_risk: collateral === wcol || negRiskAdapterContracts.get(stakeholder) === true,
          wallet,
          stakeholder,
          contract: ctf,
          condition_id: conditionId,
          market_id: conditionId,
          neg_risk_market_id: null,
          index_set: null,
          collateral_token: collateral,
          partition: indexSets,
          amounts: [],
          amount,
          payout: redeem ? toU64(a.payout) : 0,
        });
        return;
      }
    }
  }

  function mapNegRiskAdapter(d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const adapter = addressOf(d.contract);
    switch (d.name) {
      case 'MarketPrepared':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(d, key, 'neg_risk_market_prepared'),
          market_id: str(a.marketId),
          oracle: str(a.oracle),
        });
        return;
      case 'QuestionPrepared':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(d, key, 'neg_risk_question_prepared'),
          market_id: str(a.marketId),
          question_id: str(a.questionId),
        });
        return;
      case 'OutcomeReported':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(d, key, 'neg_risk_outcome_reported'),
          market_id: str(a.marketId),
          question_id: str(a.questionId),
        });
        return;
      case 'PositionSplit':
      case 'PositionsMerge':
      case 'PayoutRedemption':
      case 'PositionsConverted': {
        const redeem = d.name === 'PayoutRedemption';
        const convert = d.name === 'PositionsConverted';
        const stakeholder = str(redeem ? a.redeemer : a.stakeholder);
        if (exchanges.has(stakeholder)) {
          stats.skipped++;
          return;
        }
        const type =
          d.name === 'PositionSplit'
            ? 'SPLIT'
            : d.name === 'PositionsMerge'
              ? 'MERGE'
              : redeem
                ? 'REDEEM'
                : 'CONVERT';
        const conditionId = convert ? null : str(a.conditionId);
        const wallet = attribute(tx, d, stakeholder, type, () =>
          conditionId ? tokenIdsOf(wcol, conditionId, ['1', '2']) : new Set<string>(),
        );
        if (wallet === undefined) {
          stats.skipped++;
          return;
        }
        const amounts = redeem ? (a.amounts as string[]).map(toU64) : [];
        const amount = redeem ? sumU64(amounts) : toU64(a.amount);
        let payout: U64 = 0;
        if (redeem) payout = toU64(a.payout);
        else if (convert) payout = conversionPayout(str(a.marketId), str(a.indexSet), a.amount);
        rows.alpha_activity.push({
          chain_id: key.chain_id,
          block_number: key.block_number,
          block_hash: key.block_hash,
          block_time: key.block_time,
          tx_hash: key.tx_hash,
          log_index: key.log_index,
          status: key.status,
          type,
          version: collateralAdapters.has(stakeholder) ? 2 : 1,
          neg_risk: true,
          wallet,
          stakeholder,
          contract: adapter,
          condition_id: conditionId,
          market_id: conditionId,
          neg_risk_market_id: convert ? str(a.marketId) : null,
          index_set: convert ? str(a.indexSet) : null,
          collateral_token: '',
          partition: redeem ? ['1', '2'] : [],
          amounts,
          amount,
          payout,
        });
        return;
      }
    }
  }

  /**
   * Collateral a conversion releases to the user: (noCount − 1)·(amount − fee), fee = amount·feeBips/10⁴
   * (NegRiskAdapter.convertPositions). Unknown fee (market prepared outside the ingested range): 0 fee.
   */
  function conversionPayout(marketId: string, indexSet: string, amount: unknown): U64 {
    const amt = BigInt(String(amount));
    let noCount = 0n;
    for (let bits = BigInt(indexSet); bits > 0n; bits >>= 1n) if (bits & 1n) noCount++;
    if (noCount <= 1n) return 0;
    const fee = (amt * BigInt(opts.tokens.marketFee(marketId) ?? 0)) / 10_000n;
    return toU64(((noCount - 1n) * (amt - fee)).toString());
  }

  function mapOperator(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const kinds: Record<string, string> = {
      MarketPrepared: 'operator_market_prepared',
      QuestionPrepared: 'operator_question_prepared',
      QuestionFlagged: 'operator_question_flagged',
      QuestionUnflagged: 'operator_question_unflagged',
      QuestionReported: 'operator_question_reported',
      QuestionResolved: 'operator_question_resolved',
      QuestionEmergencyResolved: 'operator_question_emergency_resolved',
    };
    rows.alpha_lifecycle.push({
      ...lifecycleBase(d, key, kinds[d.name] ?? d.name),
      market_id: str(a.marketId),
      question_id: str(a.questionId),
    });
  }

  function mapUmaAdapter(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const snake = d.name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
    const price = a.settledPrice !== undefined ? str(a.settledPrice) : null;
    rows.alpha_oracle.push({
      ...key,
      kind: snake,
      contract: addressOf(d.contract),
      neg_risk: d.contract.negRisk,
      question_id: str(a.questionID),
      requester: str(a.creator),
      proposer: '',
      disputer: '',
      identifier: '',
      request_timestamp: a.requestTimestamp !== undefined ? toU64(a.requestTimestamp) : 0,
      ancillary_data: str(a.ancillaryData),
      price,
      payouts: (a.payouts as string[] | undefined) ?? [],
      args: JSON.stringify(a),
    });
  }

  /**
   * The real user behind an activity event. A plain stakeholder is the user. A collateral adapter's
   * user is its counterparty in the tx's ERC-1155 transfers of the condition's tokens (adapter → user
   * after a split; user → adapter before merge, redeem and convert), else in its pUSD movements.
   * Returns undefined when the counterparty is an exchange (an exchange mint/merge, i.e. a trade).
   */
  function attribute(
    tx: TxContext,
    d: Decoded,
    stakeholder: string,
    type: ActivityRow['type'],
    tokenIds: () => Set<string>,
  ): string | undefined {
    if (!collateralAdapters.has(stakeholder)) return stakeholder;
    const fromAdapter = type === 'SPLIT';
    const user =
      tx.erc1155Counterparty(stakeholder, fromAdapter, tokenIds(), d.key.log_index) ??
      tx.pUsdCounterparty(stakeholder, fromAdapter, pUsd);
    if (user === undefined) return stakeholder;
    return exchanges.has(user) ? undefined : user;
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

/** The logs of one transaction, indexed for attribution. */
/** What attribution reads of a transaction: its CTF transfers and its pUSD movements, in log order. */
export interface TxTransfers {
  readonly transfers: { logIndex: number; from: string; to: string; ids: string[]; values: U64[] }[];
  readonly pusd: { kind: string; from: string; to: string }[];
}

/** Adds decoded log `d` to `into` when attribution reads it (what 1: CTF transfers, 2: pUSD). */
function addTransfer(into: TxTransfers, d: Decoded, what: 1 | 2): void {
  const a = d.args;
  if (
    what === 1 &&
    d.contract.kind === 'conditionalTokens' &&
    (d.name === 'TransferSingle' || d.name === 'TransferBatch')
  ) {
    const ids = d.name === 'TransferSingle' ? [String(a.id)] : (a.ids as string[]);
    const values = d.name === 'TransferSingle' ? [a.value as U64] : (a.values as U64[]);
    into.transfers.push({ logIndex: d.key.log_index, from: String(a.from), to: String(a.to), ids, values });
  } else if (what === 2 && d.contract.kind === 'collateralToken') {
    if (d.name === 'Transfer') into.pusd.push({ kind: 'transfer', from: String(a.from), to: String(a.to) });
    else into.pusd.push({ kind: d.name, from: '', to: String(a.to) });
  }
}

class TxContext implements TxTransfers {
  readonly transfers: TxTransfers['transfers'] = [];
  readonly pusd: TxTransfers['pusd'] = [];
  private readonly used = new Set<number>();
  /** Per adapter and side: the transfers naming it there, with the user on the other side, in log order. */
  private readonly candidates = new Map<string, { index: number; user: string; logIndex: number }[]>();

  private indexed = 0;

  /**
   * Reading the logs a question needs waits for the first such question: most transactions never ask
   * one, and most that do ask only about ERC-1155 transfers. `read` adds the transfers (what 1) or the
   * pUSD movements (what 2).
   */
  constructor(private readonly read: (into: TxTransfers, what: 1 | 2) => void) {}

  private index(what: 1 | 2 = 1): void {
    if (this.indexed & what) return;
    this.indexed |= what;
    this.read(this, what);
  }

  /**
   * The adapter's counterparty in ERC-1155 transfers, nearest to the event, each transfer used once:
   * among the unused transfers with the adapter on the given side, one of `tokenIds` first (any when
   * the set is empty), then the smallest log-index distance, then the earlier transfer.
   *
   * The candidates of an (adapter, side) are listed once per transaction in log order and searched
   * outwards from the event, so a transaction of many splits through an adapter costs a few steps per
   * split instead of a pass over all its transfers.
   */
  erc1155Counterparty(
    adapter: string,
    fromAdapter: boolean,
    tokenIds: Set<string>,
    logIndex: number,
  ): string | undefined {
    this.index();
    const key = `${fromAdapter ? '>' : '<'}${adapter}`;
    let list = this.candidates.get(key);
    if (!list) {
      list = [];
      for (let i = 0; i < this.transfers.length; i++) {
        const t = this.transfers[i]!;
        const user = fromAdapter
          ? t.from === adapter
            ? t.to
            : undefined
          : t.to === adapter
            ? t.from
            : undefined;
        if (user === undefined || user === ZERO_ADDRESS || user === adapter) continue;
        list.push({ index: i, user, logIndex: t.logIndex });
      }
      this.candidates.set(key, list);
    }
    if (list.length === 0) return undefined;
    const matches = (c: { index: number }) =>
      tokenIds.size === 0 || this.transfers[c.index]!.ids.some((id) => tokenIds.has(id));
    // First candidate after the event (transfers are in log order, so the list is sorted by log index).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.logIndex < logIndex) lo = mid + 1;
      else hi = mid;
    }
    // Outwards by distance, the earlier side first on a tie: the first unused match is the answer; the
    // nearest unused candidate is the answer when none matches.
    let left = lo - 1;
    let right = lo;
    let nearest: { index: number; user: string } | undefined;
    while (left >= 0 || right < list.length) {
      let c: { index: number; user: string; logIndex: number };
      if (
        right >= list.length ||
        (left >= 0 && logIndex - list[left]!.logIndex <= list[right]!.logIndex - logIndex)
      ) {
        c = list[left--]!;
      } else c = list[right++]!;
      if (this.used.has(c.index)) continue;
      if (matches(c)) {
        this.used.add(c.index);
        return c.user;
      }
      nearest ??= c;
    }
    if (!nearest) return undefined;
    this.used.add(nearest.index);
    return nearest.user;
  }

  /** Outcome shares of `tokenIds` burned from `holder` in this transaction. */
  burned(holder: string, tokenIds: Set<string>): U64 {
    this.index();
    let total = 0n;
    for (const t of this.transfers) {
      if (t.from !== holder || t.to !== ZERO_ADDRESS) continue;
      for (let i = 0; i < t.ids.length; i++) if (tokenIds.has(t.ids[i]!)) total += BigInt(t.values[i]!);
    }
    return toU64(total.toString());
  }

  /** The adapter's counterparty in pUSD: who paid pUSD in (split), or who got pUSD out (merge, redeem). */
  pUsdCounterparty(adapter: string, fromAdapter: boolean, _pUsd: string): string | undefined {
    this.index(2);
    for (const m of this.pusd) {
      if (fromAdapter && m.kind === 'transfer' && m.to === adapter && m.from !== ZERO_ADDRESS) return m.from;
      if (!fromAdapter && m.kind === 'Wrapped' && m.to !== adapter && m.to !== ZERO_ADDRESS) return m.to;
      if (!fromAdapter && m.kind === 'transfer' && m.from === adapter && m.to !== ZERO_ADDRESS) return m.to;
    }
    return undefined;
  }
}
