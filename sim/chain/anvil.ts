/**
 * Local EVM chain for the simulated world: spawns the anvil binary shipped by the npm package
 * `@foundry-rs/anvil-linux-amd64` on a free port with chain id 137, waits until it answers
 * `eth_chainId`, and hands back viem clients plus a raw JSON-RPC helper for anvil-only methods.
 *
 * Defaults are chosen for a deterministic, fast simulation:
 * - `--hardfork prague` (the latest hardfork caps a transaction's gas, which batch drivers exceed);
 * - `--base-fee 0` and gas price 0, so simulated wallets never need native balance;
 * - `--auto-impersonate`, so any address can send transactions without a key;
 * - `--order fifo`, so transactions mined together keep the order they were sent in;
 * - a huge block gas limit and no code-size limit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import nodeHttp from 'node:http';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { DependencyError, RetryableError } from '../../core/errors.ts';
import { freePort } from '../../core/net.ts';

export const ANVIL_BIN = fileURLToPath(new URL('../../node_modules/.bin/anvil', import.meta.url));

/** Block gas limit of the sim chain: large enough for batch drivers putting thousands of matches in a tx. */
export const SIM_BLOCK_GAS_LIMIT = 1_000_000_000_000n;

export interface StartAnvilOptions {
  /** Port to listen on; a free one when omitted. */
  port?: number;
  /** Interval mining in seconds; omitted = automine (a block per transaction) until mining is switched. */
  blockTime?: number;
  chainId?: number;
  /** Genesis block timestamp (Unix seconds). */
  genesisTimestamp?: number;
  /** Start with no automine: blocks are mined only on `evm_mine`/`anvil_mine`. */
  noMining?: boolean;
  /** A state file written by `dumpState` (or anvil `--dump-state`) to start from. */
  loadState?: string;
  /** anvil writes its full state (blocks, receipts, accounts) to this file when stopped (`--dump-state`). */
  dumpStateOnExit?: string;
  /** Keep at most this many historical states in memory (`--prune-history N`): for big chains. */
  pruneHistory?: number;
  /** Default viem HTTP response cap is 10 MiB; raised here because log pages get large. */
  maxResponseBodySize?: number;
  /** Milliseconds to wait for the node to answer. */
  startTimeoutMs?: number;
}

export interface Anvil {
  url: string;
  port: number;
  chainId: number;
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  testClient: TestClient<'anvil', Transport, Chain>;
  walletClient: WalletClient<Transport, Chain>;
  /** Raw JSON-RPC call (for anvil-only methods and speed); throws on a JSON-RPC error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Writes the chain's full state (blocks, transactions, logs, accounts) to a file. */
  dumpState(file: string): Promise<void>;
  stop(): Promise<void>;
}

export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed (${code}): ${message}`);
  }
}

export function simChain(chainId: number, url: string): Chain {
  return defineChain({
    id: chainId,
    name: 'alpha-sim',
    nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

let rpcId = 0;

/**
 * Minimal JSON-RPC client over node:http with a keep-alive socket and no Nagle delay: used where viem has
 * no action and where per-call overhead matters (≈0.45 ms per call on localhost, against 1.5–4 ms with
 * fetch), since the sim sends every transaction one by one to keep their order.
 */
export function createRpc(url: string) {
  const u = new URL(url);
  const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 4 });
  function post(body: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = nodeHttp.request(
        {
          host: u.hostname,
          port: u.port,
          method: 'POST',
          path: u.pathname,
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.setNoDelay(true);
      req.end(body);
    });
  }
  const rpc = async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const text = await post(JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }));
    const body = JSON.parse(text) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error) throw new JsonRpcError(method, body.error.code, body.error.message, body.error.data);
    return body.result as T;
  };
  return Object.assign(rpc, { close: () => agent.destroy() });
}

async function waitForChainId(url: string, timeoutMs: number, child: ChildProcess): Promise<number> {
  const rpc = createRpc(url);
  try {
    return await poll();
  } finally {
    rpc.close();
  }
  async function poll(): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null)
        throw new DependencyError(`anvil exited early with code ${child.exitCode}`);
      try {
        return Number(await rpc<string>('eth_chainId'));
      } catch (err) {
        if (Date.now() > deadline) {
          throw new RetryableError(`anvil did not answer eth_chainId at ${url} within ${timeoutMs} ms`, {
            cause: err,
          });
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<Anvil> {
  if (!fs.existsSync(ANVIL_BIN)) {
    throw new DependencyError(
      `anvil binary not found at ${ANVIL_BIN}: install the npm package @foundry-rs/anvil-linux-amd64`,
    );
  }
  const chainId = options.chainId ?? 137;
  const port = options.port ?? (await freePort());
  const args = [
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--chain-id',
    String(chainId),
    '--silent',
    '--hardfork',
    'prague',
    '--base-fee',
    '0',
    '--gas-price',
    '0',
    '--auto-impersonate',
    '--order',
    'fifo',
    '--gas-limit',
    SIM_BLOCK_GAS_LIMIT.toString(),
    '--disable-code-size-limit',
    '--accounts',
    '1',
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  else if (options.noMining) args.push('--no-mining');
  if (options.genesisTimestamp !== undefined) args.push('--timestamp', String(options.genesisTimestamp));
  if (options.loadState) args.push('--load-state', options.loadState);
  if (options.dumpStateOnExit) args.push('--dump-state', options.dumpStateOnExit);
  if (options.pruneHistory !== undefined) args.push('--prune-history', String(options.pruneHistory));

  // Its own process group, so a terminal's Ctrl+C reaches the owner, which stops anvil after what uses
  // it; the exit hook below still takes it down with the owner.
  const child = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForChainId(url, options.startTimeoutMs ?? 30_000, child);
  } catch (err) {
    child.kill('SIGKILL');
    if (stderr) (err as Error).message += `\nanvil stderr: ${stderr.trim()}`;
    throw err;
  }

  const chain = simChain(chainId, url);
  const transport = http(url, {
    maxResponseBodySize: options.maxResponseBodySize ?? 256 * 1024 * 1024,
    timeout: 120_000,
    retryCount: 0,
  });
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0 });
  const testClient = createTestClient({ mode: 'anvil', chain, transport, cacheTime: 0 });
  const walletClient = createWalletClient({ chain, transport, cacheTime: 0 });
  const rpc = createRpc(url);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      // Dumping a big chain's state on exit takes a while.
      const killer = setTimeout(() => child.kill('SIGKILL'), options.dumpStateOnExit ? 900_000 : 3000);
      child.once('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      child.kill('SIGTERM');
    });
    rpc.close();
    return stopped;
  };

  return {
    url,
    port,
    chainId,
    chain,
    publicClient,
    testClient,
    walletClient,
    rpc,
    async dumpState(file) {
      // anvil_dumpState answers gzip-compressed JSON; --load-state reads plain JSON.
      const hex = await rpc<string>('anvil_dumpState');
      await fs.promises.writeFile(file, gunzipSync(Buffer.from(hex.slice(2), 'hex')));
    },
    stop,
  };
}
