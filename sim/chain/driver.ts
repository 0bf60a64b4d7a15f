/**
 * Transaction layer of the sim: transactions are sent (impersonated, gas price 0, explicit gas so anvil
 * never estimates) into the pool in order, then mined together into one block at a chosen timestamp.
 * Every receipt of the sim's own transactions is checked: a reverted one stops the world (its ledger
 * would no longer match the chain), with the revert reason when anvil can tell it. Transactions anyone
 * else sent to the node's RPC URL wait in the same pool and are mined into the next block with the
 * sim's: they are counted (`foreignTxCount`), never checked, and never stop the world.
 */
import {
  type Abi,
  type Address,
  decodeErrorResult,
  type EncodeFunctionDataParameters,
  encodeFunctionData,
  type Hex,
} from 'viem';
import { PermanentError } from '../../core/errors.ts';
import type { Anvil } from './anvil.ts';

export interface MinedBlock {
  number: number;
  hash: Hex;
  timestamp: number;
  /** The sim's transactions in the block. */
  txCount: number;
  /** Transactions in the block the sim did not send (sent by others to the node's RPC URL). */
  foreignTxCount: number;
  /** Logs of the sim's transactions in the block (0 when the driver verifies 'light'). */
  logCount: number;
  gasUsed: bigint;
}

interface Receipt {
  status: Hex;
  transactionHash: Hex;
  gasUsed: Hex;
  logs: unknown[];
}

export class SimTxError extends PermanentError {
  override readonly name = 'SimTxError';
}

export interface ChainDriver {
  readonly anvil: Anvil;
  /** Number of the last mined block. */
  head(): number;
  /** Timestamp (s) of the last mined block. */
  headTime(): number;
  /** Queues a transaction for the next block; returns its hash. */
  send(from: Address, to: Address, data: Hex, gas?: bigint): Promise<Hex>;
  /** Encodes and queues a contract call. */
  call<const A extends Abi>(
    from: Address,
    to: Address,
    params: EncodeFunctionDataParameters<A>,
    gas?: bigint,
  ): Promise<Hex>;
  /** Transactions queued since the last block. */
  pending(): number;
  /** Mines the queued transactions into one block at `timestamp` (s; strictly after the head's). */
  mine(timestamp: number): Promise<MinedBlock>;
  /** Forgets the last `depth` blocks (anvil_rollback); the head moves back. */
  rollback(depth: number): Promise<void>;
  /** Re-reads the head from the node (after a rollback or an external change). */
  sync(): Promise<void>;
  /** Wall-clock milliseconds spent waiting on the node: sending transactions, and mining blocks. */
  readonly timings: { sendMs: number; mineMs: number; sends: number };
}

const DEFAULT_GAS = 30_000_000n;

export interface ChainDriverOptions {
  /**
   * 'full' (default) reads every receipt of every block and stops at the first revert; 'light' only checks
   * the block holds every transaction sent (for benchmark-size worlds, whose receipts are tens of MB per
   * block): a revert then shows as a ledger/chain difference, which the benchmark checks at the end.
   */
  verify?: 'full' | 'light';
}

