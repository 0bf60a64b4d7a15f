/**
 * Decoders keyed by (emitter address, topic0). The address says which contract kind emitted the log
 * (schemas/abi/alpha-addresses.ts), the kind says which event set applies (schemas/abi/alpha-events.ts):
 * several kinds share topic0 values with different meaning or indexing, so topic0 alone never decides.
 * What cannot be decoded is quarantined with its kind and reason (unknown address or topic, bad data,
 * an amount over UInt64).
 *
 * The hot events (fills, ERC-1155 and collateral transfers, pUSD wraps, OrdersMatched, FeeCharged) are
 * not decoded here: the direct lane maps them from their bytes (direct-lane.ts). A hot event reaches
 * the registry only when the lane did not recognize it, i.e. its emitter or topic0 is not written in
 * lowercase hex as nodes send them: it is quarantined as bad data.
 *
 * CTF and NegRiskAdapter splits and merges and CTF redemptions (as frequent as fills in a busy market)
 * are decoded by reading data words directly (~30× faster than viem's generic decoder); every other
 * event goes through viem `decodeEventLog` in strict mode. Both return arguments under their ABI names,
 * normalized the same way (addresses lowercase, uint256 ids as decimal strings, amounts as U64), so a
 * test can prove the fast decoders equal viem on every log the simulated chain emits.
 */
import { type AbiEvent, decodeEventLog, type Hex, parseAbiItem, toEventSelector } from 'viem';
import {
  type AddressSets,
  type AlphaContract,
  allContracts,
} from '../../../../schemas/abi/alpha-addresses.ts';
import { type ContractKind, eventAbi } from '../../../../schemas/abi/alpha-events.ts';
import {
  AmountOverflowError,
  addressOf,
  BadLogError,
  byteLength,
  bytes32,
  uintAmount,
  uintString,
  wordAt,
} from '../../../chain/hex.ts';
import type { RpcLog } from '../../../chain/types.ts';
import { HOT_TOPICS } from './direct-lane.ts';

export type Args = Record<string, unknown>;

export type DecodeResult =
  | { status: 'decoded'; contract: AlphaContract; name: string; args: Args }
  | { status: 'ignored'; contract: AlphaContract; name: string }
  | {
      status: 'quarantine';
      kind: 'unknown_topic' | 'bad_data' | 'amount_overflow' | 'unknown_address';
      reason: string;
    };

type FastDecoder = (log: RpcLog) => Args;

interface Handler {
  name: string;
  abiItem: AbiEvent;
  fast?: FastDecoder;
  /** A hot event: the direct lane's to map. */
  hot: boolean;
}

function expectTopics(log: RpcLog, n: number): void {
  if (log.topics.length !== n) throw new BadLogError(`expected ${n} topics, got ${log.topics.length}`);
}

/** An ABI offset or length word as a number; a value past 2^53 cannot point inside any log. */
function layoutNumber(w: string, what: string): number {
  const v = Number.parseInt(w, 16);
  if (!Number.isSafeInteger(v)) throw new BadLogError(`${what} 0x${w} is out of range`);
  return v;
}

/**
 * The top-level dynamic `uint256[]` whose head word is at byte `head` of `data` (`size` bytes), its
 * elements read by `element`. Bounds are viem decodeAbiParameters' ones, so a log fails here exactly
 * when the strict slow path fails: the offset (bytes from the start of data, any alignment) and the
 * length must be safe integers, and the length word and every element must lie inside the data. Tails
 * that overlap other values, and trailing bytes, are accepted as viem accepts them.
 */
function uintArrayAt<T>(data: string, size: number, head: number, element: (w: string) => T): T[] {
  const start = layoutNumber(wordAt(data, head, size), 'array offset');
  const length = layoutNumber(wordAt(data, start, size), 'array length');
  if (start + 32 + 32 * length > size) throw new BadLogError(`array of ${length} runs past the end of data`);
  const out = new Array<T>(length);
  let at = 2 + 2 * (start + 32);
  for (let i = 0; i < length; i++, at += 64) out[i] = element(data.slice(at, at + 64));
  return out;
}

