/**
 * `npm run bench -- positions [--fills N] [--days D] [--conditions C] [--blocks K] [--block-fills F]
 * [--requests R] [--concurrency Q] [--batch-rows B]`: venue alpha's positions (docs/positions.md "Benchmark") on the
 * synthetic chain of bench/analytics/data.ts with its `positions` option (activity, resolutions, plain and
 * settlement transfers, V1 fees and refunds drawn from the maker fills):
 * 1. the world's shape and build time;
 * 2. full recompute (`recomputePositions`): seconds, events/s, peak RSS, change rows and positions;
 * 3. incremental: K new blocks of F maker fills, `runPositions` timed after each (p50 / p99), and idle runs;
 * 4. one profiles run (`runProfiles`);
 * 5. the wallet positions and P&L routes at concurrency Q over a mix of busy and quiet wallets.
 * Where the time goes: every statement by label (bench/analytics/profile.ts). Last line: SUMMARY.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  DEFAULT_BATCH_ROWS,
  type PositionsDeps,
  recomputePositions,
  runPositions,
} from '../analytics/positions/run.ts';
import { runProfiles } from '../analytics/profiles/run.ts';
import { buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { createDataVersions } from '../core/data-version.ts';
import { productSettings } from '../jobs/products.ts';
import { routeMissing, statementCells, timingCells } from './analytics/api.ts';
import { appendBlock, generate, type Shape } from './analytics/data.ts';
import { addUp, createProfiler, formatProfile, type LabelStats, settleMerges } from './analytics/profile.ts';
import { type MixTiming, timeMix } from './positions/api.ts';
import { withPeakMemory } from './positions/memory.ts';
import { openBenchWorld } from './support/world.ts';

const n = (v: number | string) => Number(v).toLocaleString('en-US');
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const MIB = 1024 * 1024;

async function count(ch: ClickHouse, sql: string): Promise<[string, string][]> {
  return ch.read<[string, string]>('bench.positions.count', sql);
}

/** The world's shape: what the positions job reads. */
async function shapeLines(ch: ClickHouse): Promise<string[]> {
  const fills = await count(
    ch,
    `SELECT toString(role), toString(count()) FROM alpha_fills GROUP BY role ORDER BY role`,
  );
  const [fees] = await count(
    ch,
    `SELECT toString(countIf(fee > 0 AND fee_asset = 'shares')), toString(countIf(fee > 0 AND fee_asset = 'collateral')) FROM alpha_fills`,
  );
  const activity = await count(
    ch,
    `SELECT toString(type), toString(count()) FROM alpha_activity GROUP BY type ORDER BY type`,
  );
  const [transfers] = await count(
    ch,
    `SELECT toString(countIf(operator = from_address)), toString(countIf(operator != from_address)) FROM alpha_token_transfers`,
  );
  const exchange = await count(
    ch,
    `SELECT kind, toString(count()) FROM alpha_exchange_events GROUP BY kind ORDER BY kind`,
  );
  const [resolved] = await count(
    ch,
    `SELECT toString(countIf(kind = 'condition_resolved')), toString(countIf(kind = 'condition_prepared')) FROM alpha_lifecycle`,
  );
  const [wallets] = await count(
    ch,
    `SELECT toString(uniqExact(maker)), toString(uniqExact(token_id)) FROM alpha_fills WHERE role = 'maker'`,
  );
  const [others] = await count(
    ch,
    `SELECT toString(uniqExact(to_address)), '' FROM alpha_token_transfers
     WHERE operator = from_address AND to_address NOT IN (SELECT DISTINCT maker FROM alpha_fills)`,
  );
  const [blocks] = await count(ch, `SELECT toString(count()), toString(max(number)) FROM alpha_blocks`);
  const list = (rows: [string, string][]) => rows.map(([k, v]) => `${k} ${n(v)}`).join(', ');
  return [
    `  fills: ${list(fills)}; V1 fees on ${n(fees![0])} BUY fills (shares) and ${n(fees![1])} SELL fills (collateral)`,
    `  activity: ${list(activity)}; conditions ${n(resolved![1])} prepared, ${n(resolved![0])} resolved`,
    `  transfers: ${n(transfers![0])} plain (operator the sender), ${n(transfers![1])} settlement (operator the exchange); exchange events: ${list(exchange)}`,
    `  wallets: ${n(wallets![0])} makers, ${n(others![0])} transfer receivers that never trade; tokens traded ${n(wallets![1])}; blocks ${n(blocks![0])}`,
  ];
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      fills: { type: 'string', default: '1000000' },
      days: { type: 'string', default: '30' },
      conditions: { type: 'string', default: '2000' },
      blocks: { type: 'string', default: '60' },
      'block-fills': { type: 'string', default: '300' },
      requests: { type: 'string', default: '400' },
      concurrency: { type: 'string', default: '16' },
      /** The job's rows per chain table per batch (PositionsSettings.batchRows); default the job's. */
      'batch-rows': { type: 'string' },
    },
  });
  const shape: Shape = {
    fills: Number(values.fills),
    days: Number(values.days),
    conditions: Number(values.conditions),
  };
  const blocks = Number(values.blocks);
  const blockFills = Number(values['block-fills']);
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  for (const [k, v] of Object.entries({ ...shape, blocks, blockFills, requests, concurrency })) {
    if (!Number.isInteger(v) || v < (k === 'blocks' ? 0 : 1))
      throw new Error(`--${k} must be a positive integer`);
  }
  if (shape.conditions < 10) throw new Error('--conditions must be at least 10');
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const loadAtStart = os.loadavg();

  const world = await openBenchWorld('positions');
  const { log, config, clickhouse, redis } = world;
  try {
    const batchRows = values['batch-rows'] === undefined ? undefined : Number(values['batch-rows']);
    if (batchRows !== undefined && (!Number.isInteger(batchRows) || batchRows < 1))
      throw new Error('--batch-rows must be a positive integer');
    const settings = { ...productSettings(config), ...(batchRows === undefined ? {} : { batchRows }) };
    record(
      `positions benchmark: ${n(shape.fills)} maker fills over ${shape.days} days, ${n(shape.conditions)} conditions; ` +
        `batch rows ${n(batchRows ?? DEFAULT_BATCH_ROWS)}; embedded chDB, ${os.cpus().length} cores, load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
    );

    // 1. The world.
    const g0 = performance.now();
    const generated = await generate(clickhouse, shape, (l) => record(l), { positions: true });
    const genS = (performance.now() - g0) / 1000;
    record(`(1) world built in ${genS.toFixed(1)} s:`);
    for (const l of await shapeLines(clickhouse)) record(l);
    const settled = await settleMerges(clickhouse, 180);
    record(
      settled.running === 0
        ? `    background merges settled in ${settled.s.toFixed(1)} s before timing`
        : `    ${settled.running} background merges still running after ${settled.s.toFixed(0)} s: timing starts beside them`,
    );

    const profiler = createProfiler(clickhouse);
    const deps: PositionsDeps = {
      clickhouse: profiler.clickhouse,
      log,
      versions: createDataVersions({ redis }),
    };

    // 2. Full recompute.
    record('');
    profiler.start({ events: true });
    const r0 = performance.now();
    const { value: full, peak } = await withPeakMemory(() => recomputePositions(deps, settings));
    const recomputeS = (performance.now() - r0) / 1000;
    const recomputeProfile = profiler.stop();
    const [rows] = await clickhouse.read<[string, string, string]>(
      'bench.positions.rows',
      `SELECT (SELECT toString(count()) FROM alpha_position_changes), (SELECT toString(count()) FROM alpha_positions FINAL),
         (SELECT toString(count()) FROM alpha_positions FINAL WHERE shares > 0)`,
    );
    record(
      `(2) full recompute (recomputePositions): ${recomputeS.toFixed(1)} s, ${n(full.events)} events in ${full.batches} batches ` +
        `(${n(Math.round(full.events / recomputeS))} events/s); peak RSS ${(peak.rss / MIB).toFixed(0)} MiB (${(peak.before / MIB).toFixed(0)} MiB before it; ${peak.method}, ` +
        `node and the embedded engine together), largest sampled V8 heap ${(peak.heapUsed / MIB).toFixed(0)} MiB (targets < 60 s, < 1,024 MiB)`,
    );
    record(
      `    written: ${n(rows![0])} change rows, ${n(rows![1])} positions (${n(rows![2])} open), ${n(full.prices)} token prices; ` +
        `not placed: ${full.stats.unknownCondition} unknown condition, ${full.stats.unresolvedRedeem} redeems before resolution, ${full.stats.unmatchedRefund} refunds without their fill`,
    );

    // 3. Incremental: one new block at a time, then idle runs.
    const idleMs: number[] = [];
    const idle = async () => {
      const i0 = performance.now();
      const r = await runPositions(deps, settings);
      idleMs.push(performance.now() - i0);
      if (r.mode !== 'idle') throw new Error(`expected an idle run, got ${r.mode}`);
    };
    for (let i = 0; i < 3; i++) await idle();
    const incMs: number[] = [];
    const incRuns: LabelStats[][] = [];
    let incEvents = 0;
    let block = generated.lastBlock;
    let updatedMs = Date.now();
    const append = async (index: number) => {
      block++;
      updatedMs = Math.max(Date.now(), updatedMs + 1);
      await appendBlock(clickhouse, shape, { block, index, fills: blockFills, updatedMs, positions: true });
    };
    for (let i = 0; i < blocks; i++) {
      await append(i);
      profiler.start();
      const i0 = performance.now();
      const r = await runPositions(deps, settings);
      incMs.push(performance.now() - i0);
      incRuns.push(profiler.stop());
      incEvents += r.events;
      if (r.mode !== 'incremental' || r.batches !== 1)
        throw new Error(`block ${block}: ${r.mode}, ${r.batches} batches`);
    }
    for (let i = 0; i < 3; i++) await idle();
    let incProfile: LabelStats[] = [];
    if (blocks > 0) {
      // One more block, profiled with the engine's counters (not among the timed runs).
      await append(blocks);
      profiler.start({ events: true });
      await runPositions(deps, settings);
      incProfile = profiler.stop();
    }
    const incSorted = [...incMs].sort((a, b) => a - b);
    const idleSorted = [...idleMs].sort((a, b) => a - b);
    const incP50 = blocks > 0 ? pct(incSorted, 50) : Number.NaN;
    const incP99 = blocks > 0 ? pct(incSorted, 99) : Number.NaN;
    if (blocks > 0) {
      record(
        `(3) incremental (runPositions per new block of ${blockFills} maker fills with its taker, activity, transfer and fee rows; ` +
          `${blocks} blocks, ${n(Math.round(incEvents / blocks))} events per block): p50 ${incP50.toFixed(0)} ms, p99 ${incP99.toFixed(0)} ms, ` +
          `max ${incSorted.at(-1)!.toFixed(0)} ms (target p99 < 500 ms); in order: ${incMs.map((m) => m.toFixed(0)).join(' ')}`,
      );
    }
    record(
      `    idle (nothing new), ${idleMs.length} runs: median ${pct(idleSorted, 50).toFixed(0)} ms, max ${idleSorted.at(-1)!.toFixed(0)} ms`,
    );

    // 4. Profiles.
    record('');
    profiler.start({ events: true });
    const p0 = performance.now();
    const { value: prof, peak: profPeak } = await withPeakMemory(() => runProfiles(deps));
    const profilesS = (performance.now() - p0) / 1000;
    const profilesProfile = profiler.stop();
    record(
      `(4) one profiles run (runProfiles): ${profilesS.toFixed(1)} s, ${n(prof.wallets)} wallets, peak RSS ${(profPeak.rss / MIB).toFixed(0)} MiB (${(profPeak.before / MIB).toFixed(0)} MiB before it)`,
    );

    // 5. API.
    record('');
    const timings: MixTiming[] = [];
    const counters: { name: string; profile: LabelStats[]; requests: number }[] = [];
    const app = await buildApp({
      config,
      log,
      clickhouse: profiler.clickhouse,
      redis,
      secret: 'bench-positions-secret-0123456789abcdef',
    });
    try {
      await app.ready();
      const { key } = await createKeyStore(redis).create({
        tier: 'enterprise',
        name: 'bench',
        rate: 1_000_000,
      });
      const mix = await walletMix(clickhouse);
      record(
        `(5) API, ${requests} requests per kind at concurrency ${concurrency} through app.inject (auth, limiter, validation, handler), response cache off (API_CACHE_BYTES=0), ` +
          `cycling over ${mix.wallets.length} wallets: ${mix.describe}`,
      );
      const kinds = [
        { name: 'wallet positions', urls: mix.wallets.map((w) => `/v2/alpha/wallet/positions/${w}`) },
        {
          name: 'wallet pnl, day',
          urls: mix.wallets.map((w) => `/v2/alpha/wallet/pnl/${w}?granularity=day`),
        },
      ];
      record(
        `    ${'kind'.padEnd(26)} status  items    bytes  p50 ms  p99 ms  max ms   stmt ms  stmts   req/s  (items: the largest answer; per request: Σ wall ms of its statements, which overlap, and their count)`,
      );
      for (const k of kinds) {
        if (await routeMissing(app, key, k.urls[0]!)) {
          record(`    ${k.name.padEnd(22)} n/a: route not present`);
          continue;
        }
        // Sequential first (a request's own cost), then at the target concurrency (the figure), then every
        // wallet once more with the engine's counters (where the time goes; its latency not reported).
        const one = await timeMix(app, key, k, {
          requests: Math.min(requests, 160),
          concurrency: 1,
          profiler,
        });
        const t = await timeMix(app, key, k, { requests, concurrency, profiler });
        const counted = await timeMix(app, key, k, {
          requests: k.urls.length,
          concurrency: 1,
          profiler,
          events: true,
        });
        timings.push(t);
        counters.push({ name: k.name, profile: counted.profile, requests: counted.sent });
        for (const x of [one, t]) {
          record(
            `    ${`${x.name}, c=${x.concurrency}`.padEnd(26)} ${timingCells(x)} ${statementCells(x)} ${x.rps.toFixed(0).padStart(7)}  ` +
              `${x.others > 0 ? `${x.others} other statuses; ` : ''}items ${x.itemsMin}–${x.itemsMax}; ${x.labels.join(', ')}`,
          );
        }
      }
    } finally {
      await app.close();
    }

    record('');
    for (const l of formatProfile('profile (2) full recompute, by statement label:', recomputeProfile))
      record(l);
    if (blocks > 0) {
      for (const l of formatProfile(
        `profile (3) ${blocks} timed incremental runs, added up:`,
        addUp(incRuns),
      ))
        record(l);
      for (const l of formatProfile(
        'profile (3) one more incremental run, with engine counters:',
        incProfile,
      ))
        record(l);
    }
    for (const l of formatProfile('profile (4) profiles run:', profilesProfile)) record(l);
    for (const t of timings)
      for (const l of formatProfile(
        `profile (5) ${t.name}, ${t.sent} requests at concurrency ${t.concurrency}:`,
        t.profile,
      ))
        record(l);
    for (const c of counters)
      for (const l of formatProfile(
        `profile (5) ${c.name}, each of the ${c.requests} wallets once at concurrency 1, with engine counters:`,
        c.profile,
      ))
        record(l);
    record(
      `load average at end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const p99Of = (name: string) => {
      const t = timings.find((x) => x.name === name);
      return t && t.status === 200 && t.others === 0 ? t.p99.toFixed(1) : 'n/a';
    };
    const summary = [
      `recompute_s=${recomputeS.toFixed(1)}`,
      `peak_rss_mib=${(peak.rss / MIB).toFixed(0)}`,
      `incremental_block_p50_ms=${Number.isFinite(incP50) ? incP50.toFixed(0) : 'n/a'}`,
      `incremental_block_p99_ms=${Number.isFinite(incP99) ? incP99.toFixed(0) : 'n/a'}`,
      `profiles_s=${profilesS.toFixed(1)}`,
      `wallet_positions_p99_ms=${p99Of('wallet positions')}`,
      `wallet_pnl_p99_ms=${p99Of('wallet pnl, day')}`,
    ];
    record(`SUMMARY positions ${summary.join(' ')}`);
  } finally {
    await world.close();
  }
}

/**
 * The wallets the API requests cycle over: the 4 with the most positions, 4 at the 90th percentile, and
 * 8 quiet ones at the median (open positions counted; ties by address).
 */
async function walletMix(ch: ClickHouse): Promise<{ wallets: string[]; describe: string }> {
  const rows = await ch.read<[string, string]>(
    'bench.positions.mix',
    `SELECT wallet, toString(count()) AS c FROM alpha_positions FINAL WHERE shares > 0
     GROUP BY wallet ORDER BY count() DESC, wallet`,
  );
  if (rows.length === 0) throw new Error('no wallet holds a position');
  const at = (q: number, k: number) => {
    const i = Math.min(rows.length - k, Math.floor(q * rows.length));
    return rows.slice(Math.max(0, i), Math.max(0, i) + k);
  };
  const picked = [...at(0, 4), ...at(0.1, 4), ...at(0.5, 8)];
  const counts = picked.map(([, c]) => Number(c));
  return {
    wallets: picked.map(([w]) => w),
    describe: `open positions ${counts.slice(0, 4).join('/')} (busiest 4), ${counts.slice(4, 8).join('/')} (90th percentile), ${counts.slice(8).join('/')} (median) of ${n(rows.length)} holders`,
  };
}
