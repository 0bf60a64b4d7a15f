/**
 * Test tool: a contract that emits arbitrary logs (any topics, any data) from whatever address its
 * code is placed at. Placed at one of alpha's addresses with `anvil_setCode`, it produces logs the
 * real contracts never would — malformed data, unknown topics — to prove the pipeline quarantines them
 * and goes on. Used by tests and benchmarks only.
 */
import { createRequire } from 'node:module';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract RawEmitter {
  function emitLogs(bytes32[][] calldata topics, bytes[] calldata datas) external {
    for (uint256 i = 0; i < topics.length; i++) {
      bytes32[] calldata t = topics[i];
      bytes memory d = datas[i];
      uint256 n = t.length;
      if (n == 0) { assembly { log0(add(d, 32), mload(d)) } }
      else if (n == 1) { bytes32 a = t[0]; assembly { log1(add(d, 32), mload(d), a) } }
      else if (n == 2) { bytes32 a = t[0]; bytes32 b = t[1]; assembly { log2(add(d, 32), mload(d), a, b) } }
      else if (n == 3) { bytes32 a = t[0]; bytes32 b = t[1]; bytes32 c = t[2]; assembly { log3(add(d, 32), mload(d), a, b, c) } }
      else { bytes32 a = t[0]; bytes32 b = t[1]; bytes32 c = t[2]; bytes32 e = t[3]; assembly { log4(add(d, 32), mload(d), a, b, c, e) } }
    }
  }
}`;

export const RAW_EMITTER_ABI = parseAbi(['function emitLogs(bytes32[][] topics, bytes[] datas)']);

let runtime: Hex | undefined;

/** Runtime bytecode of the emitter (compiled once per process with the npm solc compiler). */
export function rawEmitterRuntime(): Hex {
  if (runtime) return runtime;
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'RawEmitter.sol': { content: SOURCE } },
        settings: {
          evmVersion: 'paris',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } },
        },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  runtime = `0x${out.contracts['RawEmitter.sol']!.RawEmitter!.evm.deployedBytecode.object}` as Hex;
  return runtime;
}

export interface RawLogSpec {
  topics: Hex[];
  data: Hex;
}

/** Calldata emitting `logs` in order from the contract's address. */
export function emitLogsCalldata(logs: readonly RawLogSpec[]): Hex {
  return encodeFunctionData({
    abi: RAW_EMITTER_ABI,
    functionName: 'emitLogs',
    args: [logs.map((l) => l.topics), logs.map((l) => l.data)],
  });
}

/** Minimal JSON-RPC access the helpers need (anvil's `rpc` from sim/chain/anvil.ts fits). */
export type Rpc = <T = unknown>(method: string, params?: unknown[]) => Promise<T>;

/** Places the emitter's code at each address. */
export async function installRawEmitter(rpc: Rpc, addresses: readonly string[]): Promise<void> {
  const code = rawEmitterRuntime();
  for (const a of addresses) await rpc('anvil_setCode', [a, code]);
}

/**
 * Sends one transaction per group (each group's logs come from `address`, in order) and mines them
 * into one block. Returns the block number.
 */
export async function emitInBlock(
  rpc: Rpc,
  groups: readonly { address: string; logs: readonly RawLogSpec[]; from?: string }[],
): Promise<number> {
  await rpc('evm_setAutomine', [false]);
  const hashes: string[] = [];
  for (const g of groups) {
    hashes.push(
      await rpc<string>('eth_sendTransaction', [
        {
          from: g.from ?? '0x00000000000000000000000000000000000a11ce',
          to: g.address,
          data: emitLogsCalldata(g.logs),
          gas: '0x1c9c380',
          gasPrice: '0x0',
        },
      ]),
    );
  }
  await rpc('evm_mine', []);
  const receipt = await rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [
    hashes[0],
  ]);
  if (!receipt) throw new Error('emitInBlock: transaction was not mined');
  return Number.parseInt(receipt.blockNumber, 16);
}
