/**
 * `--live`: the demo's situation. The simulated chain trades live (sim/, no venue replicas); its history is
 * backfilled, then the live follower (ingest/chain/follower.ts, publishing to Redis as the demo's does)
 * keeps writing to the same embedded engine the API reads, in this process. Meanwhile clients look up
 * what it ingested (wallet, token and tx hash lookups in turn, keys refreshed from the newest fills) at a
 * fixed concurrency for a fixed time, every request a URL not requested before (response cache misses, as a
 * user's lookups of new trades are).
 *
 * The alpha tables are emptied first: the generated dataset's block numbers (50,000,000 and up) would sit
 * above the sim chain's, and a reorg deletes every row above its common ancestor.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Config } from '../../core/config.ts';
import type { Logger } from '../../core/logger.ts';
import type { TickOutcome } from '../../ingest/chain/follower.ts';
import { createAlphaChain } from '../../ingest/venues/alpha/chain/ingestor.ts';
import { createPublisher } from '../../ingest/venues/alpha/chain/publish.ts';
import { EVENT_TABLES } from '../../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../../ingest/venues/alpha/chain/settings.ts';
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
  /** The follower's ClickHouse calls meanwhile, by label, longest total first. */
  statements: ({ label: string } & CallStats)[];
}

/** Wall time of one label's calls (the follower's statements) while the clients run. */
interface CallStats {
  calls: number;
  totalMs: number;
  maxMs: number;
}

/** The follower's ClickHouse bag, its calls timed by label while `on()` says so. */
function timeCalls(clickhouse: ClickHouse, stats: Map<string, CallStats>, on: () => boolean): ClickHouse {
  return new Proxy(clickhouse, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        if (!on() || !(out instanceof Promise)) return out;
        const label = typeof args[0] === 'string' ? args[0] : String(prop);
        const t0 = performance.now();
        return out.finally(() => {
          const ms = performance.now() - t0;
          const s = stats.get(label) ?? { calls: 0, totalMs: 0, maxMs: 0 };
          s.calls++;
          s.totalMs += ms;
          s.maxMs = Math.max(s.maxMs, ms);
          stats.set(label, s);
        });
      };
    },
  });
}

interface LiveKey {
  maker: string;
  token_id: string;
  tx_hash: string;
}

export async function runLive(o: LiveOptions, say: (line: string) => void): Promise<LiveResult> {
  for (const t of [...EVENT_TABLES, 'alpha_blocks', 'watermarks', 'alpha_fill_hashes']) {
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
    let counting = false;
    const writes = new Map<string, CallStats>();
    const followerClickhouse = timeCalls(o.clickhouse, writes, () => counting);
    const chain = createAlphaChain({ clickhouse: followerClickhouse, log: o.log }, settings);
    await chain.referencePass(0, sim.historyHead);
    await chain.ingestRange({ from: 0, to: sim.historyHead }, { head: sim.historyHead });
    const [hist] = await o.clickhouse.query<{ n: string }>(
      'bench.live.count',
      'SELECT count() AS n FROM alpha_fills',
    );
    const historySeconds = (performance.now() - t0) / 1000;
    say(
      `live: sim ${o.size} (seed "${o.seed}"), history ${Number(hist!.n).toLocaleString('en-US')} fills in ${sim.historyHead} blocks ` +
        `(sim + backfill ${historySeconds.toFixed(1)} s); following live trading at ${o.rate} matches/s`,
    );

    const follower = chain.follow({
      publisher: createPublisher(o.redis, { chainId: settings.chainId }),
      fromBlock: sim.historyHead + 1,
    });
    let blocks = 0;
    let rows = 0;
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

    // Keys of the newest fills (distinct per kind, newest first), refreshed as the follower writes more.
    const kinds = ['maker', 'token_id', 'tx_hash'] as const;
    let keys: Record<(typeof kinds)[number], string[]> = { maker: [], token_id: [], tx_hash: [] };
    let position = [0, 0, 0];
    const refresh = async () => {
      const rows = await o.clickhouse.query<LiveKey>(
        'bench.live.keys',
        'SELECT maker, token_id, tx_hash FROM alpha_fills ORDER BY block_number DESC, log_index DESC LIMIT 2000',
      );
      if (rows.length === 0) return;
      keys = {
        maker: [...new Set(rows.map((r) => r.maker))],
        token_id: [...new Set(rows.map((r) => r.token_id))],
        tx_hash: [...new Set(rows.map((r) => r.tx_hash))],
      };
      position = [0, 0, 0];
    };
    await refresh();
    if (keys.tx_hash.length === 0) throw new Error('The follower ingested no fills to look up');
    const refresher = setInterval(() => void refresh().catch(() => {}), 3000);
    counting = true;
    try {
      // Every request a URL not requested before, so the response cache cannot answer it: a key asked
      // again (the sim has few wallets) asks for a page one row smaller.
      const asked = new Map<string, number>();
      const PARAM = { maker: 'wallet', token_id: 'token_id', tx_hash: 'tx_hash' } as const;
      const urls = (i: number) => {
        const k = i % 3;
        const kind = kinds[k]!;
        const list = keys[kind];
        const value = list[position[k]!++ % list.length]!;
        const times = asked.get(value) ?? 0;
        asked.set(value, times + 1);
        return `/v2/alpha/trades?${PARAM[kind]}=${value}&limit=${Math.max(1, o.limit - (times % o.limit))}`;
      };
      const result = await load({
        base: o.base,
        key: o.key,
        urls,
        requests: Number.MAX_SAFE_INTEGER,
        concurrency: o.concurrency,
        deadline: performance.now() + o.seconds * 1000,
      });
      const statements = [...writes.entries()]
        .map(([label, st]) => ({ label, ...st }))
        .sort((a, b) => b.totalMs - a.totalMs);
      return { load: result, historyFills: Number(hist!.n), historySeconds, blocks, rows, statements };
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
