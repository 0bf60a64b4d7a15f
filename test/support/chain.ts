/**
 * A private anvil chain for a test file: `useChain()` starts one in `beforeAll` and stops it in
 * `afterAll`; `startTestChain()` is the same launcher without hooks. Chain id 137, no automine
 * unless asked, deterministic (see sim/chain/anvil.ts for the flags). Also: every log of a block range,
 * and alpha's published event signatures written out here, independently of the sim's contracts and
 * of schemas/abi, so a test decoding against them proves the sim emits the documented ABI.
 */
import { type AbiEvent, type Address, type Hex, parseAbiItem, toEventSelector } from 'viem';
import { afterAll, beforeAll } from 'vitest';
import { type Anvil, type StartAnvilOptions, startAnvil } from '../../sim/chain/anvil.ts';

export type { Anvil, StartAnvilOptions };

export function startTestChain(options: StartAnvilOptions = {}): Promise<Anvil> {
  return startAnvil({ startTimeoutMs: 15_000, ...options });
}

/** Starts a chain for the file; read `chain.current` inside tests. */
export function useChain(options: StartAnvilOptions = {}): { readonly current: Anvil } {
  let anvil: Anvil | undefined;
  beforeAll(async () => {
    anvil = await startTestChain(options);
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  return {
    get current(): Anvil {
      if (!anvil) throw new Error('useChain(): the chain is only available inside tests');
      return anvil;
    },
  };
}

export interface RawLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
}

export async function allLogs(
  anvil: Anvil,
  fromBlock: number,
  toBlock: number,
  page = 50,
): Promise<RawLog[]> {
  const out: RawLog[] = [];
  for (let from = fromBlock; from <= toBlock; from += page) {
    const to = Math.min(toBlock, from + page - 1);
    const logs = await anvil.rpc<RawLog[]>('eth_getLogs', [
      { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` },
    ]);
    out.push(...logs);
  }
  return out;
}

/** alpha's published event declarations, by contract role. */
export const DOC_SIGNATURES = {
  exchangeV1: [
    'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
    'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
    'event FeeCharged(address indexed receiver, uint256 tokenId, uint256 amount)',
    'event TokenRegistered(uint256 indexed token0, uint256 indexed token1, bytes32 indexed conditionId)',
  ],
  exchangeV2: [
    'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
    'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
    'event FeeCharged(address indexed receiver, uint256 amount)',
  ],
  feeModule: [
    'event FeeRefunded(bytes32 indexed orderHash, address indexed to, uint256 id, uint256 refund, uint256 indexed feeCharged)',
  ],
  ctf: [
    'event ConditionPreparation(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount)',
    'event ConditionResolution(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount, uint256[] payoutNumerators)',
    'event PositionSplit(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
    'event PositionsMerge(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
    'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
    'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  ],
  negRiskAdapter: [
    'event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data)',
    'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data)',
    'event OutcomeReported(bytes32 indexed marketId, bytes32 indexed questionId, bool outcome)',
    'event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
    'event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
    'event PositionsConverted(address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount)',
    'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
  ],
  negRiskOperator: [
    'event MarketPrepared(bytes32 indexed marketId, uint256 feeBips, bytes data)',
    'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, bytes32 indexed requestId, uint256 questionIndex, bytes data)',
    'event QuestionReported(bytes32 indexed questionId, bytes32 requestId, bool result)',
    'event QuestionResolved(bytes32 indexed questionId, bool result)',
  ],
  umaAdapter: [
    'event QuestionInitialized(bytes32 indexed questionID, uint256 indexed requestTimestamp, address indexed creator, bytes ancillaryData, address rewardToken, uint256 reward, uint256 proposalBond)',
    'event QuestionReset(bytes32 indexed questionID)',
    'event QuestionResolved(bytes32 indexed questionID, int256 indexed settledPrice, uint256[] payouts)',
  ],
  oracle: [
    'event RequestPrice(address indexed requester, bytes32 identifier, uint256 timestamp, bytes ancillaryData, address currency, uint256 reward, uint256 finalFee)',
    'event ProposePrice(address indexed requester, address indexed proposer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 proposedPrice, uint256 expirationTimestamp, address currency)',
    'event DisputePrice(address indexed requester, address indexed proposer, address indexed disputer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 proposedPrice)',
    'event Settle(address indexed requester, address indexed proposer, address indexed disputer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 price, uint256 payout)',
  ],
  erc20: ['event Transfer(address indexed from, address indexed to, uint256 value)'],
  pUsd: [
    'event Transfer(address indexed from, address indexed to, uint256 value)',
    'event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
    'event Unwrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
  ],
} as const;

export type DocRole = keyof typeof DOC_SIGNATURES;

export interface DocEvent {
  role: DocRole;
  abi: AbiEvent;
  /** topic0 recomputed from the declaration. */
  topic0: Hex;
  /** `role.Name`, e.g. `exchangeV1.OrderFilled`. */
  kind: string;
}

export function docEvents(role: DocRole): DocEvent[] {
  return DOC_SIGNATURES[role].map((sig) => {
    const abi = parseAbiItem(sig) as AbiEvent;
    return { role, abi, topic0: toEventSelector(abi), kind: `${role}.${abi.name}` };
  });
}