export async function createChainDriver(
  anvil: Anvil,
  options: ChainDriverOptions = {},
): Promise<ChainDriver> {
  const verify = options.verify ?? 'full';
  const { rpc } = anvil;
  let headNumber = 0;
  let headTimestamp = 0;
  const queued: { hash: Hex; from: Address; to: Address; data: Hex }[] = [];

  async function sync() {
    const b = await rpc<{ number: Hex; timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
    headNumber = Number(b.number);
    headTimestamp = Number(b.timestamp);
  }
  await sync();
  // Blocks are mined only on request from here on.
  await rpc('evm_setAutomine', [false]);

  const timings = { sendMs: 0, mineMs: 0, sends: 0 };

  async function send(from: Address, to: Address, data: Hex, gas: bigint = DEFAULT_GAS): Promise<Hex> {
    const t0 = performance.now();
    const hash = await rpc<Hex>('eth_sendTransaction', [
      { from, to, data, gas: `0x${gas.toString(16)}`, gasPrice: '0x0', value: '0x0' },
    ]);
    queued.push({ hash, from, to, data });
    timings.sendMs += performance.now() - t0;
    timings.sends++;
    return hash;
  }

  async function revertReason(hash: Hex): Promise<string> {
    try {
      const trace = await rpc<{ error?: string; revertReason?: string; output?: Hex }>(
        'debug_traceTransaction',
        [hash, { tracer: 'callTracer' }],
      );
      if (trace.revertReason) return trace.revertReason;
      if (trace.output && trace.output.length > 10) {
        try {
          const decoded = decodeErrorResult({ data: trace.output, abi: [] });
          return `${decoded.errorName}(${decoded.args?.join(', ') ?? ''})`;
        } catch {
          return trace.error ?? trace.output;
        }
      }
      return trace.error ?? 'unknown';
    } catch (err) {
      return `unknown (${(err as Error).message})`;
    }
  }

  async function mine(timestamp: number): Promise<MinedBlock> {
    if (timestamp <= headTimestamp) {
      throw new SimTxError(`block timestamp ${timestamp} is not after the head's ${headTimestamp}`);
    }
    const expected = queued.splice(0, queued.length);
    const t0 = performance.now();
    await rpc('evm_setNextBlockTimestamp', [timestamp]);
    await rpc('evm_mine', []);
    const block = await rpc<{ number: Hex; hash: Hex; timestamp: Hex; gasUsed: Hex; transactions: Hex[] }>(
      'eth_getBlockByNumber',
      ['latest', false],
    );
    // The block holds the sim's transactions in the order sent (`--order fifo`), and maybe others'.
    const sent = new Set(expected.map((t) => t.hash));
    const foreignTxCount = block.transactions.filter((h) => !sent.has(h)).length;
    const ours = block.transactions.filter((h) => sent.has(h));
    if (ours.length !== expected.length) {
      throw new SimTxError(
        `block ${Number(block.number)} holds ${ours.length} of the ${expected.length} transactions sent`,
      );
    }
    if (ours.some((h, i) => h !== expected[i]!.hash)) {
      throw new SimTxError(`transaction order changed in block ${Number(block.number)}`);
    }
    let logCount = 0;
    if (verify === 'full' && expected.length > 0) {
      const receipts = (await rpc<Receipt[]>('eth_getBlockReceipts', [block.number])).filter((r) =>
        sent.has(r.transactionHash),
      );
      for (let i = 0; i < receipts.length; i++) {
        const r = receipts[i] as Receipt;
        const tx = expected[i] as (typeof expected)[number];
        if (r.status !== '0x1') {
          const reason = await revertReason(r.transactionHash);
          throw new SimTxError(
            `transaction ${r.transactionHash} from ${tx.from} to ${tx.to} (selector ${tx.data.slice(0, 10)}) ` +
              `reverted in block ${Number(block.number)}: ${reason}`,
          );
        }
        logCount += r.logs.length;
      }
    }
    headNumber = Number(block.number);
    headTimestamp = Number(block.timestamp);
    timings.mineMs += performance.now() - t0;
    return {
      number: headNumber,
      hash: block.hash,
      timestamp: headTimestamp,
      txCount: expected.length,
      foreignTxCount,
      logCount,
      gasUsed: BigInt(block.gasUsed),
    };
  }

  return {
    anvil,
    head: () => headNumber,
    headTime: () => headTimestamp,
    send,
    call(from, to, params, gas) {
      return send(from, to, encodeFunctionData(params as EncodeFunctionDataParameters), gas);
    },
    pending: () => queued.length,
    mine,
    async rollback(depth) {
      if (queued.length > 0) throw new SimTxError('cannot roll back with transactions queued');
      await rpc('anvil_rollback', [depth]);
      await sync();
    },
    sync,
    timings,
  };
}
