/**
 * Where the sim places each contract (alpha's real Polygon addresses) and the sim's
 * own actor accounts (admin, exchange operator, fee receiver, ...), which are fixed made-up addresses
 * derived from labels. Every transaction is sent with anvil's auto-impersonation, so no keys exist.
 */
import { type Address, getAddress, keccak256, toHex } from 'viem';
import { ALPHA_ADDRESSES } from '../world/ids.ts';

/** Contract name (as compiled from sim/contracts) and the address it is placed at. */
export const CONTRACTS = {
  conditionalTokens: { name: 'ConditionalTokens', address: ALPHA_ADDRESSES.conditionalTokens },
  usdcE: { name: 'SimERC20', address: ALPHA_ADDRESSES.usdcE },
  wcol: { name: 'WrappedCollateral', address: ALPHA_ADDRESSES.wcol },
  pUsd: { name: 'CollateralToken', address: ALPHA_ADDRESSES.pUsd },
  onramp: { name: 'CollateralOnramp', address: '0x93070a847efEf7F70739046A929D47a521F5B8ee' },
  offramp: { name: 'CollateralOfframp', address: '0x2957922Eb93258b93368531d39fAcCA3B4dC5854' },
  negRiskAdapter: { name: 'NegRiskAdapter', address: ALPHA_ADDRESSES.negRiskAdapter },
  negRiskOperator: { name: 'NegRiskOperator', address: ALPHA_ADDRESSES.negRiskOperator },
  ctfExchangeV1: { name: 'CTFExchange', address: ALPHA_ADDRESSES.ctfExchangeV1 },
  negRiskCtfExchangeV1: { name: 'CTFExchange', address: ALPHA_ADDRESSES.negRiskCtfExchangeV1 },
  feeModule: { name: 'FeeModule', address: '0xE3f18aCc55091e2c48d883fc8C8413319d4Ab7b0' },
  negRiskFeeModule: { name: 'FeeModule', address: '0xB768891e3130F6dF18214Ac804d4DB76c2C37730' },
  ctfExchangeV2: { name: 'CTFExchangeV2', address: ALPHA_ADDRESSES.ctfExchangeV2 },
  negRiskCtfExchangeV2: { name: 'CTFExchangeV2', address: ALPHA_ADDRESSES.negRiskCtfExchangeV2 },
  ctfCollateralAdapter: {
    name: 'CtfCollateralAdapter',
    address: '0xAdA100Db00Ca00073811820692005400218FcE1f',
  },
  negRiskCtfCollateralAdapter: {
    name: 'NegRiskCtfCollateralAdapter',
    address: '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
  },
  optimisticOracleV2: { name: 'OptimisticOracleV2', address: ALPHA_ADDRESSES.optimisticOracleV2 },
  umaCtfAdapter: { name: 'UmaCtfAdapter', address: ALPHA_ADDRESSES.umaCtfAdapterV3 },
  negRiskUmaCtfAdapter: { name: 'UmaCtfAdapter', address: ALPHA_ADDRESSES.negRiskUmaCtfAdapter },
} as const satisfies Record<string, { name: string; address: Address }>;

export type ContractKey = keyof typeof CONTRACTS;

/** Address of each placed contract, checksummed. */
export const ADDR = Object.fromEntries(
  Object.entries(CONTRACTS).map(([k, v]) => [k, getAddress(v.address)]),
) as Record<ContractKey, Address>;

/** Accounts without code that hold funds. */
export const VAULTS = {
  /** NegRisk Vault: receives conversion fees. */
  negRiskVault: getAddress('0x7f67327E88c258932D7d8f72950bE0d46975E11D'),
  /** pUSD backing vault: holds the USDC.e behind pUSD. */
  pUsdVault: getAddress('0xC417fD8E9661c0d2120B64a04Bb3278C17E99DB1'),
  /** address(bytes20(keccak256("NO_TOKEN_BURN_ADDRESS"))): NO positions given up in conversions. */
  noTokenBurn: getAddress(`0x${keccak256(toHex('NO_TOKEN_BURN_ADDRESS')).slice(2, 42)}`),
} as const;

/** A fixed made-up address for a sim role or wallet label. */
export function labelAddress(label: string): Address {
  return getAddress(`0x${keccak256(toHex(`pmdata-sim:${label}`)).slice(-40)}`);
}

/** The sim's own accounts. */
export const ACTORS = {
  /** Deploys and administers every contract. */
  admin: labelAddress('admin'),
  /** The CLOB operator: sends matchOrders (directly, or through the V1 fee modules). */
  operator: labelAddress('operator'),
  /** V2 exchanges' fee receiver. */
  feeReceiver: labelAddress('fee-receiver'),
  /** Mints USDC.e (stands for the PoS bridge's deposits). */
  bridge: labelAddress('bridge'),
  /** UMA proposers and disputers. */
  proposer: labelAddress('uma-proposer'),
  disputer: labelAddress('uma-disputer'),
} as const;
