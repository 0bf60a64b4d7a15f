/**
 * The direct lane: the one mapping of the hot events (OrderFilled of both exchange generations, the
 * CTF's TransferSingle and TransferBatch, collateral ERC-20 Transfers, pUSD Wrapped and Unwrapped, the
 * exchanges' OrdersMatched and FeeCharged: nine logs in ten of the benchmark world). Each is read from
 * the bytes of its `eth_getLogs` response (packed-logs.ts) straight into its table's RowBinary batch: no
 * log object, no hex strings, no decoded arguments and no row object are made for it. A sink that wants
 * row objects reads the bytes back (collect.ts).
 *
 * The lane takes a log when everything about it is as the event's ABI layout says, and checks all of it
 * before it writes a byte: the topic count and data length are the event's (a TransferBatch's arrays in
 * their canonical encoding, of any length), every word it reads is hex, every UInt64 column's amount
 * fits UInt64, a V2 fill's side is 0 or 1, exactly one V1 fill asset id is 0, the hex that goes into an
 * exchange event's args JSON is plain hex, block number and log index are hex quantities. A hot log
 * that fails a check is declined with the reason (`declined`: 'amount_overflow' or 'bad_data'), and the
 * mapper quarantines it. Hot events are known by their emitter and topic0 in lowercase hex, as nodes
 * send them; one written otherwise is not recognized here and is quarantined by the decoder registry
 * (decoders.ts). test/chain-sim.test.ts checks the rows against viem's decodeEventLog and the sim's
 * ledger on every log of the simulated chain, and the declines on hand-made logs.
 */
import { toEventSelector } from 'viem';
import type { ByteWriter } from '../../../../core/clickhouse/row-binary.ts';
import type { AlphaContract } from '../../../../schemas/abi/alpha-addresses.ts';
import { type ContractKind, eventAbi } from '../../../../schemas/abi/alpha-events.ts';
import { CODES } from '../../../../schemas/tables/alpha-chain.ts';
import { uintString } from '../../../chain/hex.ts';
import { Field, hasKeyAt, type PackedLogs, type WordKey, wordKey } from '../../../chain/packed-logs.ts';
import type { BlockHeader, U64 } from '../../../chain/types.ts';
import type { DecodeResult } from './decoders.ts';
import type { TxTransfers } from './mappers/attribution.ts';
import type { DirectSink, Status } from './rows.ts';
import type { TokenMap } from './token-map.ts';

/** What the lane does with a log. */
export enum Hot {
  None = 0,
  FillV1,
  FillV2,
  TransferSingle,
  TransferBatch,
  Erc20Transfer,
  MatchedV1,
  MatchedV2,
  FeeV1,
  FeeV2,
  Wrap,
  Unwrap,
}

/** The hot events: (emitter kind, event name) and what the lane makes of it. */
export const HOT_EVENTS: readonly [ContractKind, string, Hot][] = [
  ['exchangeV1', 'OrderFilled', Hot.FillV1],
  ['exchangeV2', 'OrderFilled', Hot.FillV2],
  ['conditionalTokens', 'TransferSingle', Hot.TransferSingle],
  ['conditionalTokens', 'TransferBatch', Hot.TransferBatch],
  ['erc20Collateral', 'Transfer', Hot.Erc20Transfer],
  ['collateralToken', 'Transfer', Hot.Erc20Transfer],
  ['exchangeV1', 'OrdersMatched', Hot.MatchedV1],
  ['exchangeV2', 'OrdersMatched', Hot.MatchedV2],
  ['exchangeV1', 'FeeCharged', Hot.FeeV1],
  ['exchangeV2', 'FeeCharged', Hot.FeeV2],
  ['collateralToken', 'Wrapped', Hot.Wrap],
  ['collateralToken', 'Unwrapped', Hot.Unwrap],
];

/** Hex digit values by byte (-1: not a hex digit). */
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[0x41 + i] = 10 + i;
  HEX[0x61 + i] = 10 + i;
}
const ZERO = 0x30;
const TWO_32 = 4_294_967_296;

