/**
 * What every contract family's mapper shares: the decoded log shape, the address sets as lowercase
 * lookups, position-id derivation (cached), token knowledge, and the small value helpers. One context
 * per row mapper (mapper.ts); each family module (exchange.ts, ctf.ts, neg-risk-adapter.ts, operator.ts,
 * uma.ts, tokens.ts) takes it and maps the decoded logs of its contracts to rows (the hot events are the
 * direct lane's, direct-lane.ts).
 */
import { encodePacked, type Hex, keccak256 } from 'viem';
import type { AddressSets, AlphaContract } from '../../../../../schemas/abi/alpha-addresses.ts';
import { allContracts } from '../../../../../schemas/abi/alpha-addresses.ts';
import { AmountOverflowError } from '../../../../chain/hex.ts';
import type { MapStats, RpcLog, U64 } from '../../../../chain/types.ts';
import type { Args } from '../decoders.ts';
import { type PositionIdScheme, positionIdOf } from '../position-ids.ts';
import type { EventKey, RowSink } from '../rows.ts';
import type { TokenMap } from '../token-map.ts';
import type { TxContext } from './attribution.ts';

export interface MapperOptions {
  chainId: number;
  sets: AddressSets;
  /**
   * Role addresses: collateral of standard (USDC.e) and neg-risk (WCOL) positions, the pUSD token, the
   * NegRiskAdapter that prepares neg-risk conditions (default: the sets' first).
   */
  roles: { usdcE: string; wcol: string; pUsd: string; negRiskAdapter?: string };
  positionIds: PositionIdScheme;
  tokens: TokenMap;
}

/** A log decoded by (emitter, topic0), with its event key. */
export interface Decoded {
  log: RpcLog;
  key: EventKey;
  contract: AlphaContract;
  name: string;
  args: Args;
}

/** Maps one decoded log of a contract family to rows (or counts it as skipped). */
export type FamilyMapper = (d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats) => void;

export interface MapContext {
  readonly chainId: number;
  readonly contracts: AlphaContract[];
  readonly tokens: TokenMap;
  /** Lowercase addresses of the exchanges, NegRiskAdapters, collateral adapters and UMA adapters. */
  readonly exchanges: ReadonlySet<string>;
  readonly negRiskAdapters: ReadonlySet<string>;
  readonly collateralAdapters: ReadonlySet<string>;
  readonly umaAdapters: ReadonlySet<string>;
  /** UMA adapter → whether it serves neg-risk questions (its question ids are operator request ids). */
  readonly umaAdapterNegRisk: ReadonlyMap<string, boolean>;
  /** UMA adapters whose question id is keccak256 of the request's ancillary data (v2 and later). */
  readonly umaHashedQuestions: ReadonlySet<string>;
  /** The condition `oracle` prepares for a binary question: keccak256(oracle, questionId, 2). */
  conditionOf(oracle: string, questionId: string): string;
  /** The condition of a neg-risk question (prepared by the NegRiskAdapter). */
  negRiskConditionOf(questionId: string): string;
  /** Collateral adapter → whether it serves neg-risk markets. */
  readonly collateralAdapterNegRisk: ReadonlyMap<string, boolean>;
  readonly usdcE: string;
  readonly wcol: string;
  readonly pUsd: string;
  /** Collateral token address → symbol. */
  readonly symbols: ReadonlyMap<string, string>;
  /** A contract's address as a row value (lowercased once per contract, not once per row). */
  addressOf(c: AlphaContract): string;
  /** The CTF position (outcome token) id of a condition's index set, through a bounded cache. */
  positionId(collateral: string, conditionId: string, indexSet: bigint): string;
  tokenIdsOf(collateral: string, conditionId: string, indexSets: string[]): Set<string>;
}

/** Derivations kept before the cache is emptied: each costs two keccak256 (tens of µs in JS). */
const POSITION_CACHE_MAX = 50_000;

