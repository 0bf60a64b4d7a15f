import os from 'node:os';
import { parseArgs } from 'node:util';
import { recomputeMarketData, runMarketData } from '../analytics/market-data/run.ts';
import { runRolling } from '../analytics/rolling-metrics/run.ts';
import type { AlphaAnalyticsSettings } from '../analytics/shared/settings.ts';
import { buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { createDataVersions } from '../core/data-version.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import {
  type ApiTiming,
  apiKinds,
  routeMissing,
  statementCells,
  timeKindProfiled,
  timingCells,
} from './analytics/api.ts';
import { appendBlock, busiest, generate, type Shape, timeOfBlock } from './analytics/data.ts';
import { addUp, createProfiler, formatProfile, type LabelStats, settleMerges } from './analytics/profile.ts';
import { openBenchWorld } from './support/world.ts';

const DERIVED_TABLES = [
  'alpha_token_candles_1m',
  'alpha_token_candles_1h',
  'alpha_token_candles_1d',
  'alpha_condition_candles_1m',
  'alpha_condition_candles_1h',
  'alpha_condition_candles_1d',
  'alpha_oi_deltas_1h',
  'alpha_market_totals',
  'alpha_market_rolling',
];
const SOURCE_TABLES = [
  'alpha_fills',
  'alpha_ctf_supply',
  'alpha_lifecycle',
  'alpha_tokens',
  'alpha_neg_risk_markets',
  'alpha_blocks',
];

