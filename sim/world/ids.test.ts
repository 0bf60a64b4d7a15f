import { encodePacked, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  binaryPositionIds,
  collectionId,
  conditionId,
  NEG_RISK_COLLATERAL,
  NEG_RISK_ORACLE,
  negRiskMarketId,
  negRiskQuestionId,
  positionId,
  STANDARD_COLLATERAL,
  umaAncillaryData,
  umaQuestionId,
  ZERO_BYTES32,
} from './ids.ts';

describe('alpha id derivations', () => {
  it('conditionId matches a real neg-risk market (questionID 0x4714…600 → conditionId 0x61b6…4fcc)', () => {
    // Values from a live alpha market payload (reference/venues.md §2.1).
    expect(
      conditionId(NEG_RISK_ORACLE, '0x4714f4189125bba4cb9e6f9e8b5757ebd34a5be31379c33a665e4b0ca9738600', 2),
    ).toBe('0x61b66d02793b4a68ab0cc25be60d65f517fe18c7d654041281bb130341244fcc');
  });

  it('collectionId and positionId follow the simplified packed-hash rules', () => {
    const cond = conditionId(NEG_RISK_ORACLE, `0x${'11'.repeat(32)}`, 2);
    const coll = collectionId(cond, 2);
    expect(coll).toBe(keccak256(encodePacked(['bytes32', 'bytes32', 'uint256'], [ZERO_BYTES32, cond, 2n])));
    const pos = positionId(STANDARD_COLLATERAL, coll);
    expect(pos).toBe(
      BigInt(keccak256(encodePacked(['address', 'bytes32'], [STANDARD_COLLATERAL, coll]))).toString(10),
    );
    expect(pos).toMatch(/^[0-9]+$/);
  });

  it('yes and no token ids differ and depend on the collateral', () => {
    const q = `0x${'22'.repeat(32)}` as const;
    const usdc = binaryPositionIds(NEG_RISK_ORACLE, q, STANDARD_COLLATERAL);
    const wcol = binaryPositionIds(NEG_RISK_ORACLE, q, NEG_RISK_COLLATERAL);
    expect(usdc.conditionId).toBe(wcol.conditionId);
    expect(usdc.tokenIds[0]).not.toBe(usdc.tokenIds[1]);
    expect(usdc.tokenIds[0]).not.toBe(wcol.tokenIds[0]);
  });

  it('neg-risk market id has a zero last byte and question ids carry the index in it', () => {
    const m = negRiskMarketId('0x71523d0f655B41E805Cec45b17163f528B59B820', 0, '0x1234');
    expect(m).toMatch(/^0x[0-9a-f]{62}00$/);
    const q3 = negRiskQuestionId(m, 3);
    expect(q3.slice(0, 64)).toBe(m.slice(0, 64));
    expect(q3.slice(64)).toBe('03');
    expect(() => negRiskQuestionId(m, 256)).toThrow(RangeError);
  });

  it('accepts addresses in any case', () => {
    const q = `0x${'33'.repeat(32)}` as const;
    expect(conditionId(NEG_RISK_ORACLE.toLowerCase() as `0x${string}`, q, 2)).toBe(
      conditionId(NEG_RISK_ORACLE, q, 2),
    );
  });

  it('UMA question id hashes the data with the initializer appended', () => {
    const data = '0x713a' as const;
    const creator = '0x91430CaD2d3975766499717fA0D66A78D814E5c5';
    const stored = umaAncillaryData(data, creator);
    expect(Buffer.from(stored.slice(2), 'hex').toString()).toBe(
      'q:,initializer:91430cad2d3975766499717fa0d66a78d814e5c5',
    );
    expect(umaQuestionId(data, creator)).toBe(keccak256(stored));
  });
});
