/**
 * Event ABIs of venue alpha's contracts, as viem-parsable human-readable signatures, grouped by
 * contract kind, with the indexed flags of the contracts' own sources. A contract kind is what an address *is*; the decoders look events up by
 * (emitter address → kind, topic0), never by topic0 alone, because several kinds share topic0 values
 * with different meaning or indexing (docs/chain-ingestion.md, "The chain").
 *
 * `ALPHA_EVENT_TOPICS` pins every event's topic0, computed apart from these signatures, and
 * schemas/abi/alpha-events.test.ts checks them against each other, so a typo in a signature fails a test.
 */
import { type AbiEvent, parseAbi } from 'viem';

export const EXCHANGE_V1_EVENTS = [
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
  'event FeeCharged(address indexed receiver, uint256 tokenId, uint256 amount)',
  'event TokenRegistered(uint256 indexed token0, uint256 indexed token1, bytes32 indexed conditionId)',
  'event OrderCancelled(bytes32 indexed orderHash)',
  'event TradingPaused(address indexed pauser)',
  'event TradingUnpaused(address indexed pauser)',
] as const;

export const EXCHANGE_V2_EVENTS = [
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
  'event FeeCharged(address indexed receiver, uint256 amount)',
  'event TradingPaused(address indexed pauser)',
  'event TradingUnpaused(address indexed pauser)',
] as const;

/** Operator fee modules in front of the V1 exchanges: both FeeRefunded generations. */
export const FEE_MODULE_EVENTS = [
  'event FeeRefunded(bytes32 indexed orderHash, address indexed to, uint256 id, uint256 refund, uint256 indexed feeCharged)',
  'event FeeRefunded(address token, address to, uint256 id, uint256 amount)',
] as const;

export const CONDITIONAL_TOKENS_EVENTS = [
  'event ConditionPreparation(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount)',
  'event ConditionResolution(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount, uint256[] payoutNumerators)',
  'event PositionSplit(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
  'event PositionsMerge(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
  'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
] as const;

export const NEG_RISK_ADAPTER_EVENTS = [
  'event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data)',
  'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data)',
  'event OutcomeReported(bytes32 indexed marketId, bytes32 indexed questionId, bool outcome)',
  'event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
  'event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
  'event PositionsConverted(address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount)',
  'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
] as const;

export const NEG_RISK_OPERATOR_EVENTS = [
  'event MarketPrepared(bytes32 indexed marketId, uint256 feeBips, bytes data)',
  'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, bytes32 indexed requestId, uint256 questionIndex, bytes data)',
  'event QuestionFlagged(bytes32 indexed questionId)',
  'event QuestionUnflagged(bytes32 indexed questionId)',
  'event QuestionReported(bytes32 indexed questionId, bytes32 requestId, bool result)',
  'event QuestionResolved(bytes32 indexed questionId, bool result)',
  'event QuestionEmergencyResolved(bytes32 indexed questionId, bool result)',
] as const;

/** UmaCtfAdapter v2, v3.x, v4 and the neg-risk UMA adapters (uma-ctf-adapter IUmaCtfAdapter.sol). */
export const UMA_CTF_ADAPTER_EVENTS = [
  'event QuestionInitialized(bytes32 indexed questionID, uint256 indexed requestTimestamp, address indexed creator, bytes ancillaryData, address rewardToken, uint256 reward, uint256 proposalBond)',
  'event QuestionPaused(bytes32 indexed questionID)',
  'event QuestionUnpaused(bytes32 indexed questionID)',
  'event QuestionFlagged(bytes32 indexed questionID)',
  'event QuestionUnflagged(bytes32 indexed questionID)',
  'event QuestionReset(bytes32 indexed questionID)',
  'event QuestionResolved(bytes32 indexed questionID, int256 indexed settledPrice, uint256[] payouts)',
  'event QuestionEmergencyResolved(bytes32 indexed questionID, uint256[] payouts)',
  'event QuestionManuallyResolved(bytes32 indexed questionID, uint256[] payouts)',
] as const;

/** UmaCtfAdapter v1.0 ("binary adapter", 0xCB18…): its own event set. */
export const UMA_CTF_ADAPTER_V1_EVENTS = [
  'event QuestionInitialized(bytes32 indexed questionID, bytes ancillaryData, uint256 resolutionTime, address rewardToken, uint256 reward, uint256 proposalBond, bool earlyResolutionEnabled)',
  'event QuestionSettled(bytes32 indexed questionID, int256 indexed settledPrice, bool indexed earlyResolution)',
  'event QuestionResolved(bytes32 indexed questionID, bool indexed emergencyReport)',
] as const;

