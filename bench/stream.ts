/**
 * `npm run bench -- stream [--connections 1000 --subscriptions 100 --rate 1000 --processes 1|2
 *  --seconds 10 --chain-seconds 20]`: the streaming service under load (docs/streaming.md).
 *
 * fan-out: 1 or 2 stream processes (children) on a private redis-server; `connections` clients, each
 *   with `subscriptions` one-address `users` subscriptions, spread so that each fill matches ~10
 *   connections; fills published through the real follower publisher at `rate` per second. Figures:
 *   deliveries/s, publish → client p50/p99/max, drops, RSS per connection (the stream processes' RSS
 *   growth ÷ connections), CPU of the stream processes per 1,000 deliveries.
 * chain: the sim chain live, the follower (chDB) publishing, one stream process, a wildcard
 *   `status: all` client: block mined → client p50/p99 of pending fills.
 * Last line: `SUMMARY p99_ms=… kib_per_conn=… chain_p99_ms=…`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createKeyStore } from '../api/keys/store.ts';
import { createLogger } from '../core/logger.ts';
import { createRedis } from '../core/redis.ts';
import { startRedisServer } from '../core/redis-server.ts';
import { createPublisher } from '../ingest/venues/alpha/chain/publish.ts';

const b32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const addr = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const fmt = (v: number) => (Math.round(v * 10) / 10).toLocaleString('en-US');

interface Child {
  proc: ChildProcess;
  port: number;
  ask<T>(type: string): Promise<T>;
  stop(): Promise<void>;
}

async function startChild(redisUrl: string): Promise<Child> {
  const proc = fork(path.join(import.meta.dirname, 'stream', 'server.ts'), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, BENCH_REDIS_URL: redisUrl },
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`stream child exited ${code}`)));
  });
  return {
    proc,
    port,
    stop() {
      return new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.send({ type: 'stop' });
      });
    },
    ask<T>(type: string) {
      return new Promise<T>((resolve) => {
        proc.once('message', (m) => resolve(m as T));
        proc.send({ type });
      });
    },
  };
}

function fill(i: number, maker: number) {
  return {
    chain_id: 137,
    block_number: 1_000_000 + Math.floor(i / 10),
    block_hash: b32(i),
    block_time: Date.now(),
    tx_hash: b32(i + 1),
    log_index: i % 10,
    exchange: addr(0xe1),
    exchange_version: 1,
    neg_risk: false,
    order_hash: b32(i),
    maker: addr(maker),
    taker: addr(0xfeed),
    role: 'maker',
    side: 'BUY',
    token_id: '21',
    condition_id: b32(11),
    outcome_index: 0,
    maker_amount: 1,
    taker_amount: 1,
    shares: 1_000_000,
    usd: 500_000,
    fee: 0,
    fee_asset: 'shares',
    builder: '',
    metadata: '',
    status: 'confirmed',
  };
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      connections: { type: 'string', default: '1000' },
      subscriptions: { type: 'string', default: '100' },
      rate: { type: 'string', default: '1000' },
      processes: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '10' },
      'chain-seconds': { type: 'string', default: '20' },
    },
  });
  const connections = Number(values.connections);
  const perConn = Number(values.subscriptions);
  const rate = Number(values.rate);
  const processes = Number(values.processes);
  const seconds = Number(values.seconds);
  if (![1, 2].includes(processes)) throw new Error('--processes must be 1 or 2');
  const log = createLogger({ level: 'warn' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-stream-'));
  const redisServer = await startRedisServer({ port: 16_500 + (process.pid % 1000), dir, log });
  const redis = createRedis(redisServer.url);
  try {
    // Each fill's maker is one of `users` addresses, each named by ~10 subscriptions on distinct connections.
    const users = Math.max(1, Math.floor((connections * perConn) / 10));
    const keys = createKeyStore(redis);
    const { key, record } = await keys.create({ tier: 'enterprise', name: 'bench' });
    const hash = await redis.get(`apikey-id:${record.id}`);
    await redis.hset(`apikey:${hash}`, {
      stream_connections: String(connections + 10),
      stream_subscriptions: String(perConn),
      stream_total_items: String(perConn * 10),
    });
    const children = await Promise.all(Array.from({ length: processes }, () => startChild(redisServer.url)));
    const settled = async () => {
      const all = await Promise.all(children.map((c) => c.ask<{ rss: number; heap: number }>('settle')));
      return { rss: all.reduce((s, x) => s + x.rss, 0), heap: all.reduce((s, x) => s + x.heap, 0) };
    };
    const memBefore = await settled();

    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let received = 0;
    const sockets: WebSocket[] = [];
    const t0 = Date.now();
    for (let c = 0; c < connections; c++) {
      const port = children[c % processes]!.port;
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/${key}`);
      sockets.push(ws);
      await new Promise<void>((resolve, reject) => {
        ws.once('error', reject);
        ws.once('message', () => resolve());
      });
      ws.on('message', (raw) => {
        const text = raw.toString();
        if (!text.startsWith('{"type":"event"')) return;
        received++;
        const tx = /"tx_hash":"(0x[0-9a-f]+)"/.exec(text)?.[1];
        const at = tx ? sentAt.get(tx) : undefined;
        if (at !== undefined) latencies.push(Date.now() - at);
      });
    }
    // Subscriptions: 10 per connection per round of 1.1 s (the limit is 20 client messages a second;
    // the server reads a round with some skew, so rounds stay well under it).
    for (let s0 = 0; s0 < perConn; s0 += 10) {
      const round = Date.now();
      sockets.forEach((ws, c) => {
        for (let s = s0; s < Math.min(perConn, s0 + 10); s++) {
          const u = (c + s * connections) % users;
          ws.send(JSON.stringify({ action: 'subscribe', channel: 'trades', filters: { users: [addr(u)] } }));
        }
      });
      if (s0 + 19 < perConn)
        await new Promise((r) => setTimeout(r, Math.max(0, 1050 - (Date.now() - round))));
    }
    const setupS = (Date.now() - t0) / 1000;
    let subs = 0;
    for (let i = 0; i < 200; i++) {
      const st = await Promise.all(children.map((c) => c.ask<{ stats: { subscriptions: number } }>('stats')));
      subs = st.reduce((s, x) => s + x.stats.subscriptions, 0);
      if (subs >= connections * perConn) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // What connections hold once setup's garbage is collected: RSS, and the JS heap + external part of it.
    const memAfter = await settled();
    const before = await Promise.all(
      children.map((c) =>
        c.ask<{ rss: number; cpu: NodeJS.CpuUsage; stats: { deliveries: number } }>('stats'),
      ),
    );
    const rssPerConn = (memAfter.rss - memBefore.rss) / connections;
    const heapPerConn = (memAfter.heap - memBefore.heap) / connections;

    // Publish at `rate` fills per second, in 10 ms batches, through the real publisher.
    const publisher = createPublisher(redis, { chainId: 137 });
    const perTick = Math.max(1, Math.round(rate / 100));
    let i = 0;
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) {
      const tick = Date.now();
      const batch = Array.from({ length: perTick }, () => fill(i, i++ % users));
      for (const f of batch) sentAt.set(f.tx_hash, Date.now());
      await publisher.publish({ alpha_fills: batch as never });
      const wait = 10 - (Date.now() - tick);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const published = i;
    await new Promise((r) => setTimeout(r, 1000));
    const after = await Promise.all(
      children.map((c) =>
        c.ask<{ rss: number; cpu: NodeJS.CpuUsage; stats: { deliveries: number; dropped: number } }>('stats'),
      ),
    );
    const deliveries =
      after.reduce((s, x) => s + x.stats.deliveries, 0) - before.reduce((s, x) => s + x.stats.deliveries, 0);
    const dropped = after.reduce((s, x) => s + x.stats.dropped, 0);
    const cpuMs = after.reduce(
      (s, x, k) => s + (x.cpu.user + x.cpu.system - before[k]!.cpu.user - before[k]!.cpu.system) / 1000,
      0,
    );
    latencies.sort((a, b) => a - b);
    const p99 = pct(latencies, 99);
    console.log(
      `fan-out: ${processes} process(es), ${connections} connections × ${perConn} subscriptions (${subs} held, setup ${fmt(setupS)} s), ${users} users (~${fmt((connections * perConn) / users)} subscriptions per fill)`,
    );
    console.log(
      `  published ${published} fills in ${seconds} s (${fmt(published / seconds)}/s); deliveries ${deliveries} (${fmt(deliveries / seconds)}/s), received ${received}, dropped ${dropped}`,
    );
    console.log(
      `  publish → client ms: p50 ${pct(latencies, 50)} p99 ${p99} max ${latencies.at(-1) ?? 0} (${latencies.length} samples)`,
    );
    console.log(
      `  RSS per connection ${fmt(rssPerConn / 1024)} KiB (JS heap + external ${fmt(heapPerConn / 1024)} KiB), after a collection; stream CPU ${fmt(cpuMs)} ms = ${fmt((cpuMs / Math.max(1, deliveries)) * 1000)} ms per 1,000 deliveries`,
    );
    for (const ws of sockets) ws.terminate();
    await Promise.all(children.map((c) => c.stop()));

    const chainP99 = await chainScenario(redisServer.url, key, Number(values['chain-seconds']));
    console.log(`SUMMARY p99_ms=${p99} kib_per_conn=${fmt(rssPerConn / 1024)} chain_p99_ms=${chainP99}`);
  } finally {
    redis.disconnect();
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Sim chain live → follower (chDB) → stream: block mined → client, pending fills. */
async function chainScenario(redisUrl: string, key: string, seconds: number): Promise<number | string> {
  const { startSim } = await import('../sim/index.ts');
  const { loadConfig } = await import('../core/config.ts');
  const { createClickHouse } = await import('../core/clickhouse/index.ts');
  const { migrate } = await import('../core/migrations.ts');
  const { createAlphaChain } = await import('../ingest/venues/alpha/chain/ingestor.ts');
  const { alphaChainSettings } = await import('../ingest/venues/alpha/chain/settings.ts');
  const { CONFIG_SECTIONS } = await import('../jobs/config.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-stream-chain-'));
  const config = loadConfig(
    { PMDATA_DATA_DIR: dir, REDIS_URL: redisUrl, LOG_LEVEL: 'warn', CLICKHOUSE_DATABASE: 'bench_stream' },
    CONFIG_SECTIONS,
  );
  const log = createLogger({ level: 'warn' });
  const minedAt = new Map<number, number>();
  const sim = await startSim({
    seed: 'bench-stream',
    size: 'small',
    replicas: false,
    historyFills: 100,
    onBlock: (b) => minedAt.set(b.number, Date.now()),
  });
  process.stderr.write(`chain: sim at block ${sim.historyHead}\n`);
  const clickhouse = await createClickHouse({ config, log });
  const redis = createRedis(redisUrl);
  const child = await startChild(redisUrl);
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await migrate({ clickhouse, log });
    const settings = alphaChainSettings(config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 5,
      pollIntervalMs: 20,
      followMaxBlocksPerTick: 20,
    });
    const follower = createAlphaChain({ clickhouse, log }, settings).follow({
      publisher: createPublisher(redis, { chainId: settings.chainId }),
      fromBlock: sim.historyHead + 1,
    });
    running = follower.run(controller.signal);
    const latencies: number[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${child.port}/v1/${key}`);
    await new Promise((r) => ws.once('message', r));
    ws.send(
      JSON.stringify({
        action: 'subscribe',
        channel: 'trades',
        filters: { users: ['*'], status: 'pending' },
      }),
    );
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as {
        type: string;
        data?: { status: string; block_number: number };
      };
      if (m.type !== 'event' || m.data?.status !== 'pending') return;
      const at = minedAt.get(m.data.block_number);
      if (at !== undefined) latencies.push(Date.now() - at);
    });
    process.stderr.write('chain: following live blocks\n');
    sim.control.startLive({ ratePerSecond: 5, blockTime: 1 });
    await new Promise((r) => setTimeout(r, seconds * 1000));
    await sim.control.stopLive();
    process.stderr.write('chain: stopped live\n');
    ws.terminate();
    latencies.sort((a, b) => a - b);
    const p99 = pct(latencies, 99);
    console.log(
      `chain: ${seconds} s live, ${latencies.length} pending fills; block mined → client ms p50 ${pct(latencies, 50)} p99 ${p99} max ${latencies.at(-1) ?? 0}`,
    );
    return latencies.length > 0 ? p99 : 'n/a';
  } finally {
    controller.abort();
    await running?.catch(() => {});
    await child.stop();
    redis.disconnect();
    await clickhouse.close();
    await sim.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