const n = (v: number | string) => Number(v).toLocaleString('en-US');
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      fills: { type: 'string', default: '10000000' },
      days: { type: 'string', default: '60' },
      conditions: { type: 'string', default: '5000' },
      incremental: { type: 'string', default: '30' },
      'block-fills': { type: 'string', default: '500' },
      requests: { type: 'string', default: '200' },
    },
  });
  const shape: Shape = {
    fills: Number(values.fills),
    days: Number(values.days),
    conditions: Number(values.conditions),
  };
  const incremental = Number(values.incremental);
  const blockFills = Number(values['block-fills']);
  const requests = Number(values.requests);
  for (const [k, v] of Object.entries({ ...shape, incremental, blockFills, requests })) {
    if (!Number.isInteger(v) || v < (k === 'incremental' ? 0 : 1))
      throw new Error(`--${k} must be a positive integer`);
  }
  if (shape.conditions < 10) throw new Error('--conditions must be at least 10');
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const loadAtStart = os.loadavg();

  const world = await openBenchWorld('analytics');
  const { log, config, clickhouse, redis } = world;
  try {
    const chain = alphaChainSettings(config);
    const settings: AlphaAnalyticsSettings = {
      chainId: chain.chainId,
      usdcE: chain.roles.usdcE.toLowerCase(),
      finalityDepth: chain.finalityDepth,
    };
    record(
      `analytics benchmark: ${n(shape.fills)} maker fills over ${shape.days} days, ${n(shape.conditions)} conditions; ` +
        `embedded chDB, ${os.cpus().length} cores, load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
    );

    // The chain.
    const g0 = performance.now();
    const generated = await generate(clickhouse, shape, (l) => record(l));
    const genS = (performance.now() - g0) / 1000;
    const counts: string[] = [];
    for (const t of SOURCE_TABLES) {
      const [c] = await clickhouse.query<{ c: string }>(
        'bench.analytics.count',
        `SELECT count() AS c FROM ${t}`,
      );
      counts.push(`${t} ${n(c!.c)}`);
    }
    record(`data: ${counts.join(', ')} (generated in ${genS.toFixed(1)} s)`);
    const top = await busiest(clickhouse);
    record(
      `busiest condition ${top.conditionId}: ${n(top.fills)} maker fills (${((100 * top.fills) / shape.fills).toFixed(1)} %), busiest token ${top.tokenId}`,
    );
    const settled = await settleMerges(clickhouse, 180);
    record(
      settled.running === 0
        ? `background merges settled in ${settled.s.toFixed(1)} s before timing`
        : `${settled.running} background merges still running after ${settled.s.toFixed(0)} s: timing starts beside them`,
    );

    const profiler = createProfiler(clickhouse);
    const deps = { clickhouse: profiler.clickhouse, log, versions: createDataVersions({ redis }) };

    // (a) Full build.
    record('');
    profiler.start({ events: true });
    const b0 = performance.now();
    const built = await recomputeMarketData(deps, settings);
    const buildS = (performance.now() - b0) / 1000;
    const buildProfile = profiler.stop();
    record(`(a) full build (recomputeMarketData): ${buildS.toFixed(1)} s — ${JSON.stringify(built)}`);
    for (const t of DERIVED_TABLES.filter((t) => t !== 'alpha_market_rolling')) {
      const [c] = await clickhouse.query<{ c: string }>(
        'bench.analytics.count',
        `SELECT count() AS c FROM ${t} FINAL`,
      );
      record(`    ${t.padEnd(28)} ${n(c!.c).padStart(12)} rows`);
    }

    // (b) Rolling refresh, twice.
    const rollingS: number[] = [];
    let rollingProfile: LabelStats[] = [];
    for (let i = 0; i < 2; i++) {
      profiler.start({ events: i === 0 });
      const r0 = performance.now();
      await runRolling(deps, settings);
      rollingS.push((performance.now() - r0) / 1000);
      const p = profiler.stop();
      if (i === 0) rollingProfile = p;
    }
    const [rollingRows] = await clickhouse.query<{ c: string }>(
      'bench.analytics.count',
      'SELECT count() AS c FROM alpha_market_rolling FINAL',
    );
    record(
      `(b) rolling refresh (runRolling): ${rollingS.map((s) => `${s.toFixed(2)} s`).join(', ')} — alpha_market_rolling ${n(rollingRows!.c)} rows (target < 5 s)`,
    );

    // (c) Incremental: one new block at a time.
    const incMs: number[] = [];
    const incRuns: LabelStats[][] = [];
    let block = generated.lastBlock;
    let updatedMs = Date.now();
    const append = async (index: number) => {
      block++;
      updatedMs = Math.max(Date.now(), updatedMs + 1);
      await appendBlock(clickhouse, shape, { block, index, fills: blockFills, updatedMs });
    };
    for (let i = 0; i < incremental; i++) {
      await append(i);
      profiler.start();
      const i0 = performance.now();
      await runMarketData(deps, settings);
      incMs.push(performance.now() - i0);
      incRuns.push(profiler.stop());
    }
    let incProfile: LabelStats[] = [];
    if (incremental > 0) {
      // One more block, profiled with the engine's counters (not among the timed runs).
      await append(incremental);
      profiler.start({ events: true });
      await runMarketData(deps, settings);
      incProfile = profiler.stop();
    }
    const incSorted = [...incMs].sort((a, b) => a - b);
    const incP95 = incremental > 0 ? pct(incSorted, 95) : Number.NaN;
    if (incremental > 0) {
      record(
        `(c) incremental (runMarketData per new block of ${blockFills} maker fills, ${incremental} blocks): ` +
          `p50 ${pct(incSorted, 50).toFixed(0)} ms, p95 ${incP95.toFixed(0)} ms, max ${incSorted.at(-1)!.toFixed(0)} ms (target < 200 ms); ` +
          `in order: ${incMs.map((m) => m.toFixed(0)).join(' ')}`,
      );
      record(`    ${await checkTotals(clickhouse, top.conditionId)}`);
    }

    // (d) API.
    record('');
    const apiTimings: ApiTiming[] = [];
    // The app's statements go through the profiler too: their time per request beside its latency.
    const app = await buildApp({
      config,
      log,
      clickhouse: profiler.clickhouse,
      redis,
      secret: 'bench-analytics-secret-0123456789abcdef',
    });
    try {
      await app.ready();
      const { key } = await createKeyStore(redis).create({
        tier: 'enterprise',
        name: 'bench',
        rate: 1_000_000,
      });
      const kinds = apiKinds({
        conditionId: top.conditionId,
        tokenId: top.tokenId,
        lastTime: timeOfBlock(block),
      });
      const missing: string[] = [];
      for (const k of kinds) if (await routeMissing(app, key, k.url)) missing.push(k.name);
      if (missing.length === kinds.length) {
        record('api: routes not present');
      } else {
        record(
          `(d) API, busiest market, ${requests} sequential requests per kind through app.inject (auth, limiter, validation, handler), response cache off (API_CACHE_BYTES=0), same URL each time:`,
        );
        record(
          `    ${'kind'.padEnd(30)} status  items    bytes  p50 ms  p99 ms  max ms   stmt ms  stmts  (per request: Σ wall ms of its statements, which may overlap, and their count; labels)`,
        );
        for (const k of kinds) {
          if (missing.includes(k.name)) {
            record(`    ${k.name.padEnd(30)} route not present (${k.url})`);
            continue;
          }
          const t = await timeKindProfiled(app, key, k, requests, profiler);
          apiTimings.push(t);
          record(`    ${t.name.padEnd(30)} ${timingCells(t)} ${statementCells(t)}  ${t.labels.join(', ')}`);
        }
      }
    } finally {
      await app.close();
    }

    record('');
    for (const l of formatProfile('profile (a) full build, by statement label:', buildProfile)) record(l);
    for (const l of formatProfile('profile (b) first rolling refresh:', rollingProfile)) record(l);
    if (incremental > 0) {
      for (const l of formatProfile(
        `profile (c) ${incremental} timed incremental runs, added up:`,
        addUp(incRuns),
      ))
        record(l);
      for (const l of formatProfile(
        'profile (c) one more incremental run, with engine counters:',
        incProfile,
      ))
        record(l);
    }
    record(
      `load average at end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const ok = apiTimings.filter((t) => t.status === 200);
    const summary = [
      `fills=${(shape.fills / 1e6).toFixed(1)}M`,
      `days=${shape.days}`,
      `build_s=${buildS.toFixed(1)}`,
      `rolling_s=${Math.max(...rollingS).toFixed(2)}`,
      `incr_p95_ms=${Number.isFinite(incP95) ? incP95.toFixed(0) : 'n/a'}`,
      `api_p99_ms_max=${ok.length > 0 ? Math.max(...ok.map((t) => t.p99)).toFixed(1) : 'n/a'}`,
    ];
    if (ok.length < apiTimings.length || apiTimings.length === 0) summary.push(`api_ok=${ok.length}/7`);
    record(`SUMMARY analytics ${summary.join(' ')}`);
  } finally {
    await world.close();
  }
}

/** The busiest condition's all-time trades and volume in the derived totals against the maker fills. */
async function checkTotals(ch: ClickHouse, conditionId: string): Promise<string> {
  const [row] = await ch.query<{ ft: string; fv: string; tt: string | null; tv: string | null }>(
    'bench.analytics.check',
    `SELECT
       (SELECT count() FROM alpha_fills WHERE role = 'maker' AND condition_id = {c:String}) AS ft,
       (SELECT sum(usd) FROM alpha_fills WHERE role = 'maker' AND condition_id = {c:String}) AS fv,
       (SELECT any(trades) FROM alpha_market_totals FINAL WHERE level = 'condition' AND id = {c:String}) AS tt,
       (SELECT any(volume) FROM alpha_market_totals FINAL WHERE level = 'condition' AND id = {c:String}) AS tv`,
    { c: conditionId },
  );
  const same = row!.ft === row!.tt && row!.fv === row!.tv;
  return `check after the incremental runs: busiest condition totals ${same ? 'equal' : 'DIFFER FROM'} its maker fills (trades ${n(row!.ft)} / ${row!.tt === null ? 'none' : n(row!.tt)}, volume ${row!.fv} / ${row!.tv ?? 'none'})`;
}