/** UMA OptimisticOracleV2 and ManagedOptimisticOracleV2. */
export const OPTIMISTIC_ORACLE_V2_EVENTS = [
  'event RequestPrice(address indexed requester, bytes32 identifier, uint256 timestamp, bytes ancillaryData, address currency, uint256 reward, uint256 finalFee)',
  'event ProposePrice(address indexed requester, address indexed proposer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 proposedPrice, uint256 expirationTimestamp, address currency)',
  'event DisputePrice(address indexed requester, address indexed proposer, address indexed disputer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 proposedPrice)',
  'event Settle(address indexed requester, address indexed proposer, address indexed disputer, bytes32 identifier, uint256 timestamp, bytes ancillaryData, int256 price, uint256 payout)',
] as const;

/** Plain ERC-20 collateral (USDC.e): only transfers are ingested. */
export const ERC20_EVENTS = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
] as const;

/** pUSD CollateralToken: ERC-20 transfers plus wrap/unwrap. */
export const COLLATERAL_TOKEN_EVENTS = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
  'event Unwrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
] as const;

/**
 * Contract kinds and their event sets. Kinds with an empty set are known addresses that emit nothing
 * pmdata ingests (they still matter for attribution, e.g. the collateral adapters as CTF stakeholders);
 * a log from them is not quarantined as unknown.
 */
export const EVENTS_BY_KIND = {
  exchangeV1: EXCHANGE_V1_EVENTS,
  exchangeV2: EXCHANGE_V2_EVENTS,
  feeModule: FEE_MODULE_EVENTS,
  conditionalTokens: CONDITIONAL_TOKENS_EVENTS,
  negRiskAdapter: NEG_RISK_ADAPTER_EVENTS,
  negRiskOperator: NEG_RISK_OPERATOR_EVENTS,
  umaCtfAdapter: UMA_CTF_ADAPTER_EVENTS,
  umaCtfAdapterV1: UMA_CTF_ADAPTER_V1_EVENTS,
  optimisticOracleV2: OPTIMISTIC_ORACLE_V2_EVENTS,
  erc20Collateral: ERC20_EVENTS,
  collateralToken: COLLATERAL_TOKEN_EVENTS,
  collateralAdapter: [],
  collateralRamp: [],
} as const satisfies Record<string, readonly string[]>;

export type ContractKind = keyof typeof EVENTS_BY_KIND;

/** Parsed ABI (viem `AbiEvent[]`) of one contract kind. */
export function eventAbi(kind: ContractKind): readonly AbiEvent[] {
  const signatures = EVENTS_BY_KIND[kind] as readonly string[];
  if (signatures.length === 0) return [];
  return parseAbi(signatures) as unknown as readonly AbiEvent[];
}