export function createMapContext(opts: MapperOptions): MapContext {
  const lower = (a: string) => a.toLowerCase();
  const contracts = allContracts(opts.sets);
  const addressesOf = (kinds: AlphaContract['kind'][]) =>
    new Set(contracts.filter((c) => kinds.includes(c.kind)).map((c) => lower(c.address)));
  const usdcE = lower(opts.roles.usdcE);
  const pUsd = lower(opts.roles.pUsd);
  const symbols = new Map<string, string>([
    [usdcE, 'USDC.e'],
    [pUsd, 'pUSD'],
  ]);
  for (const c of contracts)
    if (c.kind === 'erc20Collateral' || c.kind === 'collateralToken') symbols.set(lower(c.address), c.label);

  const negRiskAdapter = lower(
    opts.roles.negRiskAdapter ?? contracts.find((c) => c.kind === 'negRiskAdapter')?.address ?? '',
  );
  const conditionOf = (oracle: string, questionId: string): string =>
    /^0x[0-9a-f]{40}$/.test(oracle) && /^0x[0-9a-fA-F]{64}$/.test(questionId)
      ? keccak256(encodePacked(['address', 'bytes32', 'uint256'], [oracle as Hex, questionId as Hex, 2n]))
      : '';

  const lowered = new Map<string, string>();
  // A binary condition's ids are wanted by its preparation (twice: tokens, lifecycle) and by every
  // adapter-mediated split, merge and redemption of it.
  const positionCache = new Map<string, string>();
  const positionId = (collateral: string, conditionId: string, indexSet: bigint): string => {
    const k = `${collateral}${conditionId}${indexSet}`;
    let id = positionCache.get(k);
    if (id === undefined) {
      id = positionIdOf(opts.positionIds, collateral as Hex, conditionId as Hex, indexSet);
      if (positionCache.size >= POSITION_CACHE_MAX) positionCache.clear();
      positionCache.set(k, id);
    }
    return id;
  };

  return {
    chainId: opts.chainId,
    contracts,
    tokens: opts.tokens,
    exchanges: addressesOf(['exchangeV1', 'exchangeV2']),
    negRiskAdapters: addressesOf(['negRiskAdapter']),
    collateralAdapters: addressesOf(['collateralAdapter']),
    umaAdapters: addressesOf(['umaCtfAdapter', 'umaCtfAdapterV1']),
    umaAdapterNegRisk: new Map(
      contracts
        .filter((c) => c.kind === 'umaCtfAdapter' || c.kind === 'umaCtfAdapterV1')
        .map((c) => [lower(c.address), c.negRisk]),
    ),
    umaHashedQuestions: addressesOf(['umaCtfAdapter']),
    conditionOf,
    negRiskConditionOf: (questionId) => conditionOf(negRiskAdapter, questionId),
    collateralAdapterNegRisk: new Map(
      contracts.filter((c) => c.kind === 'collateralAdapter').map((c) => [lower(c.address), c.negRisk]),
    ),
    usdcE,
    wcol: lower(opts.roles.wcol),
    pUsd,
    symbols,
    addressOf(c) {
      let a = lowered.get(c.address);
      if (a === undefined) {
        a = lower(c.address);
        lowered.set(c.address, a);
      }
      return a;
    },
    positionId,
    tokenIdsOf(collateral, conditionId, indexSets) {
      const out = new Set<string>();
      for (const s of indexSets) out.add(positionId(collateral, conditionId, BigInt(s)));
      return out;
    },
  };
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

export function sumU64(values: U64[]): U64 {
  let total = 0n;
  for (const v of values) total += BigInt(v);
  return toU64(total.toString());
}

/** A decoded argument as a row string ('' when absent). */
export const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** The alpha_lifecycle columns every lifecycle row starts from (empty ids, no tokens or payouts). */
export function lifecycleBase(ctx: MapContext, d: Decoded, key: EventKey, kind: string) {
  return {
    ...key,
    kind,
    version: d.contract.version,
    neg_risk: d.contract.negRisk,
    contract: ctx.addressOf(d.contract),
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
