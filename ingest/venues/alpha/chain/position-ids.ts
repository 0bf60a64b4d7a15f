/**
 * Outcome token (CTF position) ids derived from a condition, so a binary condition's tokens are known
 * at ConditionPreparation, before any trade.
 *
 * - `ctf`: the ConditionalTokens derivation (CTHelpers.getCollectionId): the hash of (conditionId,
 *   indexSet) is mapped onto the alt_bn128 curve (x + 1 until x³ + 3 is a square, y's parity from the
 *   hash's top bit, the top bit folded into bit 254). Polygon uses this one.
 * - `simplified`: keccak256(parentCollectionId ‖ conditionId ‖ indexSet) — the simulated world's
 *   contracts use it (sim/world/ids.ts).
 * positionId = uint256(keccak256(collateral ‖ collectionId)) in both.
 */
import { encodePacked, type Hex, keccak256 } from 'viem';

export type PositionIdScheme = 'ctf' | 'simplified';

const P = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
const SQRT_EXP = (P + 1n) / 4n;
const ZERO_BYTES32: Hex = `0x${'0'.repeat(64)}`;

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}

/** CTHelpers.getCollectionId with parentCollectionId = 0. */
export function ctfCollectionId(conditionId: Hex, indexSet: bigint): Hex {
  let x1 = BigInt(keccak256(encodePacked(['bytes32', 'uint256'], [conditionId, indexSet])));
  const odd = x1 >> 255n !== 0n;
  let y1: bigint;
  let yy: bigint;
  do {
    x1 = (x1 + 1n) % P;
    yy = (((x1 * x1) % P) * x1 + 3n) % P;
    y1 = modPow(yy, SQRT_EXP, P);
  } while ((y1 * y1) % P !== yy);
  if ((odd && y1 % 2n === 0n) || (!odd && y1 % 2n === 1n)) y1 = P - y1;
  if (odd) x1 ^= 1n << 254n;
  return `0x${x1.toString(16).padStart(64, '0')}` as Hex;
}

export function simplifiedCollectionId(conditionId: Hex, indexSet: bigint): Hex {
  return keccak256(encodePacked(['bytes32', 'bytes32', 'uint256'], [ZERO_BYTES32, conditionId, indexSet]));
}

/** Decimal position id of `indexSet` of `conditionId` with `collateral`. */
export function positionIdOf(
  scheme: PositionIdScheme,
  collateral: Hex,
  conditionId: Hex,
  indexSet: bigint,
): string {
  const collection =
    scheme === 'ctf' ? ctfCollectionId(conditionId, indexSet) : simplifiedCollectionId(conditionId, indexSet);
  return BigInt(keccak256(encodePacked(['address', 'bytes32'], [collateral, collection]))).toString(10);
}