// Split, merge and redemption: one per mint or user action, as frequent as fills in a busy market.
// Amounts are `uintAmount` (not `u64`): an oversized one reaches the mapper (which quarantines it), as on
// viem's path.
// One deliberate difference from viem: it accepts exactly 64 bytes of CTF data (its cursor then reads the
// amount from the array's offset word); no ABI encoding of these arguments is that short, so it is bad data.

/** CTF PositionSplit and PositionsMerge: data is (address collateralToken, uint256[] partition, uint256 amount). */
export function decodeCtfPositions(log: RpcLog): Args {
  expectTopics(log, 4);
  const d = log.data;
  const size = byteLength(d);
  return {
    stakeholder: addressOf(log.topics[1]!),
    collateralToken: addressOf(wordAt(d, 0, size)),
    parentCollectionId: log.topics[2]!.toLowerCase(),
    conditionId: log.topics[3]!.toLowerCase(),
    partition: uintArrayAt(d, size, 32, uintString),
    amount: uintAmount(wordAt(d, 64, size)),
  };
}

/** CTF PayoutRedemption: data is (bytes32 conditionId, uint256[] indexSets, uint256 payout). */
export function decodeCtfPayoutRedemption(log: RpcLog): Args {
  expectTopics(log, 4);
  const d = log.data;
  const size = byteLength(d);
  return {
    redeemer: addressOf(log.topics[1]!),
    collateralToken: addressOf(log.topics[2]!),
    parentCollectionId: log.topics[3]!.toLowerCase(),
    conditionId: bytes32(wordAt(d, 0, size)),
    indexSets: uintArrayAt(d, size, 32, uintString),
    payout: uintAmount(wordAt(d, 64, size)),
  };
}

/** NegRiskAdapter PositionSplit and PositionsMerge: data is (uint256 amount). */
export function decodeNegRiskPositions(log: RpcLog): Args {
  expectTopics(log, 3);
  return {
    stakeholder: addressOf(log.topics[1]!),
    conditionId: log.topics[2]!.toLowerCase(),
    amount: uintAmount(wordAt(log.data, 0, byteLength(log.data))),
  };
}

/** Fast decoders by (contract kind, event name). */
const FAST: Partial<Record<ContractKind, Record<string, FastDecoder>>> = {
  conditionalTokens: {
    PositionSplit: decodeCtfPositions,
    PositionsMerge: decodeCtfPositions,
    PayoutRedemption: decodeCtfPayoutRedemption,
  },
  negRiskAdapter: { PositionSplit: decodeNegRiskPositions, PositionsMerge: decodeNegRiskPositions },
};

/** `kind.Event` of every event with a fast decoder (the equivalence test covers each one). */
export const FAST_EVENTS: readonly string[] = Object.entries(FAST).flatMap(([kind, events]) =>
  Object.keys(events ?? {}).map((name) => `${kind}.${name}`),
);

/**
 * Known events of a kind that pmdata does not ingest (approvals, admin and role changes, ...): skipped
 * and counted, not quarantined. A topic neither decoded nor listed here is quarantined as unknown.
 */