/** The value of 8 hex digits at `at`, or -1 when one is not a hex digit. */
function hex8(buf: Buffer, at: number): number {
  let v = 0;
  for (let k = 0; k < 8; k++) {
    const d = HEX[buf[at + k]!]!;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

function allHex(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (HEX[buf[i]!]! < 0) return false;
  return true;
}

function allZero(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== ZERO) return false;
  return true;
}

function hasUpper(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

/**
 * A hex quantity ("0x1a": the prefix, then 1 to 13 hex digits) as a number; -1 when it is not one
 * (the log is declined).
 */
function quantity(buf: Buffer, start: number, end: number): number {
  const n = end - start - 2;
  if (n < 1 || n > 13 || buf[start] !== ZERO || buf[start + 1] !== 0x78) return -1;
  let v = 0;
  for (let i = start + 2; i < end; i++) {
    const d = HEX[buf[i]!]!;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Values keyed by fixed-length lowercase hex text, looked up by the bytes of a log. */
class HexKeys<V> {
  private readonly map = new Map<number, { key: WordKey; value: V }[]>();
  size = 0;

  private static hash(buf: Buffer, end: number): number {
    let h = 0;
    for (let k = end - 8; k < end; k++) h = (Math.imul(h, 31) + buf[k]!) | 0;
    return h;
  }

  set(key: string, value: V): void {
    const bytes = Buffer.from(key, 'latin1');
    const h = HexKeys.hash(bytes, bytes.length);
    const list = this.map.get(h) ?? [];
    list.push({ key: wordKey(bytes), value });
    this.map.set(h, list);
    this.size++;
  }

  /** The value of the key whose text is `buf[start, end)` exactly. */
  get(buf: Buffer, start: number, end: number): V | undefined {
    if (end - start < 8) return undefined;
    const list = this.map.get(HexKeys.hash(buf, end));
    if (list === undefined) return undefined;
    const n = end - start;
    for (const e of list) if (e.key.length === n && hasKeyAt(buf, start, e.key)) return e.value;
    return undefined;
  }

  clear(): void {
    this.map.clear();
    this.size = 0;
  }
}

/** What step 1 of the mapper (token knowledge) needs to know of a log's topic0. */
export enum TopicClass {
  /** Neither a fill nor an event that teaches tokens. */
  Other,
  FillV1,
  FillV2,
  /** A token-teaching event, or a topic0 the bytes cannot rule out (uppercase): read the object. */
  Object,
}

export interface DirectLaneOptions {
  chainId: number;
  contracts: readonly AlphaContract[];
  /** The row value of a contract's address (lowercase). */
  addressOf(c: AlphaContract): string;
  /** The `symbol` of a collateral contract's transfer rows. */
  symbolOf(c: AlphaContract): string;
  tokens: TokenMap;
  fillV1Topic: string;
  fillV2Topic: string;
  /** Topics whose events teach the mapper tokens or market fees (read as objects in step 1). */
  tokenTopics: Iterable<string>;
}

/** A page's block context: headers and status (the lane keeps the last block's values). */
export interface PageBlocks {
  headers: Map<number, BlockHeader>;
  statusOf(block: number): Status;
}

/** What `write` did with a log. */
export enum LaneResult {
  /** Not a hot event (by its emitter and topic0 bytes): the decoder registry's. */
  NotHot,
  /** Its row is written (or dropped, for a table the sink skips). */
  Written,
  /** A hot event the lane cannot take: `declined` says why; the caller quarantines it. */
  Declined,
}

/** Why the lane declined the last log it declined. */
export interface Declined {
  kind: Extract<DecodeResult, { status: 'quarantine' }>['kind'];
  reason: string;
}

export interface DirectLane {
  /** How step 1 treats log `i`. */
  topicClass(logs: PackedLogs, i: number): TopicClass;
  /**
   * The token a fill trades (the collateral side's counterpart of a V1 fill), undefined when the data is
   * shorter than two words or the word is not hex (the fill is then declined by `write`).
   */
  fillToken(logs: PackedLogs, i: number, v2: boolean): string | undefined;
  /**
   * Adds log `i` to `into.transfers` when it is a CTF TransferSingle or TransferBatch the lane writes:
   * what attribution reads of a transaction's ERC-1155 transfers.
   */
  readTransfer(logs: PackedLogs, i: number, into: TxTransfers): void;
  /**
   * Adds log `i` to `into.pusd` when it is a pUSD Transfer, Wrapped or Unwrapped the lane writes: what
   * attribution reads of a transaction's pUSD movements.
   */
  readPusd(logs: PackedLogs, i: number, into: TxTransfers): void;
  /**
   * Writes log `i`'s row when it is a hot event the lane takes. `blocks` is the page's (one object per
   * page: mappings of several pages may interleave, each with its own).
   */
  write(logs: PackedLogs, i: number, sink: DirectSink, blocks: PageBlocks): LaneResult;
  /** Why the last `Declined` log was declined. */
  readonly declined: Readonly<Declined>;
}

/** A UInt64 from its 32-bit halves, as the row types hold it (a decimal string above 2^53 - 1). */
function u64Value(lo: number, hi: number): U64 {
  const v = hi * TWO_32 + lo;
  return v <= Number.MAX_SAFE_INTEGER ? v : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** topic0 (lowercase) → the hot event it is for each contract kind (an event name the kind's ABI has once). */
export const HOT_TOPICS: ReadonlyMap<string, ReadonlyMap<ContractKind, Hot>> = (() => {
  const byTopic = new Map<string, Map<ContractKind, Hot>>();
  for (const [kind, name, hot] of HOT_EVENTS) {
    const items = eventAbi(kind).filter((e) => e.name === name);
    if (items.length !== 1) continue;
    const topic = toEventSelector(items[0]!);
    const m = byTopic.get(topic) ?? new Map<ContractKind, Hot>();
    m.set(kind, hot);
    byTopic.set(topic, m);
  }
  return byTopic;
})();

/** Event names by Hot, for the reasons of declined logs. */
const HOT_NAME: string[] = [];
for (const [, name, hot] of HOT_EVENTS) HOT_NAME[hot] = name;

interface Contract {
  c: AlphaContract;
  /** Lowercase address bytes without 0x (40), the row value's. */
  address: string;
  addressBytes: Buffer;
  symbol: string;
  negRisk: boolean;
}

/** A checked block: what every row of it carries. */
interface BlockValues {
  number: number;
  timeMs: number;
  status: number;
}

const TOKEN_CACHE_MAX = 100_000;

export function createDirectLane(o: DirectLaneOptions): DirectLane {
  const contracts = new HexKeys<Contract>();
  for (const c of o.contracts) {
    const address = o.addressOf(c);
    contracts.set(address, {
      c,
      address,
      addressBytes: Buffer.from(address.slice(2), 'latin1'),
      symbol: o.symbolOf(c),
      negRisk: c.negRisk,
    });
  }
  const hotTopics = new HexKeys<ReadonlyMap<ContractKind, Hot>>();
  for (const [topic, m] of HOT_TOPICS) hotTopics.set(topic, m);
  const classes = new HexKeys<TopicClass>();
  for (const t of o.tokenTopics) classes.set(t, TopicClass.Object);
  classes.set(o.fillV1Topic, TopicClass.FillV1);
  classes.set(o.fillV2Topic, TopicClass.FillV2);

  // Decimal token ids by the 64 hex digits of their word (a few thousand distinct ids carry most logs).
  const tokenIds = new HexKeys<string>();
  function tokenId(buf: Buffer, at: number): string | null {
    const known = tokenIds.get(buf, at, at + 64);
    if (known !== undefined) return known;
    if (!allHex(buf, at, at + 64)) return null;
    const word = buf.toString('latin1', at, at + 64);
    const id = uintString(word);
    if (tokenIds.size >= TOKEN_CACHE_MAX) tokenIds.clear();
    tokenIds.set(word, id);
    return id;
  }

  let blocks: PageBlocks | undefined;
  let lastBlock: BlockValues | undefined;
  let lastBlockLog = -1;
  let lastLogs: PackedLogs | undefined;

  const declined: Declined = { kind: 'bad_data', reason: '' };
  /** Declines the log being written as bad data (returns false, as the writers do). */
  function bad(reason: string): false {
    declined.kind = 'bad_data';
    declined.reason = reason;
    return false;
  }

  /** Declines the log: the data word at `at` (`what`) is not hex, or its value exceeds UInt64. */
  function badAmount(buf: Buffer, at: number, what: string): false {
    if (!allHex(buf, at, at + 64)) return bad(`${what} is not hex`);
    declined.kind = 'amount_overflow';
    declined.reason = `${what} ${uintString(buf.toString('latin1', at, at + 64))} exceeds UInt64`;
    return false;
  }

  /**
   * The block values of log `i`, undefined when its block number is not a hex quantity. A block the
   * page has no usable header for is the caller's error, not the log's: it throws.
   */
  function blockOf(logs: PackedLogs, i: number): BlockValues | undefined {
    if (logs === lastLogs && lastBlockLog === i - 1 && logs.sameBlockAsPrevious(i)) {
      lastBlockLog = i;
      return lastBlock;
    }
    if (logs === lastLogs && lastBlockLog >= 0 && logs.sameBlock(i, lastBlockLog)) {
      lastBlockLog = i;
      return lastBlock;
    }
    const buf = logs.buf;
    const number = quantity(buf, logs.at(i, Field.BlockNumberStart), logs.at(i, Field.BlockNumberEnd));
    if (number < 0) return undefined;
    const header = blocks!.headers.get(number);
    if (header === undefined) throw new Error(`mapPage: no header for block ${number}`);
    if (!(header.timestampMs >= 0 && Number.isSafeInteger(header.timestampMs)))
      throw new RangeError(`mapPage: block ${number} has timestamp ${header.timestampMs} ms`);
    const status = blocks!.statusOf(number);
    lastLogs = logs;
    lastBlockLog = i;
    lastBlock = { number, timeMs: header.timestampMs, status: CODES.status[status] };
    return lastBlock;
  }

  /** -1, the "declined" of a reader of positions, once `bad`, `badAmount` or `badLayout` said why. */
  const noPosition = (_declined: false): -1 => -1;

  /** Declines log `i` for its block number. */
  function badBlock(logs: PackedLogs, i: number): false {
    const text = logs.buf.toString(
      'latin1',
      logs.at(i, Field.BlockNumberStart),
      logs.at(i, Field.BlockNumberEnd),
    );
    return bad(`block number ${text} is not a hex quantity`);
  }

  /** A data word's low 64 bits as [low, high] 32-bit halves when it is a hex UInt64, else undefined. */
  const low = new Float64Array(2);
  function u64Word(buf: Buffer, at: number): boolean {
    if (!allZero(buf, at, at + 48)) return false;
    const hi = hex8(buf, at + 48);
    const lo = hex8(buf, at + 56);
    if (hi < 0 || lo < 0) return false;
    low[0] = lo;
    low[1] = hi;
    return true;
  }

  /** The event key columns (EVENT_KEY) of log `i`. */
  function eventKey(w: ByteWriter, logs: PackedLogs, i: number, block: BlockValues, logIndex: number): void {
    const buf = logs.buf;
    w.u32(o.chainId);
    w.u64Parts(block.number >>> 0, Math.floor(block.number / TWO_32));
    w.lowerBytes(buf, logs.at(i, Field.BlockHashStart), logs.at(i, Field.BlockHashEnd));
    w.dateTime64ms(block.timeMs);
    w.lowerBytes(buf, logs.at(i, Field.TxHashStart), logs.at(i, Field.TxHashEnd));
    w.u32(logIndex);
  }

  /** A topic's address (its last 20 bytes), lowercase and 0x-prefixed. */
  function address(w: ByteWriter, buf: Buffer, topicStart: number): void {
    w.lowerBytes(buf, topicStart + 26, topicStart + 66, true);
  }

  function topicsOk(logs: PackedLogs, i: number, n: number): boolean {
    if (logs.at(i, Field.TopicCount) !== n) return false;
    for (let k = 1; k < n; k++)
      if (logs.at(i, Field.TopicStart + 2 * k + 1) - logs.at(i, Field.TopicStart + 2 * k) !== 66)
        return false;
    return true;
  }

  /** The data start (its `0x`) when data is exactly `words` words, else -1. */
  function dataOf(logs: PackedLogs, i: number, words: number): number {
    const s = logs.at(i, Field.DataStart);
    const buf = logs.buf;
    if (logs.at(i, Field.DataEnd) - s !== 2 + 64 * words || buf[s] !== ZERO || buf[s + 1] !== 0x78) return -1;
    return s + 2;
  }

  /** Log index of the last `layout` that held. */
  let logIndex = 0;
  /**
   * The data start when log `i` has the event's layout (`topics` topics, data of `words` words) and a
   * log index that fits UInt32; -1 when not. Sets `logIndex`.
   */
  function layout(logs: PackedLogs, i: number, topics: number, words: number): number {
    if (!topicsOk(logs, i, topics)) return -1;
    const d = dataOf(logs, i, words);
    if (d < 0) return -1;
    logIndex = quantity(logs.buf, logs.at(i, Field.LogIndexStart), logs.at(i, Field.LogIndexEnd));
    return logIndex < 0 || logIndex >= TWO_32 ? -1 : d;
  }

  /** Declines log `i`, which does not have `layout(logs, i, topics, words)` (or its log index). */
  function badLayout(logs: PackedLogs, i: number, topics: number, words: number | undefined): false {
    const n = logs.at(i, Field.TopicCount);
    if (n !== topics) return bad(`expected ${topics} topics, got ${n}`);
    for (let k = 1; k < n; k++)
      if (logs.at(i, Field.TopicStart + 2 * k + 1) - logs.at(i, Field.TopicStart + 2 * k) !== 66)
        return bad(`topic ${k} is not 32 bytes`);
    const s = logs.at(i, Field.DataStart);
    const e = logs.at(i, Field.DataEnd);
    const buf = logs.buf;
    if (e - s < 2 || buf[s] !== ZERO || buf[s + 1] !== 0x78) return bad('data does not start with 0x');
    if (words === undefined)
      return bad(`data of ${e - s - 2} hex digits is not two uint256 arrays of equal length in ABI layout`);
    if (e - s - 2 !== 64 * words) return bad(`expected ${words} data words, got ${(e - s - 2) / 64}`);
    const text = buf.toString('latin1', logs.at(i, Field.LogIndexStart), logs.at(i, Field.LogIndexEnd));
    return bad(`log index ${text} is not a hex quantity below 2^32`);
  }

  // Amount halves read before any byte is written (the order the row wants them in differs).
  const amounts = new Float64Array(6);
  const FILL_AMOUNTS = ['makerAmountFilled', 'takerAmountFilled', 'fee'];

  function writeFill(logs: PackedLogs, i: number, sink: DirectSink, ct: Contract, v2: boolean): boolean {
    const buf = logs.buf;
    const d = layout(logs, i, 4, v2 ? 7 : 5);
    if (d < 0) return badLayout(logs, i, 4, v2 ? 7 : 5);
    let buy: boolean;
    let token: string | null;
    if (v2) {
      const s = buf[d + 63]!;
      if (!allZero(buf, d, d + 63) || (s !== 0x30 && s !== 0x31))
        return bad(`side 0x${buf.toString('latin1', d, d + 64)} is neither BUY (0) nor SELL (1)`);
      buy = s === 0x30;
      token = tokenId(buf, d + 64);
    } else {
      const makerZero = allZero(buf, d, d + 64);
      const takerZero = allZero(buf, d + 64, d + 128);
      if (makerZero === takerZero) return bad('exactly one asset id must be 0 (collateral)');
      if (!makerZero && !allHex(buf, d, d + 64)) return bad('makerAssetId is not hex');
      if (!takerZero && !allHex(buf, d + 64, d + 128)) return bad('takerAssetId is not hex');
      buy = makerZero;
      token = tokenId(buf, buy ? d + 64 : d);
    }
    if (token === null) return bad('tokenId is not hex');
    // maker amount, taker amount, fee: words 2, 3, 4.
    for (let k = 0; k < 3; k++) {
      if (!u64Word(buf, d + 64 * (2 + k))) return badAmount(buf, d + 64 * (2 + k), FILL_AMOUNTS[k]!);
      amounts[2 * k] = low[0]!;
      amounts[2 * k + 1] = low[1]!;
    }
    if (v2 && !allHex(buf, d + 320, d + 448)) return bad('builder or metadata is not hex');
    const block = blockOf(logs, i);
    if (block === undefined) return badBlock(logs, i);
    const w = sink.writer('alpha_fills');
    if (w === undefined) return true;
    const t1 = logs.at(i, Field.TopicStart + 2);
    const t2 = logs.at(i, Field.TopicStart + 4);
    const t3 = logs.at(i, Field.TopicStart + 6);
    // role: the taker is the exchange itself (the taker order's aggregate fill).
    let taker = true;
    const exchange = ct.addressBytes;
    for (let k = 0; k < 40; k++) {
      const c = buf[t3 + 26 + k]!;
      if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== exchange[k]) {
        taker = false;
        break;
      }
    }
    // A token the token map does not know: no condition, outcome -1 (the API joins it later).
    const known = o.tokens.get(token);
    eventKey(w, logs, i, block, logIndex);
    w.ascii(ct.address);
    w.u8(v2 ? 2 : 1);
    w.bool(ct.negRisk);
    w.lowerBytes(buf, t1, t1 + 66);
    address(w, buf, t2);
    address(w, buf, t3);
    w.i8(taker ? CODES.role.taker : CODES.role.maker);
    w.i8(buy ? CODES.side.BUY : CODES.side.SELL);
    w.ascii(token);
    w.ascii(known?.condition_id ?? '');
    w.i8(known?.outcome_index ?? -1);
    w.u64Parts(amounts[0]!, amounts[1]!);
    w.u64Parts(amounts[2]!, amounts[3]!);
    // shares and usd: the token side and the collateral side of the order.
    if (buy) {
      w.u64Parts(amounts[2]!, amounts[3]!);
      w.u64Parts(amounts[0]!, amounts[1]!);
    } else {
      w.u64Parts(amounts[0]!, amounts[1]!);
      w.u64Parts(amounts[2]!, amounts[3]!);
    }
    w.u64Parts(amounts[4]!, amounts[5]!);
    w.i8(!v2 && buy ? CODES.feeAsset.shares : CODES.feeAsset.collateral);
    if (v2) {
      for (const at of [d + 320, d + 384]) {
        if (allZero(buf, at, at + 64)) w.ascii('');
        else w.lowerBytes(buf, at, at + 64, true);
      }
    } else {
      w.ascii('');
      w.ascii('');
    }
    w.i8(block.status);
    sink.written('alpha_fills');
    return true;
  }

  /** The token id `single` read. */
  let singleToken = '';
  /**
   * The data start of TransferSingle log `i` when it is one the lane writes, -1 when declined; sets
   * `logIndex`, `singleToken` and the value in `low`.
   */
  function single(logs: PackedLogs, i: number): number {
    const d = layout(logs, i, 4, 2);
    if (d < 0) return noPosition(badLayout(logs, i, 4, 2));
    const token = tokenId(logs.buf, d);
    if (token === null) return noPosition(bad('id is not hex'));
    if (!u64Word(logs.buf, d + 64)) return noPosition(badAmount(logs.buf, d + 64, 'value'));
    singleToken = token;
    return d;
  }

  function writeTransferSingle(logs: PackedLogs, i: number, sink: DirectSink): boolean {
    const buf = logs.buf;
    if (single(logs, i) < 0) return false;
    const token = singleToken;
    const block = blockOf(logs, i);
    if (block === undefined) return badBlock(logs, i);
    const w = sink.writer('alpha_token_transfers');
    if (w === undefined) return true;
    eventKey(w, logs, i, block, logIndex);
    w.u32(0);
    address(w, buf, logs.at(i, Field.TopicStart + 2));
    address(w, buf, logs.at(i, Field.TopicStart + 4));
    address(w, buf, logs.at(i, Field.TopicStart + 6));
    w.ascii(token);
    w.u64Parts(low[0]!, low[1]!);
    w.i8(block.status);
    sink.written('alpha_token_transfers');
    return true;
  }

  // A TransferBatch's ids (decimal) and values (32-bit halves), as `batchOf` read them; grown as needed.
  const batchIds: string[] = [];
  let batchValues = new Float64Array(2 * 256);

  /**
   * Reads TransferBatch log `i` in its canonical ABI layout (the ids array right after the two offsets,
   * the values array right after it, as many values as ids, every value a UInt64) into `batchIds` and
   * `batchValues`; returns how many ids, or -1 when declined. Sets `logIndex`.
   */
  function batchOf(logs: PackedLogs, i: number): number {
    if (!topicsOk(logs, i, 4)) return noPosition(badLayout(logs, i, 4, undefined));
    const buf = logs.buf;
    const s = logs.at(i, Field.DataStart);
    const words = (logs.at(i, Field.DataEnd) - s - 2) / 64;
    if (buf[s] !== ZERO || buf[s + 1] !== 0x78 || !Number.isInteger(words) || words < 4 || words % 2 !== 0)
      return noPosition(badLayout(logs, i, 4, undefined));
    const n = (words - 4) / 2;
    const d = s + 2;
    const values = d + 64 * (3 + n);
    if (!smallWord(buf, d, 64) || !smallWord(buf, d + 64, 32 * (3 + n)))
      return noPosition(badLayout(logs, i, 4, undefined));
    if (!smallWord(buf, d + 128, n) || !smallWord(buf, values, n))
      return noPosition(badLayout(logs, i, 4, undefined));
    if (2 * n > batchValues.length) batchValues = new Float64Array(Math.max(2 * n, 2 * batchValues.length));
    for (let k = 0; k < n; k++) {
      const id = tokenId(buf, d + 64 * (3 + k));
      if (id === null) return noPosition(bad(`ids[${k}] is not hex`));
      if (!u64Word(buf, values + 64 * (1 + k)))
        return noPosition(badAmount(buf, values + 64 * (1 + k), `values[${k}]`));
      batchIds[k] = id;
      batchValues[2 * k] = low[0]!;
      batchValues[2 * k + 1] = low[1]!;
    }
    logIndex = quantity(buf, logs.at(i, Field.LogIndexStart), logs.at(i, Field.LogIndexEnd));
    return logIndex < 0 || logIndex >= TWO_32 ? noPosition(badLayout(logs, i, 4, 4 + 2 * n)) : n;
  }

  /** True when the data word at `at` is the number `v` (< 2^32). */
  function smallWord(buf: Buffer, at: number, v: number): boolean {
    return u64Word(buf, at) && low[1] === 0 && low[0] === v;
  }

  function writeTransferBatch(logs: PackedLogs, i: number, sink: DirectSink): boolean {
    const n = batchOf(logs, i);
    if (n < 0) return false;
    const block = blockOf(logs, i);
    if (block === undefined) return badBlock(logs, i);
    const w = sink.writer('alpha_token_transfers');
    if (w === undefined) return true;
    const buf = logs.buf;
    // A row per id.
    for (let k = 0; k < n; k++) {
      eventKey(w, logs, i, block, logIndex);
      w.u32(k);
      address(w, buf, logs.at(i, Field.TopicStart + 2));
      address(w, buf, logs.at(i, Field.TopicStart + 4));
      address(w, buf, logs.at(i, Field.TopicStart + 6));
      w.ascii(batchIds[k]!);
      w.u64Parts(batchValues[2 * k]!, batchValues[2 * k + 1]!);
      w.i8(block.status);
      sink.written('alpha_token_transfers');
    }
    return true;
  }

  /**
   * The data start of collateral log `i` (an ERC-20 Transfer: 3 topics, or a pUSD Wrapped/Unwrapped:
   * 4) when the lane writes it; its amount in `low`. -1 when declined.
   */
  function collateralOf(logs: PackedLogs, i: number, transfer: boolean): number {
    const topics = transfer ? 3 : 4;
    const d = layout(logs, i, topics, 1);
    if (d < 0) return noPosition(badLayout(logs, i, topics, 1));
    if (!u64Word(logs.buf, d)) return noPosition(badAmount(logs.buf, d, transfer ? 'value' : 'amount'));
    return d;
  }

  /**
   * Who funded pUSD Wrapped/Unwrapped log `i` of pUSD contract `ct` (data word at `d`): the `from` of the
   * nearest ERC-20 Transfer before it in its transaction that moved the same amount of what is wrapped
   * (a wrap's asset, an unwrap's pUSD) into the pUSD contract, which CollateralToken.wrap/unwrap require
   * before they emit (the ramps and collateral adapters transfer it in first). '' when the transaction
   * holds none among the logs ingested (an asset the chain ingestion does not follow, e.g. native USDC).
   */
  function funder(logs: PackedLogs, i: number, ct: Contract, d: number, wrap: boolean): string {
    const buf = logs.buf;
    const token = wrap ? topicAddress(logs, i, 2) : ct.address;
    const amount = buf.toString('latin1', d, d + 64).toLowerCase();
    for (let j = i - 1; j >= 0 && logs.sameTxAsPrevious(j + 1); j--) {
      if (logs.removed(j) || hotOf(logs, j) !== Hot.Erc20Transfer) continue;
      if (hotContract?.address !== token || !topicsOk(logs, j, 3)) continue;
      const dj = dataOf(logs, j, 1);
      if (dj < 0 || buf.toString('latin1', dj, dj + 64).toLowerCase() !== amount) continue;
      if (topicAddress(logs, j, 2) === ct.address) return topicAddress(logs, j, 1);
    }
    return '';
  }

  /**
   * A collateral row: an ERC-20 Transfer (from, to indexed) or a pUSD Wrapped/Unwrapped (caller, asset
   * and recipient indexed; from: `funder`); the amount, the one data word, a UInt64.
   */
  function writeCollateral(
    logs: PackedLogs,
    i: number,
    sink: DirectSink,
    ct: Contract,
    kind: 'transfer' | 'wrap' | 'unwrap',
  ): boolean {
    const buf = logs.buf;
    const transfer = kind === 'transfer';
    const d = collateralOf(logs, i, transfer);
    if (d < 0) return false;
    const from = transfer ? '' : funder(logs, i, ct, d, kind === 'wrap');
    const block = blockOf(logs, i);
    if (block === undefined) return badBlock(logs, i);
    const w = sink.writer('alpha_collateral');
    if (w === undefined) return true;
    eventKey(w, logs, i, block, logIndex);
    w.i8(CODES.collateralKind[kind]);
    w.ascii(ct.address);
    w.str(ct.symbol);
    // from, to, caller, asset
    const t1 = logs.at(i, Field.TopicStart + 2);
    const t2 = logs.at(i, Field.TopicStart + 4);
    if (transfer) {
      address(w, buf, t1);
      address(w, buf, t2);
      w.ascii('');
      w.ascii('');
    } else {
      w.ascii(from);
      address(w, buf, logs.at(i, Field.TopicStart + 6));
      address(w, buf, t1);
      address(w, buf, t2);
    }
    w.u64Parts(low[0]!, low[1]!);
    w.i8(block.status);
    sink.written('alpha_collateral');
    return true;
  }

  // The exchange events' `args`: the event's arguments as JSON, keys in ABI order (hashes and addresses
  // lowercase 0x-hex, uint256 values as decimal strings, a uint8 as a number). Every piece is plain hex
  // or decimal, which JSON writes as is.
  const J_MATCHED_HASH = '{"takerOrderHash":"';
  const J_MATCHED_MAKER = '","takerOrderMaker":"';
  const J_MAKER_ASSET = '","makerAssetId":"';
  const J_TAKER_ASSET = '","takerAssetId":"';
  const J_SIDE = '","side":';
  const J_TOKEN_AFTER_SIDE = ',"tokenId":"';
  const J_MAKER_AMOUNT = '","makerAmountFilled":"';
  const J_TAKER_AMOUNT = '","takerAmountFilled":"';
  const J_RECEIVER = '{"receiver":"';
  const J_TOKEN = '","tokenId":"';
  const J_AMOUNT = '","amount":"';
  const J_END = '"}';

  /** True when topic `k` of log `i` is `0x` and 64 hex digits (its text needs no JSON escape). */
  function hexTopic(logs: PackedLogs, i: number, k: number, from: number): boolean {
    const t = logs.at(i, Field.TopicStart + 2 * k);
    const buf = logs.buf;
    return buf[t] === ZERO && (buf[t + 1] === 0x78 || buf[t + 1] === 0x58) && allHex(buf, t + from, t + 66);
  }

  /**
   * OrdersMatched and FeeCharged of both exchange generations: one alpha_exchange_events row each, args
   * JSON included. The row's `amount` (the maker amount, the fee) must fit UInt64; OrdersMatched's
   * taker amount is only in args, as a decimal string of any size. The topics' hex and the words must
   * be plain hex.
   */
  function writeExchangeEvent(
    logs: PackedLogs,
    i: number,
    sink: DirectSink,
    ct: Contract,
    hot: Hot,
  ): boolean {
    const buf = logs.buf;
    const matched = hot === Hot.MatchedV1 || hot === Hot.MatchedV2;
    const v2 = hot === Hot.MatchedV2 || hot === Hot.FeeV2;
    const topics = matched ? 3 : 2;
    const words = matched ? 4 : v2 ? 1 : 2;
    const d = layout(logs, i, topics, words);
    if (d < 0) return badLayout(logs, i, topics, words);
    // The account topic's address digits (and, for OrdersMatched, the whole order hash) must be hex.
    const accountTopic = matched ? 2 : 1;
    if (!hexTopic(logs, i, accountTopic, 26)) return bad(`topic ${accountTopic} is not an address in hex`);
    if (matched && !hexTopic(logs, i, 1, 2)) return bad('takerOrderHash is not hex');
    let token = '0';
    let makerAsset = '';
    let takerAsset = '';
    let side = -1;
    let other = '';
    if (matched) {
      if (v2) {
        if (!allZero(buf, d, d + 62))
          return bad(`side 0x${buf.toString('latin1', d, d + 64)} is not a uint8`);
        const hi = HEX[buf[d + 62]!]!;
        const lo = HEX[buf[d + 63]!]!;
        if (hi < 0 || lo < 0) return bad('side is not hex');
        side = hi * 16 + lo;
        const t = tokenId(buf, d + 64);
        if (t === null) return bad('tokenId is not hex');
        token = t;
      } else {
        const m = tokenId(buf, d);
        const t = tokenId(buf, d + 64);
        if (m === null || t === null) return bad('makerAssetId or takerAssetId is not hex');
        makerAsset = m;
        takerAsset = t;
        token = m === '0' ? t : m;
      }
      if (u64Word(buf, d + 192)) other = `${u64Value(low[0]!, low[1]!)}`;
      else if (allHex(buf, d + 192, d + 256)) other = uintString(buf.toString('latin1', d + 192, d + 256));
      else return bad('takerAmountFilled is not hex');
      if (!u64Word(buf, d + 128)) return badAmount(buf, d + 128, 'makerAmountFilled');
    } else {
      if (!v2) {
        const t = tokenId(buf, d);
        if (t === null) return bad('tokenId is not hex');
        token = t;
      }
      if (!u64Word(buf, v2 ? d : d + 64)) return badAmount(buf, v2 ? d : d + 64, 'amount');
    }
    const amountLo = low[0]!;
    const amountHi = low[1]!;
    const amount = `${u64Value(amountLo, amountHi)}`;
    const block = blockOf(logs, i);
    if (block === undefined) return badBlock(logs, i);
    const w = sink.writer('alpha_exchange_events');
    if (w === undefined) return true;
    const at = logs.at(i, Field.TopicStart + 2 * accountTopic);
    const h = logs.at(i, Field.TopicStart + 2);
    eventKey(w, logs, i, block, logIndex);
    w.str(matched ? 'orders_matched' : 'fee_charged');
    w.ascii(ct.address);
    w.u8(ct.c.kind === 'exchangeV2' ? 2 : 1);
    w.bool(ct.negRisk);
    if (matched) {
      w.lowerBytes(buf, h, h + 66);
    } else w.ascii('');
    address(w, buf, at);
    w.ascii(token);
    w.u64Parts(amountLo, amountHi);
    if (matched) {
      const middle = v2
        ? J_SIDE.length + `${side}`.length + J_TOKEN_AFTER_SIDE.length + token.length
        : J_MAKER_ASSET.length + makerAsset.length + J_TAKER_ASSET.length + takerAsset.length;
      w.stringOf(
        J_MATCHED_HASH.length +
          66 +
          J_MATCHED_MAKER.length +
          42 +
          middle +
          J_MAKER_AMOUNT.length +
          amount.length +
          J_TAKER_AMOUNT.length +
          other.length +
          J_END.length,
      );
      w.rawAscii(J_MATCHED_HASH);
      w.rawLower(buf, h, h + 66);
      w.rawAscii(J_MATCHED_MAKER);
      w.rawAscii('0x');
      w.rawLower(buf, at + 26, at + 66);
      if (v2) {
        w.rawAscii(J_SIDE);
        w.rawAscii(`${side}`);
        w.rawAscii(J_TOKEN_AFTER_SIDE);
        w.rawAscii(token);
      } else {
        w.rawAscii(J_MAKER_ASSET);
        w.rawAscii(makerAsset);
        w.rawAscii(J_TAKER_ASSET);
        w.rawAscii(takerAsset);
      }
      w.rawAscii(J_MAKER_AMOUNT);
      w.rawAscii(amount);
      w.rawAscii(J_TAKER_AMOUNT);
      w.rawAscii(other);
      w.rawAscii(J_END);
    } else {
      const middle = v2 ? 0 : J_TOKEN.length + token.length;
      w.stringOf(J_RECEIVER.length + 42 + middle + J_AMOUNT.length + amount.length + J_END.length);
      w.rawAscii(J_RECEIVER);
      w.rawAscii('0x');
      w.rawLower(buf, at + 26, at + 66);
      if (!v2) {
        w.rawAscii(J_TOKEN);
        w.rawAscii(token);
      }
      w.rawAscii(J_AMOUNT);
      w.rawAscii(amount);
      w.rawAscii(J_END);
    }
    w.i8(block.status);
    sink.written('alpha_exchange_events');
    return true;
  }

  /** Topic `k`'s address, lowercase and 0x-prefixed. */
  function topicAddress(logs: PackedLogs, i: number, k: number): string {
    const s = logs.at(i, Field.TopicStart + 2 * k);
    return `0x${logs.buf.toString('latin1', s + 26, s + 66).toLowerCase()}`;
  }

  /** The emitter `hotOf` last found (a variable, not a returned pair: no object per log). */
  let hotContract: Contract | undefined;
  /** The hot event log `i` is (Hot.None when the lane cannot name it); sets `hotContract`. */
  function hotOf(logs: PackedLogs, i: number): Hot {
    const buf = logs.buf;
    const ct = contracts.get(buf, logs.at(i, Field.AddressStart), logs.at(i, Field.AddressEnd));
    hotContract = ct;
    if (ct === undefined || logs.at(i, Field.TopicCount) === 0) return Hot.None;
    const hot = hotTopics
      .get(buf, logs.at(i, Field.TopicStart), logs.at(i, Field.TopicStart + 1))
      ?.get(ct.c.kind);
    return hot ?? Hot.None;
  }

  return {
    declined,
    readTransfer(logs, i, into) {
      const hot = hotOf(logs, i);
      if (hot === Hot.TransferSingle) {
        if (single(logs, i) < 0) return;
        into.transfers.push({
          logIndex,
          from: topicAddress(logs, i, 2),
          to: topicAddress(logs, i, 3),
          ids: [singleToken],
          values: [u64Value(low[0]!, low[1]!)],
        });
      } else if (hot === Hot.TransferBatch) {
        const n = batchOf(logs, i);
        if (n < 0) return;
        const values: U64[] = [];
        for (let k = 0; k < n; k++) values.push(u64Value(batchValues[2 * k]!, batchValues[2 * k + 1]!));
        into.transfers.push({
          logIndex,
          from: topicAddress(logs, i, 2),
          to: topicAddress(logs, i, 3),
          ids: batchIds.slice(0, n),
          values,
        });
      }
    },
    readPusd(logs, i, into) {
      const hot = hotOf(logs, i);
      if (hotContract?.c.kind !== 'collateralToken') return;
      if (hot === Hot.Erc20Transfer) {
        if (collateralOf(logs, i, true) < 0) return;
        into.pusd.push({ kind: 'transfer', from: topicAddress(logs, i, 1), to: topicAddress(logs, i, 2) });
      } else if (hot === Hot.Wrap || hot === Hot.Unwrap) {
        if (collateralOf(logs, i, false) < 0) return;
        into.pusd.push({ kind: HOT_NAME[hot]!, from: '', to: topicAddress(logs, i, 3) });
      }
    },
    topicClass(logs, i) {
      if (logs.at(i, Field.TopicCount) === 0) return TopicClass.Other;
      const buf = logs.buf;
      const s = logs.at(i, Field.TopicStart);
      const e = logs.at(i, Field.TopicStart + 1);
      const c = classes.get(buf, s, e);
      if (c !== undefined) return c;
      return hasUpper(buf, s, e) ? TopicClass.Object : TopicClass.Other;
    },
    fillToken(logs, i, v2) {
      const buf = logs.buf;
      const s = logs.at(i, Field.DataStart);
      if (logs.at(i, Field.DataEnd) - s < 2 + 128) return undefined;
      const d = s + 2;
      const token = v2
        ? tokenId(buf, d + 64)
        : allZero(buf, d, d + 64)
          ? tokenId(buf, d + 64)
          : tokenId(buf, d);
      return token ?? undefined;
    },
    write(logs, i, sink, b) {
      if (b !== blocks) {
        blocks = b;
        lastLogs = undefined;
        lastBlockLog = -1;
      }
      const hot = hotOf(logs, i);
      const ct = hotContract;
      if (hot === Hot.None || ct === undefined) return LaneResult.NotHot;
      let written: boolean;
      switch (hot) {
        case Hot.FillV1:
          written = writeFill(logs, i, sink, ct, false);
          break;
        case Hot.FillV2:
          written = writeFill(logs, i, sink, ct, true);
          break;
        case Hot.TransferSingle:
          written = writeTransferSingle(logs, i, sink);
          break;
        case Hot.TransferBatch:
          written = writeTransferBatch(logs, i, sink);
          break;
        case Hot.Erc20Transfer:
          written = writeCollateral(logs, i, sink, ct, 'transfer');
          break;
        case Hot.Wrap:
        case Hot.Unwrap:
          written = writeCollateral(logs, i, sink, ct, hot === Hot.Wrap ? 'wrap' : 'unwrap');
          break;
        default:
          written = writeExchangeEvent(logs, i, sink, ct, hot);
      }
      if (written) return LaneResult.Written;
      declined.reason = `${HOT_NAME[hot]}: ${declined.reason}`;
      return LaneResult.Declined;
    },
  };
}
