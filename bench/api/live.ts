/**
 * `--live`: the demo's situation. The simulated chain trades live (sim/, no venue replicas); its history is
 * backfilled, then the live follower (ingest/chain/follower.ts, publishing to Redis as the demo's does)
 * keeps writing to the same embedded engine the API reads, in this process. Meanwhile clients look up
 * what it ingested (wallet, token and tx hash lookups in turn, keys refreshed from the newest fills) at a
 * fixed concurrency for a fixed time.
 *
 * The alpha tables are emptied first: the generated dataset's block numbers (50,000,000 and up) would sit
 * above the sim chain's, and a reorg deletes every row above its common ancestor.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Config } from '../../core/config.ts';
import type { Logger } from '../../core/logger.ts';
import { runBackfillRange } from '../../ingest/chain/backfill.ts';
import { createFollower, type TickOutcome } from '../../ingest/chain/follower.ts';
import { createAlphaChain } from '../../ingest/chain/pipeline.ts';
import { createPublisher } from '../../ingest/chain/publish.ts';
import { alphaChainSettings } from '../../ingest/chain/settings.ts';
import { EVENT_TABLES } from '../../ingest/chain/types.ts';
import { startSim } from '../../sim/index.ts';
import type { CatalogSize } from '../../sim/world/catalog.ts';
import { type LoadResult, load } from './load.ts';

export interface LiveOptions {
  config: Config;
  log: Logger;
  clickhouse: ClickHouse;
  redis: import('ioredis').Redis;
  base: string;
  key: string;
  seed: string;
  size: CatalogSize;
  /** Live matches per second. */
  rate: number;
  seconds: number;
  concurrency: number;
  limit: number;
}

export interface LiveResult {
  load: LoadResult;
  historyFills: number;
  historySeconds: number;
  /** Blocks and rows the follower ingested while the clients ran. */
  blocks: number;
  rows: number;
}

interface LiveKey {
  maker: string;
  token_id: string;
  tx_hash: string;
}

export async function runLive(o: LiveOptions, say: (line: string) => void): Promise<LiveResult> {
  for (const t of [...EVENT_TABLES, 'alpha_blocks', 'alpha_checkpoints', 'alpha_fill_hashes']) {
    await o.clickhouse.command('bench.live.truncate', `TRUNCATE TABLE IF EXISTS ${t}`);
  }
  const t0 = performance.now();
  const sim = await startSim({
    seed: o.seed,
    size: o.size,
    replicas: false,
    live: true,
    ratePerSecond: o.rate,
  });
  const stop = new AbortController();
  let following: Promise<void> | undefined;
  try {
    const settings = alphaChainSettings(o.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 5,
    });
    const chain = createAlphaChain({ clickhouse: o.clickhouse, log: o.log }, settings);
    await chain.tokenPass(0, sim.historyHead);
    await runBackfillRange(chain, { from: 0, to: sim.historyHead }, { head: sim.historyHead });
    const [hist] = await o.clickhouse.query<{ n: string }>(
      'bench.live.count',
      'SELECT count() AS n FROM alpha_fills',
    );
    const historySeconds = (performance.now() - t0) / 1000;
    say(
      `live: sim ${o.size} (seed "${o.seed}"), history ${Number(hist!.n).toLocaleString('en-US')} fills in ${sim.historyHead} blocks ` +
        `(sim + backfill ${historySeconds.toFixed(1)} s); following live trading at ${o.rate} matches/s`,
    );

    const follower = createFollower({
      chain,
      clickhouse: o.clickhouse,
      log: o.log,
      publisher: createPublisher(o.redis, { chainId: settings.chainId }),
      fromBlock: sim.historyHead + 1,
    });
    let blocks = 0;
    let rows = 0;
    let counting = false;
    const onTick = (t: TickOutcome) => {
      if (counting && t.kind === 'ingested') {
        blocks += t.to - t.from + 1;
        rows += t.rows;
      }
    };
    following = follower.run(stop.signal, onTick).catch((err) => {
      if (!stop.signal.aborted) o.log.error({ err }, 'Stopped following after an error');
    });
    // Let the follower reach the live head before the clients start.
    for (let i = 0; i < 100 && (follower.tip()?.number ?? 0) <= sim.historyHead; i++) {
      await new Promise((r) => setTimeout(r, 200));
    }

    // The newest fills' keys, refreshed as the follower writes more.
    let keys: LiveKey[] = [];
    const refresh = async () => {
      const fresh = await o.clickhouse.query<LiveKey>(
        'bench.live.keys',
        'SELECT maker, token_id, tx_hash FROM alpha_fills ORDER BY block_number DESC, log_index DESC LIMIT 200',
      );
      if (fresh.length > 0) keys = fresh;
    };
    await refresh();
    if (keys.length === 0) throw new Error('The follower ingested no fills to look up');
    const refresher = setInterval(() => void refresh().catch(() => {}), 3000);
    counting = true;
    try {
      const urls = (i: number) => {
        const k = keys[Math.floor(i / 3) % keys.length]!;
        if (i % 3 === 0) return `/v2/alpha/trades?wallet=${k.maker}&limit=${o.limit}`;
        if (i % 3 === 1) return `/v2/alpha/trades?token_id=${k.token_id}&limit=${o.limit}`;
        return `/v2/alpha/trades?tx_hash=${k.tx_hash}`;
      };
      const result = await load({
        base: o.base,
        key: o.key,
        urls,
        requests: Number.MAX_SAFE_INTEGER,
        concurrency: o.concurrency,
        deadline: performance.now() + o.seconds * 1000,
      });
      return { load: result, historyFills: Number(hist!.n), historySeconds, blocks, rows };
    } finally {
      counting = false;
      clearInterval(refresher);
    }
  } finally {
    stop.abort();
    await following;
    await sim.stop();
  }
}
