/**
 * Venue alpha's contract addresses on Polygon (chain id 137), as sets per generation
 * (docs/chain-ingestion.md, "The chain"). Each entry names the contract kind whose event set it emits
 * (schemas/abi/alpha-events.ts). Several generations keep more than one address (the collateral
 * adapters and the neg-risk V2 exchange were redeployed): every address of a set is indexed.
 *
 * The simulated chain places its contracts at these same addresses.
 */
import type { Address } from 'viem';
import type { ContractKind } from './alpha-events.ts';

export interface AlphaContract {
  address: Address;
  kind: ContractKind;
  /** Short stable name, used in rows (`contract` columns are addresses; this is for logs and docs). */
  label: string;
  /** Exchange/protocol generation the contract belongs to: 1 (CLOB v1 era) or 2 (CLOB v2, pUSD). */
  version: 1 | 2;
  /** True for the neg-risk side (NegRiskCtfExchange, NegRiskAdapter, ...). */
  negRisk: boolean;
}

export type AddressSets = Record<string, readonly AlphaContract[]>;

const c = (
  address: Address,
  kind: ContractKind,
  label: string,
  version: 1 | 2,
  negRisk = false,
): AlphaContract => ({ address, kind, label, version, negRisk });

/** Default Polygon mainnet address sets, one per generation / role. */
export const ALPHA_ADDRESS_SETS = {
  ctf: [c('0x4D97DCd97eC945f40cF65F87097ACe5EA0476045', 'conditionalTokens', 'ConditionalTokens', 1)],
  v1: [
    c('0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E', 'exchangeV1', 'CTFExchange', 1),
    c('0xC5d563A36AE78145C45a50134d48A1215220f80a', 'exchangeV1', 'NegRiskCtfExchange', 1, true),
  ],
  v2: [
    c('0xE111180000d2663C0091e4f400237545B87B996B', 'exchangeV2', 'CTFExchangeV2', 2),
    c('0xe2222d279d744050d28e00520010520000310F59', 'exchangeV2', 'NegRiskCtfExchangeV2', 2, true),
    // The address replaced on 2026-04-03: indexed too, for its short history.
    c('0xe2222d002000Ba0053CEF3375333610F64600036', 'exchangeV2', 'NegRiskCtfExchangeV2 (first)', 2, true),
  ],
  negRisk: [
    c('0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296', 'negRiskAdapter', 'NegRiskAdapter', 1, true),
    c('0x71523d0f655B41E805Cec45b17163f528B59B820', 'negRiskOperator', 'NegRiskOperator', 1, true),
    c('0x661992aebf6BecF7BA5abB66f6b0Bf62Aa7a2E93', 'negRiskOperator', 'NegRiskOperator (v4)', 1, true),
  ],
  feeModules: [
    c('0xE3f18aCc55091e2c48d883fc8C8413319d4Ab7b0', 'feeModule', 'FeeModule', 1),
    c('0xB768891e3130F6dF18214Ac804d4DB76c2C37730', 'feeModule', 'NegRiskFeeModule', 1, true),
    c('0x78769D50Be1763ed1CA0D5E878D93f05aabff29e', 'feeModule', 'NegRiskFeeModule (2023)', 1, true),
  ],
  adapters: [
    // Both deployments of each collateral adapter (README of Apr 2026, and the current docs/SDK).
    c('0xADa100874d00e3331D00F2007a9c336a65009718', 'collateralAdapter', 'CtfCollateralAdapter (2026-04)', 2),
    c('0xAdA100Db00Ca00073811820692005400218FcE1f', 'collateralAdapter', 'CtfCollateralAdapter', 2),
    c(
      '0xAdA200001000ef00D07553cEE7006808F895c6F1',
      'collateralAdapter',
      'NegRiskCtfCollateralAdapter (2026-04)',
      2,
      true,
    ),
    c(
      '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
      'collateralAdapter',
      'NegRiskCtfCollateralAdapter',
      2,
      true,
    ),
    c('0x93070a847efEf7F70739046A929D47a521F5B8ee', 'collateralRamp', 'CollateralOnramp', 2),
    c('0x2957922Eb93258b93368531d39fAcCA3B4dC5854', 'collateralRamp', 'CollateralOfframp', 2),
    c('0xebC2459Ec962869ca4c0bd1E06368272732BCb08', 'collateralRamp', 'PermissionedRamp', 2),
  ],
  uma: [
    c('0xCB1822859cEF82Cd2Eb4E6276C7916e692995130', 'umaCtfAdapterV1', 'UmaCtfAdapter v1.0', 1),
    c('0x6A9D222616C90FcA5754cd1333cFD9b7fb6a4F74', 'umaCtfAdapter', 'UmaCtfAdapter v2.0', 1),
    c('0x157Ce2d672854c848c9b79C49a8Cc6cc89176a49', 'umaCtfAdapter', 'UmaCtfAdapter v3', 1),
    c('0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7', 'umaCtfAdapter', 'UmaCtfAdapter v4', 1),
    c('0x2F5e3684cb1F318ec51b00Edba38d79Ac2c0aA9d', 'umaCtfAdapter', 'NegRisk UmaCtfAdapter', 1, true),
    c('0x69c47De9D4D3Dad79590d61b9e05918E03775f24', 'umaCtfAdapter', 'NegRisk UmaCtfAdapter v4', 1, true),
  ],
  oracle: [
    c('0xeE3Afe347D5C74317041E2618C49534dAf887c24', 'optimisticOracleV2', 'OptimisticOracleV2', 1),
    c('0x2C0367a9DB231dDeBd88a94b4f6461a6e47C58B1', 'optimisticOracleV2', 'ManagedOptimisticOracleV2', 1),
  ],
  collateral: [
    c('0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', 'erc20Collateral', 'USDC.e', 1),
    c('0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB', 'collateralToken', 'pUSD', 2),
  ],
} as const satisfies AddressSets;

/** Addresses the pipeline needs by role, besides the per-kind decoding. */
export const ALPHA_ROLES = {
  conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  usdcE: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
  pUsd: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  /** NegRisk WrappedCollateral: the CTF collateral of neg-risk positions (not indexed itself). */
  wcol: '0x3A3BD7bb9528E159577F7C2e685CC81A765002E2',
} as const satisfies Record<string, Address>;

/**
 * Accounts without code of their own that hold outcome tokens for the protocol, never positions
 * (docs/positions.md "Accounts"): the NegRisk vault (conversion fees), the pUSD backing vault, the NO-token
 * burn address of conversions (address(bytes20(keccak256("NO_TOKEN_BURN_ADDRESS")))) and the zero address.
 */
export const PROTOCOL_HOLDERS = [
  '0x7f67327E88c258932D7d8f72950bE0d46975E11D',
  '0xC417fD8E9661c0d2120B64a04Bb3278C17E99DB1',
  '0xa5ef39c3d3e10d0b270233af41cac69796b12966',
  '0x0000000000000000000000000000000000000000',
] as const satisfies readonly Address[];

/** Every contract of the given sets, flattened. */
export function allContracts(sets: AddressSets = ALPHA_ADDRESS_SETS): AlphaContract[] {
  return Object.values(sets).flat();
}
