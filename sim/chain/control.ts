/**
 * Control of the running sim chain, for tests and the live demo:
 * - live mode: a block every `blockTime` seconds (wall clock) with about `ratePerSecond × blockTime`
 *   matches, block timestamps advancing by `blockTime` from the end of the history;
 * - reorg injection: the last `depth` blocks are dropped (anvil_rollback), the ledger and the world runner
 *   are rolled back to the same point, and `depth` new blocks are mined at the same heights and timestamps
 *   with fresh random activity, so the chain's content (block hashes, transactions, logs) differs;
 * - empty blocks, e.g. to push rows past a finality depth.
 * Every chain mutation goes through one lock, so a reorg requested during live trading waits for the
 * block being built.
 */
import type { Hex } from 'viem';
import type { WorldRunner } from '../world/activity.ts';
import type { Ledger } from '../world/ledger.ts';
import type { ChainDriver } from './driver.ts';

export interface ReorgResult {
  depth: number;
  /** Hashes of the replaced blocks, oldest first, and of the blocks now at those heights. */
  orphaned: Hex[];
  replacement: Hex[];
}

export interface ChainControl {
  head(): number;
  /** Starts live trading (no-op when running); `ratePerSecond` matches per wall-clock second. */
  startLive(options?: { ratePerSecond?: number; blockTime?: number }): void;
  stopLive(): Promise<void>;
  isLive(): boolean;
  /** Mines `count` blocks of live activity now (independent of the live timer). */
  mineActive(count?: number, matchesPerBlock?: number): Promise<void>;
  /** Mines `count` blocks without activity. */
  mineEmpty(count?: number): Promise<void>;
  /** Replaces the last `depth` blocks with different ones at the same heights. */
  reorg(depth: number): Promise<ReorgResult>;
}

export function createChainControl(deps: {
  driver: ChainDriver;
  runner: WorldRunner;
  ledger: Ledger;
  onError?: (err: unknown) => void;
}): ChainControl {
  const { driver, runner, ledger } = deps;
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = lock.then(fn, fn);
    lock = run.catch(() => {});
    return run;
  };

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let rate = 5;
  let blockTime = 1;

  async function blockHash(n: number): Promise<Hex> {
    const b = await driver.anvil.rpc<{ hash: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    return b.hash;
  }

  function liveTick() {
    running = exclusive(async () => {
      const t = runner.lastBlockTime() + blockTime;
      await runner.liveStep(t, Math.max(1, Math.round(rate * blockTime)));
    })
      .catch((err) => {
        stop();
        deps.onError?.(err);
      })
      .then(() => {
        running = null;
      });
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return {
    head: () => driver.head(),
    startLive(options = {}) {
      if (timer) return;
      rate = options.ratePerSecond ?? rate;
      blockTime = options.blockTime ?? blockTime;
      timer = setInterval(() => {
        if (!running) liveTick();
      }, blockTime * 1000);
    },
    async stopLive() {
      stop();
      await running;
      await lock;
    },
    isLive: () => timer !== null,
    mineActive(count = 1, matchesPerBlock = 5) {
      return exclusive(async () => {
        for (let i = 0; i < count; i++)
          await runner.liveStep(runner.lastBlockTime() + blockTime, matchesPerBlock);
      });
    },
    mineEmpty(count = 1) {
      return exclusive(async () => {
        for (let i = 0; i < count; i++) await runner.emptyBlock(runner.lastBlockTime() + blockTime);
      });
    },
    reorg(depth) {
      return exclusive(async () => {
        if (!Number.isInteger(depth) || depth < 1)
          throw new RangeError(`reorg depth must be >= 1, got ${depth}`);
        const head = driver.head();
        const first = head - depth + 1;
        const snap = runner.snapshotBefore(first);
        if (!snap || first < 1 || first - 1 < ledger.journalFloor()) {
          throw new RangeError(`cannot reorg ${depth} blocks: the sim keeps state for the last blocks only`);
        }
        const orphaned: Hex[] = [];
        const times: number[] = [];
        for (let n = first; n <= head; n++) {
          orphaned.push(await blockHash(n));
          const b = await driver.anvil.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [
            `0x${n.toString(16)}`,
            false,
          ]);
          times.push(Number(b.timestamp));
        }
        await driver.rollback(depth);
        ledger.rollbackTo(first - 1);
        runner.restore(snap);
        // Same heights and timestamps, new content: the runner's random streams have moved on.
        for (const t of times) await runner.liveStep(t, Math.max(1, Math.round(rate * blockTime)));
        const replacement: Hex[] = [];
        for (let n = first; n <= head; n++) replacement.push(await blockHash(n));
        return { depth, orphaned, replacement };
      });
    },
  };
}
