/**
 * The book feed's throughput (ingest/venues/beta/feed.ts): a local WebSocket server in a child process
 * (feed-server.ts) sends `markets` markets' snapshots, then `deltas` deltas as fast as the socket takes
 * them; the feed reads them into beta_book_ticks (embedded ClickHouse, batched inserts). `deltas_per_s` =
 * deltas / (first byte → the last batch inserted). Composed by bench/ticks.ts (`SUMMARY deltas_per_s=…`).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { feedMessages } from '../../core/metrics.ts';
import { createBetaFeed } from '../../ingest/venues/beta/feed.ts';
import { type BenchWorld, openBenchWorld } from '../support/world.ts';

export interface MeasureFeedOptions {
  /** Markets subscribed (default 1,000). */
  markets?: number;
  /** Deltas sent (default 500,000). */
  deltas?: number;
  /** A world to write into (default a private one, closed after). */
  world?: BenchWorld;
}

export interface FeedFigures {
  deltas_per_s: number;
  deltas: number;
  markets: number;
  rows: number;
  seconds: number;
  /** Rows per insert (the feed's batch). */
  rows_per_insert: number;
}

const SOURCE = 'bench-feed';

async function messagesRead(): Promise<number> {
  const m = await feedMessages.get();
  return m.values.find((v) => v.labels.feed === SOURCE)?.value ?? 0;
}

export async function measureFeed(o: MeasureFeedOptions = {}): Promise<FeedFigures> {
  const markets = o.markets ?? 1_000;
  const deltas = o.deltas ?? 500_000;
  const world = o.world ?? (await openBenchWorld('ticks_feed'));
  const server = fork(path.join(import.meta.dirname, 'feed-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FEED_MARKETS: String(markets), FEED_DELTAS: String(deltas) },
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('message', (m: { port: number }) => resolve(m.port));
      server.once('exit', (code) => reject(new Error(`the feed server exited (${code})`)));
    });
    const tickers = Array.from({ length: markets }, (_, i) => `BENCH-${String(i).padStart(5, '0')}`);
    const flushRows = 50_000;
    const feed = createBetaFeed(
      { clickhouse: world.clickhouse, log: world.log, redis: world.redis },
      {
        url: `ws://127.0.0.1:${port}/trade-api/ws/v2`,
        tickers: async () => tickers,
        refreshMs: 3_600_000,
        snapshotMs: 0,
        flushRows,
        flushMs: 500,
        source: SOURCE,
      },
    );
    const before = await messagesRead();
    const stop = new AbortController();
    const started = performance.now();
    const done = feed.run({ signal: stop.signal });
    while ((await messagesRead()) - before < markets + deltas) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const summary = await done;
    const seconds = (performance.now() - started) / 1000;
    return {
      deltas_per_s: Math.round(deltas / seconds),
      deltas,
      markets,
      rows: summary.rows,
      seconds: Math.round(seconds * 100) / 100,
      rows_per_insert: flushRows,
    };
  } finally {
    server.kill();
    if (!o.world) await world.close();
  }
}