/** topic0 of every known event, computed apart from the signatures above (a test checks both agree). */
export const ALPHA_EVENT_TOPICS = {
  orderFilledV1: '0xd0a08e8c493f9c94f29311604c9de1b4e8c8d4c06bd0c789af57f2d65bfec0f6',
  ordersMatchedV1: '0x63bf4d16b7fa898ef4c4b2b6d90fd201e9c56313b65638af6088d149d2ce956c',
  feeChargedV1: '0xacffcc86834d0f1a64b0d5a675798deed6ff0bcfc2231edd3480e7288dba7ff4',
  tokenRegistered: '0xbc9a2432e8aeb48327246cddd6e872ef452812b4243c04e6bfb786a2cd8faf0d',
  orderCancelled: '0x5152abf959f6564662358c2e52b702259b78bac5ee7842a0f01937e670efcc7d',
  tradingPaused: '0x203c4bd3e526634f661575359ff30de3b0edaba6c2cb1eac60f730b6d2d9d536',
  tradingUnpaused: '0xa1e8a54850dbd7f520bcc09f47bff152294b77b2081da545a7adf531b7ea283b',
  orderFilledV2: '0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee',
  ordersMatchedV2: '0x174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c',
  feeChargedV2: '0x55bb3cade9d43b798a4fe5ffdd05024b2d7870df53920673bfc7e68047cd0ab1',
  feeRefunded2025: '0xb608d2bf25d8b4b744ba23ce2ea9802ea955e216c064a62f42152fbf98958d24',
  feeRefunded2023: '0x18fe0464eb77016dc4e227eb0d690e4002756d82b442143bbfb874548952b5f2',
  conditionPreparation: '0xab3760c3bd2bb38b5bcf54dc79802ed67338b4cf29f3054ded67ed24661e4177',
  conditionResolution: '0xb44d84d3289691f71497564b85d4233648d9dbae8cbdbb4329f301c3a0185894',
  ctfPositionSplit: '0x2e6bb91f8cbcda0c93623c54d0403a43514fabc40084ec96b6d5379a74786298',
  ctfPositionsMerge: '0x6f13ca62553fcc2bcd2372180a43949c1e4cebba603901ede2f4e14f36b282ca',
  ctfPayoutRedemption: '0x2682012a4a4f1973119f1c9b90745d1bd91fa2bab387344f044cb3586864d18d',
  transferSingle: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  transferBatch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  marketPrepared: '0xf059ab16d1ca60e123eab60e3c02b68faf060347c701a5d14885a8e1def7b3a8',
  questionPrepared: '0xaac410f87d423a922a7b226ac68f0c2eaf5bf6d15e644ac0758c7f96e2c253f7',
  outcomeReported: '0x9e9fa7fd355160bd4cd3f22d4333519354beff1f5689bde87f2c5e63d8d484b2',
  nrPositionSplit: '0xbbed930dbfb7907ae2d60ddf78345610214f26419a0128df39b6cc3d9e5df9b0',
  nrPositionsMerge: '0xba33ac50d8894676597e6e35dc09cff59854708b642cd069d21eb9c7ca072a04',
  positionsConverted: '0xb03d19dddbc72a87e735ff0ea3b57bef133ebe44e1894284916a84044deb367e',
  nrPayoutRedemption: '0x9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd3224',
  operatorMarketPrepared: '0x8138c0666fe0f752ff38486f542284f127aef02642c9c8db716ee1088839eeb0',
  operatorQuestionPrepared: '0xcdc45423ec79c60a3fe3de57272e598d71a4ec88822e822ac8e134184a8435aa',
  questionFlagged: '0x2435a0347185933b12027c6f394a5fd9c03646dba233e956f50658719dfc0b35',
  questionUnflagged: '0x052435bc04fc49113a7bfd9198a92c0852ca622a621800f6da66d4b29b786c05',
  questionReported: '0x504306b41b2531b3fd2bc5e1b32dc1fc87501906cfc63c1180e3873af20f0eae',
  operatorQuestionResolved: '0x5c3937ed929cd157b73b417381d743daf6e1ef65999e3ccb5dd64bc3247e28d6',
  operatorQuestionEmergencyResolved: '0xd1aea2ca9d3458614d11a93a203dd9fabbd3576aeb841422c46e235637333cb9',
  questionInitialized: '0xeee0897acd6893adcaf2ba5158191b3601098ab6bece35c5d57874340b64c5b7',
  questionPaused: '0x6ded7250a9d5f79aef5add44600fc20a74a0af6f4730baa4fc4ab87bf484b812',
  questionUnpaused: '0x92d28918c5574e7fc0f4f948c39502682c81cfb4089b07b83f95b3264e5e5e06',
  questionReset: '0x7981b5832932948db4e32a4a16a0f44b2ce7ff088574afb9364b313f70f82e8f',
  questionResolved: '0x566c3fbdd12dd86bb341787f6d531f79fd7ad4ce7e3ae2d15ac0ca1b601af9df',
  questionEmergencyResolved: '0x6edb5841a476c9c29c34a652d1a44f785fe71a6157a3da9a6a6a589a1bd2945a',
  questionManuallyResolved: '0x5909815fe7fe0a550d5fcb95fbf33821b580521d3c97089c6ce12808d1cd0566',
  v1QuestionInitialized: '0x53af6c2e40505bb55a47d917203a12c8f063b6c505c11094d98ac8f772e8a031',
  v1QuestionSettled: '0xa6da625874a330dac87557bbedb7b127cb0a1877a8a3e62d97dc00f8b57622bb',
  requestPrice: '0xf1679315ff325c257a944e0ca1bfe7b26616039e9511f9610d4ba3eca851027b',
  proposePrice: '0x6e51dd00371aabffa82cd401592f76ed51e98a9ea4b58751c70463a2c78b5ca1',
  disputePrice: '0x5165909c3d1c01c5d1e121ac6f6d01dda1ba24bc9e1f975b5a375339c15be7f3',
  settle: '0x3f384afb4bd9f0aef0298c80399950011420eb33b0e1a750b20966270247b9a0',
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  wrapped: '0xc00a5c84859ae82a7f5e6a2773283fb525335d5b3195f61174aa1ecc7e15dd84',
  unwrapped: '0x18b42b684d0b621cc609f4d888916e5ed9e934a476259ec1c11ec116f2b9aa7f',
} as const;