const IGNORED: Partial<Record<ContractKind, readonly string[]>> = {
  exchangeV1: [
    'event NewAdmin(address indexed newAdminAddress, address indexed admin)',
    'event NewOperator(address indexed newOperatorAddress, address indexed admin)',
    'event RemovedAdmin(address indexed removedAdmin, address indexed admin)',
    'event RemovedOperator(address indexed removedOperator, address indexed admin)',
    'event ProxyFactoryUpdated(address indexed oldProxyFactory, address indexed newProxyFactory)',
    'event SafeFactoryUpdated(address indexed oldSafeFactory, address indexed newSafeFactory)',
  ],
  exchangeV2: [
    'event NewAdmin(address indexed newAdminAddress, address indexed admin)',
    'event NewOperator(address indexed newOperatorAddress, address indexed admin)',
    'event RemovedAdmin(address indexed removedAdmin, address indexed admin)',
    'event RemovedOperator(address indexed removedOperator, address indexed admin)',
    'event FeeReceiverUpdated(address indexed feeReceiver)',
    'event MaxFeeRateUpdated(uint256 maxFeeRate)',
    'event OrderPreapproved(bytes32 indexed orderHash)',
    'event OrderPreapprovalInvalidated(bytes32 indexed orderHash)',
    'event UserPaused(address indexed user, uint256 effectivePauseBlock)',
    'event UserUnpaused(address indexed user)',
    'event UserPauseBlockIntervalUpdated(uint256 oldInterval, uint256 newInterval)',
  ],
  feeModule: ['event FeeWithdrawn(address token, address to, uint256 id, uint256 amount)'],
  conditionalTokens: [
    'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
    'event URI(string value, uint256 indexed id)',
  ],
  negRiskAdapter: [
    'event NewAdmin(address indexed admin, address indexed newAdminAddress)',
    'event RemovedAdmin(address indexed admin, address indexed removedAdmin)',
  ],
  negRiskOperator: [
    'event NewAdmin(address indexed admin, address indexed newAdminAddress)',
    'event RemovedAdmin(address indexed admin, address indexed removedAdmin)',
  ],
  umaCtfAdapter: [
    'event NewAdmin(address indexed admin, address indexed newAdminAddress)',
    'event RemovedAdmin(address indexed admin, address indexed removedAdmin)',
    'event AncillaryDataUpdated(bytes32 indexed questionID, address indexed owner, bytes update)',
  ],
  umaCtfAdapterV1: [
    'event ResolutionDataRequested(address indexed requestor, uint256 indexed requestTimestamp, bytes32 indexed questionID, bytes32 identifier, bytes ancillaryData, address rewardToken, uint256 reward, uint256 proposalBond, bool earlyResolution)',
  ],
  erc20Collateral: ['event Approval(address indexed owner, address indexed spender, uint256 value)'],
  collateralToken: ['event Approval(address indexed owner, address indexed spender, uint256 value)'],
};

/** viem's decoded value, normalized like the fast decoders' output. */
export function normalizeValue(type: string, value: unknown): unknown {
  if (type.endsWith('[]')) {
    const inner = type.slice(0, -2);
    return (value as unknown[]).map((v) => normalizeValue(inner, v));
  }
  if (type === 'address') return (value as string).toLowerCase();
  if (type.startsWith('uint') || type.startsWith('int')) {
    if (type === 'uint8') return Number(value);
    return (value as bigint).toString(10);
  }
  if (type.startsWith('bytes')) return (value as string).toLowerCase();
  return value;
}

function genericDecoder(item: AbiEvent): FastDecoder {
  return (log) => {
    const decoded = decodeEventLog({
      abi: [item],
      data: log.data as Hex,
      topics: log.topics as [Hex, ...Hex[]],
      strict: true,
    });
    const raw = decoded.args as Record<string, unknown>;
    const out: Args = {};
    for (const input of item.inputs) {
      if (!input.name) continue;
      out[input.name] = normalizeValue(input.type, raw[input.name]);
    }
    return out;
  };
}

export interface DecoderRegistry {
  /** Contract at an address (lowercase), if it is one of alpha's. */
  contractAt(address: string): AlphaContract | undefined;
  /** Addresses whose logs the pipeline fetches (kinds that emit ingested events). */
  readonly logAddresses: string[];
  decode(log: RpcLog): DecodeResult;
  /** The viem ABI item behind (address, topic0), for tests. */
  abiItemFor(address: string, topic0: string): AbiEvent | undefined;
  /** The generic (viem) decoding of a log, for the fast-decoder equivalence test. */
  decodeGeneric(log: RpcLog): Args;
}

