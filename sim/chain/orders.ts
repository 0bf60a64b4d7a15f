/**
 * Orders as the sim's exchanges take them: packed uint256 words (the layout is documented in
 * sim/contracts/ExchangeV1.sol and ExchangeV2.sol), hand-encoded because batch drivers carry hundreds of
 * matches per transaction. Order hashes are computed here exactly as the contracts compute them.
 */
import { type Address, type Hex, keccak256, toFunctionSelector, toHex } from 'viem';

export const SIDE_BUY = 0;
export const SIDE_SELL = 1;
export type Side = 0 | 1;

export interface V1Order {
  salt: bigint;
  maker: Address;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  side: Side;
  feeRateBps: number;
  /** Amount filled, in maker-asset units. */
  fill: bigint;
  /** Fee the operator means to keep (FeeModule refunds the exchange fee above it). */
  operatorFee: bigint;
}

export interface V1Match {
  taker: V1Order;
  makers: V1Order[];
}

export interface V2Order {
  salt: bigint;
  maker: Address;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  side: Side;
  fill: bigint;
  /** Collateral fee charged to this order (pUSD base units). */
  fee: bigint;
  builder: Hex;
  metadata: Hex;
}

export interface V2Match {
  conditionId: Hex;
  taker: V2Order;
  makers: V2Order[];
}

export const V1_ORDER_TYPEHASH = keccak256(
  toHex(
    'Order(uint256 salt,address maker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint256 feeRateBps)',
  ),
);
export const V2_ORDER_TYPEHASH = keccak256(
  toHex(
    'Order(uint256 salt,address maker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,bytes32 builder,bytes32 metadata)',
  ),
);
export const MATCH_BATCH_SELECTOR = toFunctionSelector('function matchBatch(uint256[] w)');

const word = (v: bigint | number | string): string => BigInt(v).toString(16).padStart(64, '0');
const hexWord = (h: Hex): string => h.slice(2).padStart(64, '0');

export function hashV1Order(o: V1Order): Hex {
  return keccak256(
    `0x${hexWord(V1_ORDER_TYPEHASH)}${word(o.salt)}${word(o.maker)}${word(o.tokenId)}${word(o.makerAmount)}${word(o.takerAmount)}${word(o.side)}${word(o.feeRateBps)}`,
  );
}

export function hashV2Order(o: V2Order): Hex {
  return keccak256(
    `0x${hexWord(V2_ORDER_TYPEHASH)}${word(o.salt)}${word(o.maker)}${word(o.tokenId)}${word(o.makerAmount)}${word(o.takerAmount)}${word(o.side)}${hexWord(o.builder)}${hexWord(o.metadata)}`,
  );
}

function v1OrderWords(o: V1Order, out: string[]) {
  out.push(
    word(o.salt),
    word(o.maker),
    word(o.tokenId),
    word(o.makerAmount),
    word(o.takerAmount),
    word(o.side | (o.feeRateBps << 8)),
    word(o.fill),
    word(o.operatorFee),
  );
}

function v2OrderWords(o: V2Order, out: string[]) {
  out.push(
    word(o.salt),
    word(o.maker),
    word(o.tokenId),
    word(o.makerAmount),
    word(o.takerAmount),
    word(o.side),
    word(o.fill),
    word(o.fee),
    hexWord(o.builder),
    hexWord(o.metadata),
  );
}

/** Appends a V1 match's words (hex, 64 chars each) to `out`. */
export function pushV1Match(m: V1Match, out: string[]): void {
  out.push(word(m.makers.length));
  v1OrderWords(m.taker, out);
  for (const o of m.makers) v1OrderWords(o, out);
}

/** Appends a V2 match's words to `out`. */
export function pushV2Match(m: V2Match, out: string[]): void {
  out.push(word(m.makers.length), hexWord(m.conditionId));
  v2OrderWords(m.taker, out);
  for (const o of m.makers) v2OrderWords(o, out);
}

/** Calldata of matchBatch(uint256[]) over the given words. */
export function matchBatchCalldata(words: string[]): Hex {
  return `${MATCH_BATCH_SELECTOR}${word(32)}${word(words.length)}${words.join('')}` as Hex;
}
