/**
 * Places the sim's contracts at alpha's Polygon addresses (anvil_setCode with the runtime bytecode) and
 * initializes their storage with one-shot init calls from the admin, all in one block. Wiring:
 * - ERC-20 trusted spenders and CTF trusted operators stand for the approvals real users give once;
 * - V1 exchanges: collateral USDC.e; ctf = CTF (standard) or the NegRiskAdapter (neg-risk); operators are
 *   the sim operator and the fee module of each;
 * - V2 exchanges: collateral pUSD; outcome token factory = the (neg-risk) collateral adapter;
 * - UMA adapters: standard one reports to the CTF, the neg-risk one to the NegRiskOperator.
 */
import type { Abi, Address, Hex } from 'viem';
import { ACTORS, ADDR, CONTRACTS, type ContractKey, VAULTS } from './addresses.ts';
import type { Anvil } from './anvil.ts';
import { type CompiledContracts, compileContracts } from './compile.ts';
import type { ChainDriver } from './driver.ts';

export interface Deployment {
  compiled: CompiledContracts;
  abi(key: ContractKey): Abi;
}

export async function placeCode(anvil: Anvil, compiled: CompiledContracts): Promise<void> {
  for (const spec of Object.values(CONTRACTS)) {
    const c = compiled[spec.name];
    if (!c) throw new Error(`contract ${spec.name} is missing from the compiled output`);
    await anvil.rpc('anvil_setCode', [spec.address, c.deployedBytecode]);
  }
}

export function deploymentOf(compiled: CompiledContracts): Deployment {
  return {
    compiled,
    abi(key) {
      return (compiled[CONTRACTS[key].name] as { abi: Abi }).abi;
    },
  };
}

/** Places and initializes every contract; mines one block at `timestamp` (s). */
export async function deployContracts(driver: ChainDriver, timestamp: number): Promise<Deployment> {
  const compiled = compileContracts();
  await placeCode(driver.anvil, compiled);
  const d = deploymentOf(compiled);
  const admin = ACTORS.admin;
  const call = (key: ContractKey, functionName: string, args: readonly unknown[]) =>
    driver.call(admin, ADDR[key], { abi: d.abi(key), functionName, args } as never);

  // Collateral
  await call('usdcE', 'initToken', ['USD Coin (PoS)', 'USDC']);
  await call('usdcE', 'setMinter', [ACTORS.bridge, true]);
  const usdcSpenders: ContractKey[] = [
    'conditionalTokens',
    'ctfExchangeV1',
    'negRiskCtfExchangeV1',
    'negRiskAdapter',
    'wcol',
    'pUsd',
    'onramp',
    'optimisticOracleV2',
    'umaCtfAdapter',
    'negRiskUmaCtfAdapter',
  ];
  for (const k of usdcSpenders) await call('usdcE', 'setTrusted', [ADDR[k], true]);

  await call('wcol', 'initToken', ['Wrapped Collateral', 'WCOL']);
  await call('wcol', 'initWrapped', [ADDR.negRiskAdapter, ADDR.usdcE]);
  await call('wcol', 'setTrusted', [ADDR.conditionalTokens, true]);

  await call('pUsd', 'initToken', ['Polymarket USD', 'pUSD']);
  await call('pUsd', 'initCollateral', [ADDR.usdcE, VAULTS.pUsdVault]);
  for (const k of ['onramp', 'offramp', 'ctfCollateralAdapter', 'negRiskCtfCollateralAdapter'] as const) {
    await call('pUsd', 'addWrapper', [ADDR[k]]);
  }
  for (const k of [
    'ctfExchangeV2',
    'negRiskCtfExchangeV2',
    'ctfCollateralAdapter',
    'negRiskCtfCollateralAdapter',
    'offramp',
  ] as const) {
    await call('pUsd', 'setTrusted', [ADDR[k], true]);
  }
  await call('onramp', 'initRamp', [ADDR.pUsd]);
  await call('offramp', 'initRamp', [ADDR.pUsd]);

  // Conditional tokens and neg-risk
  await call('conditionalTokens', 'initCtf', []);
  for (const k of [
    'ctfExchangeV1',
    'negRiskAdapter',
    'ctfExchangeV2',
    'negRiskCtfExchangeV2',
    'ctfCollateralAdapter',
    'negRiskCtfCollateralAdapter',
  ] as const) {
    await call('conditionalTokens', 'setTrusted', [ADDR[k], true]);
  }
  await call('negRiskAdapter', 'initAdapter', [
    ADDR.conditionalTokens,
    ADDR.usdcE,
    ADDR.wcol,
    VAULTS.negRiskVault,
  ]);
  await call('negRiskAdapter', 'addAdmin', [ADDR.negRiskCtfExchangeV1]);
  await call('negRiskOperator', 'initOperator', [ADDR.negRiskAdapter]);
  await call('negRiskOperator', 'setOracle', [ADDR.negRiskUmaCtfAdapter]);

  // Exchanges V1 and fee modules
  const v1: [ContractKey, Address, ContractKey][] = [
    ['ctfExchangeV1', ADDR.conditionalTokens, 'feeModule'],
    ['negRiskCtfExchangeV1', ADDR.negRiskAdapter, 'negRiskFeeModule'],
  ];
  for (const [ex, ctf, fm] of v1) {
    await call(ex, 'initExchange', [ADDR.usdcE, ctf]);
    await call(ex, 'addOperator', [ACTORS.operator]);
    await call(ex, 'addOperator', [ADDR[fm]]);
    await call(fm, 'initFeeModule', [ADDR[ex], ADDR.usdcE, ADDR.conditionalTokens]);
    await call(fm, 'addAdmin', [ACTORS.operator]);
  }

  // Exchanges V2 and collateral adapters
  await call('ctfCollateralAdapter', 'initCollateralAdapter', [
    ADDR.conditionalTokens,
    ADDR.pUsd,
    ADDR.usdcE,
  ]);
  await call('negRiskCtfCollateralAdapter', 'initCollateralAdapter', [
    ADDR.conditionalTokens,
    ADDR.pUsd,
    ADDR.usdcE,
  ]);
  await call('negRiskCtfCollateralAdapter', 'initNegRiskCollateralAdapter', [ADDR.negRiskAdapter, ADDR.wcol]);
  const v2: [ContractKey, ContractKey][] = [
    ['ctfExchangeV2', 'ctfCollateralAdapter'],
    ['negRiskCtfExchangeV2', 'negRiskCtfCollateralAdapter'],
  ];
  for (const [ex, factory] of v2) {
    await call(ex, 'initExchange', [ADDR.pUsd, ADDR.conditionalTokens, ADDR[factory], ACTORS.feeReceiver]);
    await call(ex, 'addOperator', [ACTORS.operator]);
  }

  // UMA
  await call('optimisticOracleV2', 'initOracle', []);
  await call('umaCtfAdapter', 'initUmaAdapter', [ADDR.conditionalTokens, ADDR.optimisticOracleV2]);
  await call('negRiskUmaCtfAdapter', 'initUmaAdapter', [ADDR.negRiskOperator, ADDR.optimisticOracleV2]);

  await driver.mine(timestamp);
  return d;
}

export type { Hex };