export function createDecoderRegistry(sets: AddressSets): DecoderRegistry {
  const byKind = new Map<ContractKind, { handlers: Map<string, Handler>; ignored: Map<string, string> }>();
  const kindEntry = (kind: ContractKind) => {
    let entry = byKind.get(kind);
    if (!entry) {
      const handlers = new Map<string, Handler>();
      for (const item of eventAbi(kind)) {
        const fast = FAST[kind]?.[item.name];
        const topic = toEventSelector(item);
        handlers.set(topic, {
          name: item.name,
          abiItem: item,
          fast: fast ?? genericDecoder(item),
          hot: HOT_TOPICS.get(topic)?.has(kind) === true,
        });
      }
      const ignored = new Map<string, string>();
      for (const sig of IGNORED[kind] ?? []) {
        const item = parseAbiItem(sig) as AbiEvent;
        const topic = toEventSelector(item);
        if (!handlers.has(topic)) ignored.set(topic, item.name);
      }
      entry = { handlers, ignored };
      byKind.set(kind, entry);
    }
    return entry;
  };

  const contracts = new Map<string, AlphaContract>();
  for (const c of allContracts(sets)) contracts.set(c.address.toLowerCase(), c);
  const logAddresses = [...contracts.entries()]
    .filter(([, c]) => eventAbi(c.kind).length > 0)
    .map(([a]) => a);

  function decode(log: RpcLog): DecodeResult {
    // Nodes send lowercase hex: look the raw strings up first, lowercase only on a miss.
    const contract = contracts.get(log.address) ?? contracts.get(log.address.toLowerCase());
    if (!contract)
      return {
        status: 'quarantine',
        kind: 'unknown_address',
        reason: `no contract at ${log.address.toLowerCase()}`,
      };
    const raw0 = log.topics[0];
    const entry = kindEntry(contract.kind);
    const handler = raw0 ? (entry.handlers.get(raw0) ?? entry.handlers.get(raw0.toLowerCase())) : undefined;
    if (!handler) {
      const topic0 = raw0?.toLowerCase();
      const ignoredName = topic0 ? entry.ignored.get(topic0) : undefined;
      if (ignoredName) return { status: 'ignored', contract, name: ignoredName };
      return {
        status: 'quarantine',
        kind: 'unknown_topic',
        reason: `topic0 ${topic0 ?? '(none)'} is not an event of ${contract.label} (${contract.kind})`,
      };
    }
    if (handler.hot) {
      // The mapper asks only for logs the lane did not recognize: written otherwise than nodes write them.
      const lowercase = log.address === log.address.toLowerCase() && raw0 === raw0?.toLowerCase();
      return {
        status: 'quarantine',
        kind: 'bad_data',
        reason: lowercase
          ? `${handler.name}: a hot event, mapped from its bytes by the direct lane (not decoded here)`
          : `${handler.name}: emitter ${log.address} or topic0 ${raw0} is not lowercase hex, as the direct lane reads hot events`,
      };
    }
    try {
      return { status: 'decoded', contract, name: handler.name, args: handler.fast!(log) };
    } catch (err) {
      if (err instanceof AmountOverflowError) {
        return { status: 'quarantine', kind: 'amount_overflow', reason: `${handler.name}: ${err.message}` };
      }
      return {
        status: 'quarantine',
        kind: 'bad_data',
        reason: `${handler.name}: ${(err as Error).message.split('\n')[0]}`,
      };
    }
  }

  return {
    contractAt: (address) => contracts.get(address.toLowerCase()),
    logAddresses,
    decode,
    abiItemFor(address, topic0) {
      const c = contracts.get(address.toLowerCase());
      return c ? kindEntry(c.kind).handlers.get(topic0.toLowerCase())?.abiItem : undefined;
    },
    decodeGeneric(log) {
      const item = this.abiItemFor(log.address, log.topics[0] ?? '');
      if (!item) throw new BadLogError('no ABI item');
      return genericDecoder(item)(log);
    },
  };
}
