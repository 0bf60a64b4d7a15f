/**
 * On-chain id derivations of venue alpha, computed off-chain so the catalog knows the ids before the
 * chain exists. The chain helper's Solidity mirrors these exactly; a change here must change there.
 *
 * - conditionId  = keccak256(abi.encodePacked(address oracle, bytes32 questionId, uint256 outcomeSlotCount))
 * - collectionId = keccak256(abi.encodePacked(bytes32(0), bytes32 conditionId, uint256 indexSet))
 *   (simplified: the real CTF adds elliptic-curve points; see docs/decisions.md)
 * - positionId   = uint256(keccak256(abi.encodePacked(address collateral, bytes32 collectionId)))
 * - negRiskMarketId   = keccak256(abi.encode(address oracle, uint256 feeBips, bytes metadata)) with the last byte zeroed
 * - negRiskQuestionId = marketId + index (the last byte is the index)
 * - umaQuestionId     = keccak256(ancillaryData ‖ ",initializer:" ‖ lowercase hex(creator) without 0x)
 */
import { type Address, concat, encodeAbiParameters, encodePacked, type Hex, keccak256, toHex } from 'viem';

export const ZERO_BYTES32: Hex = `0x${'0'.repeat(64)}`;

/** Polygon addresses the sim places its contracts at (alpha's real ones). */
export const ALPHA_ADDRESSES = {
  conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  usdcE: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
  pUsd: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  wcol: '0x3A3BD7bb9528E159577F7C2e685CC81A765002E2',
  umaCtfAdapterV3: '0x157Ce2d672854c848c9b79C49a8Cc6cc89176a49',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  negRiskOperator: '0x71523d0f655B41E805Cec45b17163f528B59B820',
  negRiskUmaCtfAdapter: '0x2F5e3684cb1F318ec51b00Edba38d79Ac2c0aA9d',
  ctfExchangeV1: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
  negRiskCtfExchangeV1: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
  ctfExchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskCtfExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
  optimisticOracleV2: '0xeE3Afe347D5C74317041E2618C49534dAf887c24',
} as const satisfies Record<string, Address>;

/** Standard (non neg-risk) markets: collateral USDC.e, oracle the UMA CTF adapter v3. */
export const STANDARD_COLLATERAL: Address = ALPHA_ADDRESSES.usdcE;
export const STANDARD_ORACLE: Address = ALPHA_ADDRESSES.umaCtfAdapterV3;
/** Neg-risk markets: collateral WCOL, condition oracle the NegRiskAdapter. */
export const NEG_RISK_COLLATERAL: Address = ALPHA_ADDRESSES.wcol;
export const NEG_RISK_ORACLE: Address = ALPHA_ADDRESSES.negRiskAdapter;

/** Any-case address accepted: viem rejects a mixed-case address with a wrong checksum. */
function lower(address: Address): Address {
  return address.toLowerCase() as Address;
}

/** indexSet of outcome index i in a binary condition: Yes (0) → 1, No (1) → 2. */
export function indexSetOf(outcomeIndex: number): bigint {
  return 1n << BigInt(outcomeIndex);
}

export function conditionId(oracle: Address, questionId: Hex, outcomeSlotCount: number | bigint): Hex {
  return keccak256(
    encodePacked(['address', 'bytes32', 'uint256'], [lower(oracle), questionId, BigInt(outcomeSlotCount)]),
  );
}

export function collectionId(condition: Hex, indexSet: number | bigint): Hex {
  return keccak256(
    encodePacked(['bytes32', 'bytes32', 'uint256'], [ZERO_BYTES32, condition, BigInt(indexSet)]),
  );
}

/** ERC-1155 position id (token id) as a decimal string. */
export function positionId(collateral: Address, collection: Hex): string {
  return BigInt(keccak256(encodePacked(['address', 'bytes32'], [lower(collateral), collection]))).toString(
    10,
  );
}

export function negRiskMarketId(oracle: Address, feeBips: number | bigint, metadata: Hex): Hex {
  const h = keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }],
      [lower(oracle), BigInt(feeBips), metadata],
    ),
  );
  return `${h.slice(0, 64)}00` as Hex;
}

export function negRiskQuestionId(marketId: Hex, index: number): Hex {
  if (!Number.isInteger(index) || index < 0 || index > 255) {
    throw new RangeError(`neg-risk question index must be 0..255, got ${index}`);
  }
  return toHex(BigInt(marketId) + BigInt(index), { size: 32 });
}

/** The UMA CTF adapter's stored ancillary data: the initializer's data with the creator appended. */
export function umaAncillaryData(data: Hex, creator: Address): Hex {
  return concat([data, toHex(`,initializer:${creator.slice(2).toLowerCase()}`)]);
}

/** questionID the UMA CTF adapter assigns in initialize(): keccak256 of the stored ancillary data. */
export function umaQuestionId(data: Hex, creator: Address): Hex {
  return keccak256(umaAncillaryData(data, creator));
}

export interface BinaryPositionIds {
  conditionId: Hex;
  /** [yes, no] token ids as decimal strings (indexSet 1, 2). */
  tokenIds: [string, string];
}

/** Condition and [yes, no] token ids of a binary market with the given oracle, question and collateral. */
export function binaryPositionIds(oracle: Address, questionId: Hex, collateral: Address): BinaryPositionIds {
  const cond = conditionId(oracle, questionId, 2);
  return {
    conditionId: cond,
    tokenIds: [positionId(collateral, collectionId(cond, 1)), positionId(collateral, collectionId(cond, 2))],
  };
}
