/**
 * Acceptance of venue alpha's market analytics (analytics/; docs/analytics.md) against the simulated
 * world: the whole sim chain is backfilled, the derived tables are computed, and every figure is
 * compared with a ground truth computed here, never from the tables under test:
 * - the sim ledger's maker fills (ledger order = chain order): totals per token and condition, every
 *   1-minute candle, the 5/15-minute rollups of the 1-minute table (grouped as the API groups them), the
 *   1-hour and 1-day tables, condition candles in YES terms, rolling windows;
 * - open interest: alpha-chain.md §7.2 applied to the chain's own ConditionalTokens and NegRiskAdapter
 *   logs, decoded with viem.
 * GET /v2/alpha/market-price answers the rule (last 5 maker fills of both tokens, complement at 1 − p;
 * USD-weighted mean within 0.10, else the last price) computed exactly from the ledger at many at_times.
 * Then the same tables built incrementally (a follow checkpoint moved forward in steps, small
 * `stepBlocks`) equal the full recomputation, and a rerun changes nothing.
 *
 * The world trades every 150 s (not the default hour) so that minutes, 5/15-minute periods and hours
 * differ; after its history one extra transaction converts a single NO position (noCount 1), which the
 * sim's own housekeeping never does.
 */
import {
  createPublicClient,
  decodeEventLog,
  encodeFunctionData,
  type Hex,
  http,
  type Log,
  parseAbi,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetAnalyticsCheckpoint, readAnalyticsCheckpoint } from '../analytics/market-data/progress.ts';
import { type MarketDataRun, recomputeMarketData, runMarketData } from '../analytics/market-data/run.ts';
import { runRolling } from '../analytics/rolling-metrics/run.ts';
import type { AlphaAnalyticsSettings } from '../analytics/shared/settings.ts';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { roundPrice } from '../api/queries/alpha/market-data.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_ADDRESS_SETS, ALPHA_ROLES } from '../schemas/abi/alpha-addresses.ts';
import { eventAbi } from '../schemas/abi/alpha-events.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

type Row = Record<string, string | number | null>;

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
const lc = (s: unknown) => String(s).toLowerCase();

// ---------------------------------------------------------------------------------------------- truth

/** A maker fill of the sim ledger. */
interface Fill {
  time: number;
  token: string;
  condition: string;
  outcome: 0 | 1;
  buy: boolean;
  usd: bigint;
  shares: bigint;
}

const priceOf = (f: Fill) => Number(f.usd) / Number(f.shares);

interface Candle {
  open: number;
  high: number;
  low: number;
  close: number;
  first: number;
  last: number;
  usd: bigint;
  shares: bigint;
  trades: number;
  buys: number;
  sells: number;
  buyUsd: bigint;
  sellUsd: bigint;
  /** Condition level only. */
  yesValue: bigint;
  yesUsd: bigint;
  noUsd: bigint;
}

/**
 * Candles of `width` seconds per token or per condition (YES terms), fills in ledger order (the first
 * of a bucket is its open, the last its close). Key: `${id}|${bucket start}`.
 */
function candlesOf(fills: readonly Fill[], level: 'token' | 'condition', width: number): Map<string, Candle> {
  const out = new Map<string, Candle>();
  for (const f of fills) {
    const id = level === 'token' ? f.token : f.condition;
    const key = `${id}|${Math.floor(f.time / width) * width}`;
    const p = level === 'condition' && f.outcome === 1 ? 1 - priceOf(f) : priceOf(f);
    let c = out.get(key);
    if (!c) {
      c = {
        open: p,
        high: p,
        low: p,
        close: p,
        first: f.time,
        last: f.time,
        usd: 0n,
        shares: 0n,
        trades: 0,
        buys: 0,
        sells: 0,
        buyUsd: 0n,
        sellUsd: 0n,
        yesValue: 0n,
        yesUsd: 0n,
        noUsd: 0n,
      };
      out.set(key, c);
    }
    c.high = Math.max(c.high, p);
    c.low = Math.min(c.low, p);
    c.close = p;
    c.last = f.time;
    c.usd += f.usd;
    c.shares += f.shares;
    c.trades++;
    if (f.buy) {
      c.buys++;
      c.buyUsd += f.usd;
    } else {
      c.sells++;
      c.sellUsd += f.usd;
    }
    // YES price × shares in base units: a YES fill's usd, a NO fill's shares − usd.
    c.yesValue += f.outcome === 0 ? f.usd : f.shares - f.usd;
    if (f.outcome === 0) c.yesUsd += f.usd;
    else c.noUsd += f.usd;
  }
  return out;
}

/** The integer figures of a candle (compared exactly), as strings. */
function flowOf(c: Candle, level: 'token' | 'condition'): Record<string, string> {
  const base = {
    first: String(c.first * 1000),
    last: String(c.last * 1000),
    usd: String(c.usd),
    shares: String(c.shares),
    trades: String(c.trades),
    buys: String(c.buys),
    sells: String(c.sells),
    buy_usd: String(c.buyUsd),
    sell_usd: String(c.sellUsd),
  };
  if (level === 'token') return base;
  return { ...base, yes_value: String(c.yesValue), yes_usd: String(c.yesUsd), no_usd: String(c.noUsd) };
}

/** One supply event §7.2 counts: a change of a condition's open interest. */
interface OiEvent {
  condition: string;
  block: number;
  time: number;
  delta: bigint;
}

interface OiTruth {
  events: OiEvent[];
  /** What the chain exercised (asserted, and reported). */
  stats: {
    exchangeSplits: number;
    exchangeMerges: number;
    adapterSplits: number;
    adapterMerges: number;
    adapterRedemptions: number;
    ctfRedemptions: number;
    ignoredCtf: number;
    feeBips: number[];
    /** `${noCount}/${questionCount}` → conversions. */
    conversions: Record<string, number>;
    /** Conversions with noCount ≥ 2 and a nonzero fee. */
    conversionsWithFee: number;
  };
}

const popcount = (n: bigint) => n.toString(2).split('1').length - 1;

/** alpha-chain.md §7.2 over the chain's ConditionalTokens and NegRiskAdapter logs, decoded with viem. */
async function oiTruth(rpcUrl: string, head: number): Promise<OiTruth> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const ctf = lc(ALPHA_ROLES.conditionalTokens);
  const nra = lc(ALPHA_ROLES.negRiskAdapter);
  const usdcE = lc(ALPHA_ROLES.usdcE);
  const exchanges = new Set(
    [...ALPHA_ADDRESS_SETS.v1, ...ALPHA_ADDRESS_SETS.v2, ...ALPHA_ADDRESS_SETS.adapters]
      .filter((c) => c.kind !== 'collateralRamp')
      .map((c) => lc(c.address)),
  );
  const logs = await client.getLogs({
    address: [ALPHA_ROLES.conditionalTokens, ALPHA_ROLES.negRiskAdapter],
    fromBlock: 0n,
    toBlock: BigInt(head),
  });
  logs.sort(
    (a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex),
  );
  const decoded: { log: Log; name: string; args: Record<string, unknown>; from: 'ctf' | 'nra' }[] = [];
  for (const log of logs) {
    const address = lc(log.address);
    if (address !== ctf && address !== nra) continue;
    const from = address === ctf ? 'ctf' : 'nra';
    const abi = eventAbi(from === 'ctf' ? 'conditionalTokens' : 'negRiskAdapter');
    try {
      const d = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      decoded.push({ log, name: d.eventName as string, args: d.args as Record<string, unknown>, from });
    } catch {
      // A log of an event §7.2 does not read (and the ABI does not list).
    }
  }
  // Reference facts first: conditions (slots, question), markets (fee, questions).
  const slots = new Map<string, number>();
  const conditionOfQuestion = new Map<string, string>();
  const feeBips = new Map<string, bigint>();
  const questions = new Map<string, number>();
  for (const { name, args, from } of decoded) {
    if (from === 'ctf' && name === 'ConditionPreparation') {
      slots.set(lc(args.conditionId), Number(args.outcomeSlotCount));
      conditionOfQuestion.set(lc(args.questionId), lc(args.conditionId));
    } else if (from === 'nra' && name === 'MarketPrepared') {
      feeBips.set(lc(args.marketId), args.feeBips as bigint);
    } else if (from === 'nra' && name === 'QuestionPrepared') {
      questions.set(lc(args.marketId), (questions.get(lc(args.marketId)) ?? 0) + 1);
    }
  }
  // Block times of the blocks with supply events.
  const times = new Map<number, number>();
  const supplyBlocks = [...new Set(decoded.map((d) => Number(d.log.blockNumber)))];
  for (let i = 0; i < supplyBlocks.length; i += 64) {
    await Promise.all(
      supplyBlocks.slice(i, i + 64).map(async (n) => {
        const b = await client.getBlock({ blockNumber: BigInt(n) });
        times.set(n, Number(b.timestamp));
      }),
    );
  }
  const stats: OiTruth['stats'] = {
    exchangeSplits: 0,
    exchangeMerges: 0,
    adapterSplits: 0,
    adapterMerges: 0,
    adapterRedemptions: 0,
    ctfRedemptions: 0,
    ignoredCtf: 0,
    feeBips: [...new Set([...feeBips.values()].map(Number))].sort((a, b) => a - b),
    conversions: {},
    conversionsWithFee: 0,
  };
  const events: OiEvent[] = [];
  for (const { log, name, args, from } of decoded) {
    const block = Number(log.blockNumber);
    const at = (condition: string, delta: bigint) =>
      events.push({ condition, block, time: times.get(block) as number, delta });
    if (from === 'ctf') {
      if (name !== 'PositionSplit' && name !== 'PositionsMerge' && name !== 'PayoutRedemption') continue;
      const condition = lc(args.conditionId);
      if (lc(args.collateralToken) !== usdcE || slots.get(condition) !== 2) {
        stats.ignoredCtf++;
        continue;
      }
      if (name === 'PositionSplit') {
        if (exchanges.has(lc(args.stakeholder))) stats.exchangeSplits++;
        at(condition, args.amount as bigint);
      } else if (name === 'PositionsMerge') {
        if (exchanges.has(lc(args.stakeholder))) stats.exchangeMerges++;
        at(condition, -(args.amount as bigint));
      } else {
        stats.ctfRedemptions++;
        at(condition, -(args.payout as bigint));
      }
      continue;
    }
    if (name === 'PositionSplit') {
      stats.adapterSplits++;
      at(lc(args.conditionId), args.amount as bigint);
    } else if (name === 'PositionsMerge') {
      stats.adapterMerges++;
      at(lc(args.conditionId), -(args.amount as bigint));
    } else if (name === 'PayoutRedemption') {
      stats.adapterRedemptions++;
      at(lc(args.conditionId), -(args.payout as bigint));
    } else if (name === 'PositionsConverted') {
      const market = lc(args.marketId);
      const indexSet = args.indexSet as bigint;
      const amount = args.amount as bigint;
      const n = popcount(indexSet);
      const label = `${n}/${questions.get(market)}`;
      stats.conversions[label] = (stats.conversions[label] ?? 0) + 1;
      if (n < 2) continue;
      const N = BigInt(n);
      const fee = (amount * (feeBips.get(market) ?? 0n)) / 10_000n;
      if (fee > 0n) stats.conversionsWithFee++;
      const delta = -(((N - 1n) * fee) / N) - ((N - 1n) * (amount - fee)) / N;
      for (let i = 0; i < 256; i++) {
        if (((indexSet >> BigInt(i)) & 1n) === 0n) continue;
        const question = `${market.slice(0, 64)}${i.toString(16).padStart(2, '0')}`;
        const condition = conditionOfQuestion.get(question);
        if (!condition) throw new Error(`no condition prepared for question ${question}`);
        at(condition, delta);
      }
    }
  }
  return { events, stats };
}

/** Σ of `value` per key. */
function sumBy<T>(items: readonly T[], key: (t: T) => string, value: (t: T) => bigint): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const t of items) out.set(key(t), (out.get(key(t)) ?? 0n) + value(t));
  return out;
}

// ---------------------------------------------------------------------------------------------- setup

let deps: TestDeps;
let sim: Sim;
let settings: AlphaAnalyticsSettings;
let head: number;
let headTime: number;
let fills: Fill[];
let oi: OiTruth;
/** Token → condition, from the ledger. */
const conditionOf = new Map<string, string>();

/**
 * Converts a single NO position of a neg-risk market (noCount 1) in a block of its own after the
 * history: a holder with at least 2 NO shares of a question of an event with ≥ 2 questions.
 */
async function convertOneNo(s: Sim): Promise<void> {
  const alpha = s.catalog.venues.alpha;
  const events = new Map(alpha.events.map((e) => [e.key, e]));
  for (const m of alpha.markets) {
    const event = events.get(m.eventKey);
    if (!m.alpha?.negRisk || !event?.negRiskMarketId || event.marketKeys.length < 2) continue;
    const holder = s.wallets.wallets.find(
      (w) => s.ledger.balance1155(m.tokenIds[1], w.address) >= 2_000_000n,
    );
    if (!holder) continue;
    const amount = s.ledger.balance1155(m.tokenIds[1], holder.address) / 2n;
    const index = Number.parseInt(m.alpha.questionId.slice(-2), 16);
    const data = encodeFunctionData({
      abi: parseAbi(['function convertPositions(bytes32 marketId, uint256 indexSet, uint256 amount)']),
      functionName: 'convertPositions',
      args: [event.negRiskMarketId, 1n << BigInt(index), amount],
    });
    const hash = await s.anvil.rpc<Hex>('eth_sendTransaction', [
      { from: holder.address, to: ALPHA_ROLES.negRiskAdapter, data, gas: '0x989680', gasPrice: '0x0' },
    ]);
    const last = await s.anvil.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
    await s.anvil.rpc('evm_setNextBlockTimestamp', [Number(last.timestamp) + 90]);
    await s.anvil.rpc('evm_mine', []);
    const receipt = await s.anvil.rpc<{ status: Hex }>('eth_getTransactionReceipt', [hash]);
    expect(receipt.status, 'the noCount-1 conversion reverted').toBe('0x1');
    return;
  }
  throw new Error('no NO position to convert alone');
}

beforeAll(async () => {
  [deps, sim] = await Promise.all([
    createTestDeps('analytics_sim'),
    startSim({
      seed: 'analytics-acceptance',
      size: 'small',
      replicas: false,
      stepSeconds: 150,
      matchesPerMarketDay: 16,
      housekeeping: 0.2,
    }),
  ]);
  await convertOneNo(sim);
  const ledger = sim.exportLedger();
  fills = ledger.fills
    .filter((f) => f.role === 'maker')
    .map((f) => ({
      time: Number(f.time),
      token: String(f.tokenId),
      condition: lc(f.conditionId),
      outcome: Number(f.outcomeIndex) as 0 | 1,
      buy: f.side === 'buy',
      usd: BigInt(f.usd as string),
      shares: BigInt(f.shares as string),
    }));
  for (const f of fills) conditionOf.set(f.token, f.condition);
  const top = await sim.anvil.rpc<{ number: Hex; timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
  head = Number(top.number);
  headTime = Number(top.timestamp);
  const chainSettings = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });
  settings = {
    chainId: chainSettings.chainId,
    usdcE: chainSettings.roles.usdcE.toLowerCase(),
    finalityDepth: chainSettings.finalityDepth,
  };
  [oi] = await Promise.all([oiTruth(sim.rpcUrl, head), recomputeMarketData(deps, settings)]);
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
});

// ---------------------------------------------------------------------------------------------- reads

const query = (sql: string, params: Record<string, unknown> = {}) =>
  deps.clickhouse.query<Row>('test.analytics', sql, params);

const CANDLE_FIELDS = (level: 'token' | 'condition') =>
  `open, high, low, close, toUnixTimestamp64Milli(first_time) AS first, toUnixTimestamp64Milli(last_time) AS last,
   toString(usd) AS usd, toString(shares) AS shares, toString(trades) AS trades, toString(buys) AS buys,
   toString(sells) AS sells, toString(buy_usd) AS buy_usd, toString(sell_usd) AS sell_usd
   ${level === 'condition' ? ', toString(yes_value) AS yes_value, toString(yes_usd) AS yes_usd, toString(no_usd) AS no_usd' : ''}`;

/** Every row of a candle table (FINAL). */
function candleTable(level: 'token' | 'condition', res: '1m' | '1h' | '1d') {
  const key = level === 'token' ? 'token_id' : 'condition_id';
  return query(
    `SELECT ${key} AS id, toUnixTimestamp(bucket) AS b, ${CANDLE_FIELDS(level)}
     FROM alpha_${level}_candles_${res} FINAL ORDER BY id, b`,
  );
}

/**
 * The 1-minute table rolled up into `width`-second periods as the API does: grouped by
 * intDiv(toUnixTimestamp(bucket), width); open of the earliest child, close of the latest, max, min, sums.
 */
function rolledUp(level: 'token' | 'condition', width: number) {
  const key = level === 'token' ? 'token_id' : 'condition_id';
  const condition = level === 'condition';
  return query(
    `SELECT id, b, open, high, low, close, toUnixTimestamp64Milli(first_time) AS first,
       toUnixTimestamp64Milli(last_time) AS last, toString(usd) AS usd, toString(shares) AS shares,
       toString(trades) AS trades, toString(buys) AS buys, toString(sells) AS sells,
       toString(buy_usd) AS buy_usd, toString(sell_usd) AS sell_usd
       ${condition ? ', toString(yes_value) AS yes_value, toString(yes_usd) AS yes_usd, toString(no_usd) AS no_usd' : ''}
     FROM (
       SELECT ${key} AS id, intDiv(toUnixTimestamp(bucket), {w:UInt32}) * {w:UInt32} AS b,
         argMin(open, bucket) AS open, max(high) AS high, min(low) AS low, argMax(close, bucket) AS close,
         min(first_time) AS first_time, max(last_time) AS last_time, sum(usd) AS usd, sum(shares) AS shares,
         sum(trades) AS trades, sum(buys) AS buys, sum(sells) AS sells, sum(buy_usd) AS buy_usd,
         sum(sell_usd) AS sell_usd
         ${condition ? ', sum(yes_value) AS yes_value, sum(yes_usd) AS yes_usd, sum(no_usd) AS no_usd' : ''}
       FROM alpha_${level}_candles_1m FINAL GROUP BY id, b)
     ORDER BY id, b`,
    { w: width },
  );
}

/** Compares candle rows with the truth: the same (id, bucket) set, integers exactly, prices to 1e-9. */
function expectCandles(rows: Row[], truth: Map<string, Candle>, level: 'token' | 'condition', what: string) {
  expect(rows.map((r) => `${r.id}|${r.b}`).sort(), `${what}: buckets`).toEqual([...truth.keys()].sort());
  for (const r of rows) {
    const key = `${r.id}|${r.b}`;
    const t = truth.get(key) as Candle;
    const { open, high, low, close, id: _id, b: _b, ...flow } = r;
    expect(
      Object.fromEntries(Object.entries(flow).map(([k, v]) => [k, String(v)])),
      `${what} ${key}`,
    ).toEqual(flowOf(t, level));
    expect(Number(open), `${what} ${key} open`).toBeCloseTo(t.open, 9);
    expect(Number(high), `${what} ${key} high`).toBeCloseTo(t.high, 9);
    expect(Number(low), `${what} ${key} low`).toBeCloseTo(t.low, 9);
    expect(Number(close), `${what} ${key} close`).toBeCloseTo(t.close, 9);
    // The share-weighted mean the API serves: usd / shares (token), yes_value / shares (condition).
    const mean = Number(level === 'token' ? r.usd : r.yes_value) / Number(r.shares);
    const truthMean = Number(level === 'token' ? t.usd : t.yesValue) / Number(t.shares);
    expect(mean, `${what} ${key} mean`).toBeCloseTo(truthMean, 9);
  }
}

// ---------------------------------------------------------------------------------------------- tests

describe('alpha market analytics against the sim ground truth', () => {
  it('covers a world with trades in many minutes, exchange mints and merges, adapter actions and conversions', () => {
    const minutes = new Set(fills.map((f) => Math.floor(f.time / MINUTE)));
    const fiveMinutes = new Set(fills.map((f) => Math.floor(f.time / 300)));
    expect(fills.length).toBeGreaterThan(1000);
    // Several traded minutes share a 5-minute period, and several 5-minute periods an hour.
    expect(minutes.size).toBeGreaterThan(fiveMinutes.size);
    expect(fiveMinutes.size).toBeGreaterThan(new Set(fills.map((f) => Math.floor(f.time / HOUR))).size);
    expect(new Set(fills.map((f) => f.outcome))).toEqual(new Set([0, 1]));
    const s = oi.stats;
    expect(s.exchangeSplits, 'exchange MINT matches (CTF split by an exchange)').toBeGreaterThan(0);
    expect(s.exchangeMerges, 'exchange MERGE matches (CTF merge by an exchange)').toBeGreaterThan(0);
    expect(s.ctfRedemptions).toBeGreaterThan(0);
    expect(s.adapterSplits).toBeGreaterThan(0);
    expect(s.adapterMerges).toBeGreaterThan(0);
    expect(s.adapterRedemptions).toBeGreaterThan(0);
    expect(s.ignoredCtf, 'WCOL-collateralized CTF events (neg-risk) not counted').toBeGreaterThan(0);
    const byCount = (pred: (n: number, q: number) => boolean) =>
      Object.entries(s.conversions)
        .filter(([k]) => pred(...(k.split('/').map(Number) as [number, number])))
        .reduce((a, [, v]) => a + v, 0);
    expect(
      byCount((n) => n === 1),
      'conversions of one NO position',
    ).toBeGreaterThan(0);
    expect(
      byCount((n) => n === 2),
      'conversions of two NO positions',
    ).toBeGreaterThan(0);
    expect(
      byCount((n, q) => n === q),
      'conversions of every question',
    ).toBeGreaterThan(0);
    expect(
      byCount((n, q) => n > 2 && n < q),
      'conversions of some questions',
    ).toBeGreaterThan(0);
    expect(s.conversionsWithFee, 'conversions that pay a fee').toBeGreaterThan(0);
    console.info(
      JSON.stringify({
        blocks: head,
        makerFills: fills.length,
        tokens: new Set(fills.map((f) => f.token)).size,
        conditions: new Set(fills.map((f) => f.condition)).size,
        minutes: minutes.size,
        candles: Object.fromEntries(
          (['token', 'condition'] as const).flatMap((level) =>
            [MINUTE, 300, 900, HOUR, DAY].map((w) => [`${level}_${w}s`, candlesOf(fills, level, w).size]),
          ),
        ),
        oiEvents: oi.events.length,
        oiConditions: new Set(oi.events.map((e) => e.condition)).size,
        ...s,
      }),
    );
  });

  it('holds all-time totals per token and per condition equal to the ledger, with current open interest', async () => {
    const rows = await query(
      `SELECT toString(level) AS level, id, toString(volume) AS volume, toString(buy_volume) AS buy_volume,
         toString(sell_volume) AS sell_volume, toString(trades) AS trades, toString(buys) AS buys,
         toString(sells) AS sells, toUnixTimestamp64Milli(first_trade_time) AS first,
         toUnixTimestamp64Milli(last_trade_time) AS last, toString(open_interest) AS open_interest
       FROM alpha_market_totals FINAL ORDER BY level, id`,
    );
    const currentOi = sumBy(
      oi.events,
      (e) => e.condition,
      (e) => e.delta,
    );
    const expected: Row[] = [];
    for (const level of ['condition', 'token'] as const) {
      const ids = new Set(fills.map((f) => (level === 'token' ? f.token : f.condition)));
      if (level === 'condition') for (const c of currentOi.keys()) ids.add(c);
      for (const id of ids) {
        const mine = fills.filter((f) => (level === 'token' ? f.token : f.condition) === id);
        const sum = (p: (f: Fill) => boolean) => String(mine.filter(p).reduce((a, f) => a + f.usd, 0n));
        const condition = level === 'token' ? (conditionOf.get(id) as string) : id;
        expected.push({
          level,
          id,
          volume: sum(() => true),
          buy_volume: sum((f) => f.buy),
          sell_volume: sum((f) => !f.buy),
          trades: String(mine.length),
          buys: String(mine.filter((f) => f.buy).length),
          sells: String(mine.filter((f) => !f.buy).length),
          // Ledger order is chain order: the first and last fills are the first and last trades.
          first: mine.length > 0 ? String((mine[0] as Fill).time * 1000) : null,
          last: mine.length > 0 ? String((mine.at(-1) as Fill).time * 1000) : null,
          open_interest: String(currentOi.get(condition) ?? 0n),
        });
      }
    }
    const norm = (r: Row) => ({
      ...r,
      first: r.first === null ? null : String(r.first),
      last: r.last === null ? null : String(r.last),
    });
    const sortKey = (r: Row) => `${r.level}|${r.id}`;
    expect(rows.map(norm).sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      expected.sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
    );
    // Some conditions move open interest without trades of their own in the ledger, or the other way.
    expect(expected.filter((r) => r.level === 'condition' && r.open_interest !== '0').length).toBeGreaterThan(
      0,
    );
  });

  for (const level of ['token', 'condition'] as const) {
    it(`holds every 1-minute ${level} candle equal to the ledger${level === 'condition' ? ' in YES terms' : ''}`, async () => {
      expectCandles(await candleTable(level, '1m'), candlesOf(fills, level, MINUTE), level, `${level} 1m`);
    });

    it(`rolls ${level} minutes up into 5 and 15 minutes as the truth aggregated alike`, async () => {
      for (const width of [300, 900]) {
        expectCandles(
          await rolledUp(level, width),
          candlesOf(fills, level, width),
          level,
          `${level} ${width}s`,
        );
      }
    });

    it(`holds the 1-hour and 1-day ${level} candles (60 and 1440 minutes) equal to the ledger`, async () => {
      expectCandles(await candleTable(level, '1h'), candlesOf(fills, level, HOUR), level, `${level} 1h`);
      expectCandles(await candleTable(level, '1d'), candlesOf(fills, level, DAY), level, `${level} 1d`);
    });
  }

  it('holds hourly open-interest deltas, every daily point and current open interest equal to §7.2 over the logs', async () => {
    const rows = await query(
      `SELECT condition_id AS id, toUnixTimestamp(bucket) AS b, toString(delta) AS delta, toString(events) AS events
       FROM alpha_oi_deltas_1h FINAL ORDER BY id, b`,
    );
    const hourKey = (e: OiEvent) => `${e.condition}|${Math.floor(e.time / HOUR) * HOUR}`;
    const hourly = sumBy(oi.events, hourKey, (e) => e.delta);
    const counts = sumBy(oi.events, hourKey, () => 1n);
    expect(Object.fromEntries(rows.map((r) => [`${r.id}|${r.b}`, `${r.delta} (${r.events})`]))).toEqual(
      Object.fromEntries([...hourly].map(([k, v]) => [k, `${v} (${counts.get(k)})`])),
    );
    // Daily points: OI at the end of each day from the first change on, carried forward.
    const days = await query(
      `SELECT condition_id AS id, toUnixTimestamp(toStartOfDay(bucket)) AS d, toString(sum(delta)) AS delta
       FROM alpha_oi_deltas_1h FINAL GROUP BY id, d ORDER BY id, d`,
    );
    const lastDay = Math.floor(headTime / DAY) * DAY;
    const points = (changes: Map<string, bigint>) => {
      const out: Record<string, string> = {};
      const byCondition = new Map<string, [number, bigint][]>();
      for (const [k, v] of changes) {
        const [c, d] = k.split('|') as [string, string];
        byCondition.set(c, [...(byCondition.get(c) ?? []), [Number(d), v]]);
      }
      for (const [c, list] of byCondition) {
        list.sort((a, b) => a[0] - b[0]);
        let level = 0n;
        let i = 0;
        for (let d = (list[0] as [number, bigint])[0]; d <= lastDay; d += DAY) {
          while (i < list.length && (list[i] as [number, bigint])[0] === d)
            level += (list[i++] as [number, bigint])[1];
          out[`${c}|${d}`] = String(level);
        }
      }
      return out;
    };
    const truthDays = sumBy(
      oi.events,
      (e) => `${e.condition}|${Math.floor(e.time / DAY) * DAY}`,
      (e) => e.delta,
    );
    const tableDays = new Map(days.map((r) => [`${r.id}|${r.d}`, BigInt(r.delta as string)]));
    const expected = points(truthDays);
    expect(points(tableDays)).toEqual(expected);
    expect(Object.keys(expected).length).toBeGreaterThan(new Set(oi.events.map((e) => e.condition)).size);
  });

  it('computes rolling windows at the newest block time equal to the ledger and §7.2', async () => {
    const run = await runRolling(deps, settings);
    expect(run.computedAt, 'computed_at = the newest block time').toBe(headTime * 1000);
    const rows = await query(
      `SELECT * EXCEPT (level, version, deleted, computed_at), toString(level) AS level,
         toUnixTimestamp64Milli(computed_at) AS computed_at
       FROM alpha_market_rolling FINAL ORDER BY level, id`,
    );
    const nowMinute = Math.floor(headTime / MINUTE) * MINUTE;
    const totals = await query('SELECT toString(level) AS level, id FROM alpha_market_totals FINAL');
    expect(rows.map((r) => `${r.level}|${r.id}`).sort()).toEqual(
      totals.map((r) => `${r.level}|${r.id}`).sort(),
    );
    const expected = rows.map((r) => {
      const level = r.level as 'token' | 'condition';
      const id = String(r.id);
      const out: Row = { level, id, computed_at: String(headTime * 1000) };
      for (const [name, width] of [
        ['1d', DAY],
        ['7d', 7 * DAY],
        ['30d', 30 * DAY],
      ] as const) {
        const inWindow = (t: number) => {
          const m = Math.floor(t / MINUTE) * MINUTE;
          return m > nowMinute - width && m <= nowMinute;
        };
        const mine = fills.filter(
          (f) => (level === 'token' ? f.token : f.condition) === id && inWindow(f.time),
        );
        const sum = (p: (f: Fill) => boolean) => String(mine.filter(p).reduce((a, f) => a + f.usd, 0n));
        out[`volume_${name}`] = sum(() => true);
        out[`buy_volume_${name}`] = sum((f) => f.buy);
        out[`sell_volume_${name}`] = sum((f) => !f.buy);
        out[`trades_${name}`] = String(mine.length);
        out[`buys_${name}`] = String(mine.filter((f) => f.buy).length);
        out[`sells_${name}`] = String(mine.filter((f) => !f.buy).length);
        const condition = level === 'token' ? conditionOf.get(id) : id;
        out[`oi_change_${name}`] = String(
          oi.events
            .filter((e) => e.condition === condition && inWindow(e.time))
            .reduce((a, e) => a + e.delta, 0n),
        );
      }
      return out;
    });
    const norm = (r: Row) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]));
    expect(rows.map(norm)).toEqual(expected.map(norm));
    // The 1-day window excludes earlier trades: it differs from the 30-day one somewhere.
    expect(expected.some((r) => r.volume_1d !== r.volume_30d)).toBe(true);
    expect(expected.some((r) => r.oi_change_1d !== r.oi_change_30d)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------- market price

/** A fill's price in `token`'s terms as an exact fraction: num / den (a complement fill at p is 1 − p). */
const termsOf = (f: Fill, token: string) => ({
  num: f.token === token ? f.usd : f.shares - f.usd,
  den: f.shares,
  usd: f.usd,
});

/**
 * The market price by its rule, exactly: the last 5 maker fills of the token's market (both tokens) at
 * or before `at` (ledger order = chain order); max − min ≤ 0.10 (compared as fractions) → their mean
 * weighted by USD, else the last price. Null when there is no such fill.
 */
function priceTruth(
  token: string,
  at: number,
): { price: number; branch: 'mean' | 'last'; mixed: boolean } | null {
  const condition = conditionOf.get(token);
  const last = fills.filter((f) => f.condition === condition && f.time <= at).slice(-5);
  if (last.length === 0) return null;
  const prices = last.map((f) => termsOf(f, token));
  // a/b − c/d ≤ 1/10  ⟺  10·(a·d − c·b) ≤ b·d (b, d > 0).
  const within = prices.every((x) =>
    prices.every((y) => 10n * (x.num * y.den - y.num * x.den) <= x.den * y.den),
  );
  const mixed = new Set(last.map((f) => f.token)).size > 1;
  if (within) {
    const usd = prices.reduce((a, x) => a + Number(x.usd), 0);
    const price = prices.reduce((a, x) => a + (Number(x.num) / Number(x.den)) * Number(x.usd), 0) / usd;
    return { price, branch: 'mean', mixed };
  }
  const newest = prices.at(-1) as { num: bigint; den: bigint };
  return { price: Number(newest.num) / Number(newest.den), branch: 'last', mixed };
}

/** A served price: the truth rounded to 6 decimals (docs/api.md), within half a unit of the 6th decimal. */
function expectPrice(served: number, truth: number, what: string): void {
  expect(served, what).toBe(roundPrice(served));
  expect(Math.abs(served - truth), what).toBeLessThanOrEqual(5e-7 + 1e-12);
}

describe('GET /v2/alpha/market-price against the sim ledger', () => {
  let app: App;
  let key: string;
  beforeAll(async () => {
    app = await buildApp({ ...deps, secret: TEST_SECRET });
    key = (
      await createKeyStore(deps.redis).create({ tier: 'enterprise', name: 'analytics-sim', rate: 1_000_000 })
    ).key;
  });
  afterAll(async () => {
    await app?.close();
  });
  const price = async (token: string, at?: number) => {
    const res = await app.inject({
      method: 'GET',
      url: `/v2/alpha/market-price/${token}${at === undefined ? '' : `?at_time=${at}`}`,
      headers: { 'x-api-key': key },
    });
    return { status: res.statusCode, body: res.json() as { price: number; at_time: number } };
  };

  it('answers the USD-weighted mean or the last price of the last 5 fills of both tokens, at any at_time', async () => {
    const seen = { mean: 0, last: 0, meanMixed: 0, lastMixed: 0, noToken: 0, notFound: 0, checked: 0 };
    for (const token of [...conditionOf.keys()].sort()) {
      const times = [
        ...new Set(fills.filter((f) => f.condition === conditionOf.get(token)).map((f) => f.time)),
      ];
      // Every 10th trade time of the market, and the second before it (its own fills not yet there).
      const ats = times.filter((_, i) => i % 10 === 0).flatMap((t) => [t, t - 1]);
      ats.push((times[0] as number) - 1, times.at(-1) as number);
      for (const at of ats) {
        const truth = priceTruth(token, at);
        const { status, body } = await price(token, at);
        seen.checked++;
        if (!truth) {
          expect(status, `token ${token} at ${at}: no fill yet`).toBe(404);
          seen.notFound++;
          continue;
        }
        expect(status, `token ${token} at ${at}`).toBe(200);
        expect(body.at_time).toBe(at);
        expectPrice(body.price, truth.price, `token ${token} at ${at} (${truth.branch})`);
        seen[truth.branch]++;
        if (truth.mixed) seen[truth.branch === 'mean' ? 'meanMixed' : 'lastMixed']++;
        if (truth.mixed && fills.find((f) => f.token === token)?.outcome === 1) seen.noToken++;
      }
    }
    console.info(JSON.stringify({ marketPrice: seen }));
    // Both branches, each with fills of both tokens among the five, NO tokens queried, and 404s before trading.
    expect(seen.meanMixed).toBeGreaterThan(0);
    expect(seen.lastMixed).toBeGreaterThan(0);
    expect(seen.noToken).toBeGreaterThan(0);
    expect(seen.notFound).toBeGreaterThan(0);
  }, 120_000);

  it("answers the price of now without at_time: the newest block's time, not the wall clock", async () => {
    for (const token of [...conditionOf.keys()].sort().slice(0, 8)) {
      const { status, body } = await price(token);
      expect(status).toBe(200);
      expect(body.at_time).toBe(headTime);
      expectPrice(body.price, (priceTruth(token, body.at_time) as { price: number }).price, token);
    }
  });
});

describe("alpha's series and defaults at the chain's now (the world lies months before the wall clock)", () => {
  let app: App;
  let key: string;
  beforeAll(async () => {
    app = await buildApp({ ...deps, secret: TEST_SECRET });
    key = (
      await createKeyStore(deps.redis).create({ tier: 'enterprise', name: 'series-sim', rate: 1_000_000 })
    ).key;
  });
  afterAll(async () => {
    await app?.close();
  });
  const get = async <T>(url: string): Promise<T> => {
    const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  };
  type VolumePoint = { timestamp: number; volume: number; buy_volume: number; sell_volume: number };
  type OiPoint = { timestamp: number; open_interest_usd: number };
  const usd = (v: bigint) => Number(v) / 1e6;

  it('lies months before the wall clock', () => {
    expect(Date.now() / 1000 - headTime).toBeGreaterThan(30 * DAY);
  });

  it('ends every default series at the newest block, pads no day after it, and takes start_time on a quiet token', async () => {
    const day = Math.floor(headTime / DAY) * DAY;
    const token = [...conditionOf.keys()].sort()[0] as string;
    const condition = conditionOf.get(token) as string;
    const volume = await get<{ end_time: number; volume_over_time: VolumePoint[] }>(
      `/v2/alpha/markets/${token}/volume`,
    );
    expect(volume.volume_over_time.at(-1)?.timestamp).toBe(day);
    const total = fills.filter((f) => f.token === token).reduce((s, f) => s + f.usd, 0n);
    expect(volume.volume_over_time.at(-1)?.volume).toBeCloseTo(usd(total), 6);
    const all = await get<{ volume_over_time: VolumePoint[] }>(
      `/v2/alpha/markets/${token}/volume?granularity=all`,
    );
    expect(all.volume_over_time.map((p) => p.timestamp)).toEqual([headTime]);
    const oi = await get<{ open_interest_over_time: OiPoint[] }>(
      `/v2/alpha/markets/${condition}/open_interest?granularity=all`,
    );
    expect(oi.open_interest_over_time.map((p) => p.timestamp)).toEqual([headTime]);
    const oiDays = await get<{ open_interest_over_time: OiPoint[] }>(
      `/v2/alpha/markets/${condition}/open_interest`,
    );
    expect(oiDays.open_interest_over_time.at(-1)?.timestamp).toBe(day);
    const wallet = sim.wallets.wallets[0]!.address.toLowerCase();
    const pnl = await get<{ end_time: number }>(`/v2/alpha/wallet/pnl/${wallet}?granularity=day`);
    expect(pnl.end_time).toBe(headTime);
    // A token the chain knows that never traded: an hour before now at interval=1 is a range, not a 400.
    const [quiet] = await query(
      `SELECT token_id AS id FROM alpha_tokens
       WHERE token_id NOT IN (SELECT id FROM alpha_market_totals FINAL WHERE level = 'token') LIMIT 1`,
    );
    expect(quiet, 'a token without trades').toBeDefined();
    const candles = await get<{ candlesticks: unknown[] }>(
      `/v2/alpha/candlesticks/token/${quiet!.id}?interval=1&start_time=${headTime - HOUR}`,
    );
    expect(candles.candlesticks).toEqual([]);
  });

  it('holds the volume up to end_time, to its second, nothing traded after it (all and the last day)', async () => {
    let cut = 0;
    for (const token of [...conditionOf.keys()].sort().slice(0, 6)) {
      const own = fills.filter((f) => f.token === token);
      const times = [...new Set(own.map((f) => f.time))];
      for (const t of times.filter((_, i) => i % 7 === 3).flatMap((x) => [x, x - 1])) {
        const upTo = own.filter((f) => f.time <= t);
        const sum = (pick: (f: Fill) => boolean) => usd(upTo.filter(pick).reduce((s, f) => s + f.usd, 0n));
        const truth = {
          volume: sum(() => true),
          buy_volume: sum((f) => f.buy),
          sell_volume: sum((f) => !f.buy),
        };
        if (own.some((f) => f.time > t && f.time < Math.floor(t / DAY) * DAY + DAY)) cut++;
        const all = await get<{ volume_over_time: VolumePoint[] }>(
          `/v2/alpha/markets/${token}/volume?granularity=all&end_time=${t}`,
        );
        expect(all.volume_over_time.length, `token ${token} at ${t}`).toBe(upTo.length > 0 ? 1 : 0);
        if (upTo.length === 0) continue;
        const [point] = all.volume_over_time;
        expect(point!.timestamp).toBe(t);
        for (const k of ['volume', 'buy_volume', 'sell_volume'] as const) {
          expect(point![k], `token ${token} at ${t}: ${k}`).toBeCloseTo(truth[k], 6);
        }
        const days = await get<{ volume_over_time: VolumePoint[] }>(
          `/v2/alpha/markets/${token}/volume?granularity=day&end_time=${t}`,
        );
        const last = days.volume_over_time.at(-1)!;
        expect(last.timestamp).toBe(Math.floor(t / DAY) * DAY);
        expect(last.volume, `token ${token} day of ${t}`).toBeCloseTo(truth.volume, 6);
      }
    }
    // Trades later on end_time's day were left out (the case that failed).
    expect(cut).toBeGreaterThan(5);
  }, 120_000);

  it("stops the volume chart's last hour, day and week at end_time, to its second (both tokens, YES and NO apart)", async () => {
    type ChartPoint = {
      timestamp: number;
      total_volume: number;
      yes_volume: number;
      no_volume: number;
      trades_count: number;
    };
    const WEEK = 7 * DAY;
    const MONDAY = 4 * DAY; // 1970-01-05, a Monday
    const starts = {
      hour: (t: number) => Math.floor(t / HOUR) * HOUR,
      day: (t: number) => Math.floor(t / DAY) * DAY,
      week: (t: number) => Math.floor((t - MONDAY) / WEEK) * WEEK + MONDAY,
    };
    const cut = { hour: 0, day: 0, week: 0 };
    for (const condition of [...new Set(fills.map((f) => f.condition))].sort().slice(0, 4)) {
      const own = fills.filter((f) => f.condition === condition);
      const times = [...new Set(own.map((f) => f.time))];
      for (const t of times.filter((_, i) => i % 9 === 4).flatMap((x) => [x, x - 1])) {
        for (const g of ['hour', 'day', 'week'] as const) {
          const start = starts[g](t);
          const upTo = own.filter((f) => f.time >= start && f.time <= t);
          const sum = (pick: (f: Fill) => boolean) => usd(upTo.filter(pick).reduce((s, f) => s + f.usd, 0n));
          if (
            own.some(
              (f) => f.time > t && f.time < starts[g](t + (g === 'hour' ? HOUR : g === 'day' ? DAY : WEEK)),
            )
          ) {
            cut[g]++;
          }
          const chart = await get<{ data: ChartPoint[] }>(
            `/v2/alpha/volume-chart/${condition}?granularity=${g}&start_time=${t - 1}&end_time=${t}`,
          );
          const last = chart.data.at(-1);
          if (upTo.length === 0) {
            expect(last === undefined || last.timestamp < start, `${condition} ${g} at ${t}`).toBe(true);
            continue;
          }
          expect(last, `${condition} ${g} at ${t}`).toBeDefined();
          expect(last!.timestamp).toBe(start);
          expect(last!.trades_count, `${condition} ${g} at ${t}: trades`).toBe(upTo.length);
          expect(last!.total_volume, `${condition} ${g} at ${t}`).toBeCloseTo(
            sum(() => true),
            6,
          );
          expect(last!.yes_volume, `${condition} ${g} at ${t}: YES`).toBeCloseTo(
            sum((f) => f.outcome === 0),
            6,
          );
          expect(last!.no_volume, `${condition} ${g} at ${t}: NO`).toBeCloseTo(
            sum((f) => f.outcome !== 0),
            6,
          );
        }
      }
    }
    // Trades later in end_time's hour, day and week were left out (the case that failed).
    expect(cut.hour).toBeGreaterThan(3);
    expect(cut.day).toBeGreaterThan(3);
    expect(cut.week).toBeGreaterThan(3);
  }, 180_000);

  it("holds the open interest at end_time in the point stamped with end_time's day, as granularity=all", async () => {
    let cut = 0;
    const conditions = [...new Set(oi.events.map((e) => e.condition))].sort().slice(0, 8);
    for (const condition of conditions) {
      const events = oi.events.filter((e) => e.condition === condition);
      for (const e of events.filter((_, i) => i % 3 === 1)) {
        const t = e.time;
        // The hour is the resolution of open interest: the changes of the hours starting at or before t.
        const truth = usd(
          events.filter((x) => Math.floor(x.time / HOUR) * HOUR <= t).reduce((s, x) => s + x.delta, 0n),
        );
        if (
          events.some(
            (x) => x.time >= Math.floor(t / HOUR) * HOUR + HOUR && x.time < Math.floor(t / DAY) * DAY + DAY,
          )
        ) {
          cut++;
        }
        const all = await get<{ open_interest_over_time: OiPoint[] }>(
          `/v2/alpha/markets/${condition}/open_interest?granularity=all&end_time=${t}`,
        );
        expect(all.open_interest_over_time[0]?.open_interest_usd, `${condition} at ${t}`).toBeCloseTo(
          truth,
          6,
        );
        const days = await get<{ open_interest_over_time: OiPoint[] }>(
          `/v2/alpha/markets/${condition}/open_interest?granularity=day&end_time=${t}`,
        );
        const last = days.open_interest_over_time.at(-1)!;
        expect(last.timestamp).toBe(Math.floor(t / DAY) * DAY);
        expect(last.open_interest_usd, `${condition} day of ${t}`).toBeCloseTo(truth, 6);
      }
    }
    expect(cut).toBeGreaterThan(0);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------- incremental

/** Every derived table of the market data, with its key (the order of a dump). */
const DERIVED: Record<string, string> = {
  alpha_token_candles_1m: 'token_id, bucket',
  alpha_token_candles_1h: 'token_id, bucket',
  alpha_token_candles_1d: 'token_id, bucket',
  alpha_condition_candles_1m: 'condition_id, bucket',
  alpha_condition_candles_1h: 'condition_id, bucket',
  alpha_condition_candles_1d: 'condition_id, bucket',
  alpha_oi_deltas_1h: 'condition_id, bucket',
  alpha_market_totals: 'level, id',
};

type Dump = Record<string, Row[]>;

async function dump(): Promise<Dump> {
  const out: Dump = {};
  for (const [t, key] of Object.entries(DERIVED)) {
    out[t] = await query(`SELECT * EXCEPT (version) FROM ${t} FINAL ORDER BY ${key}`);
  }
  return out;
}

describe('alpha market analytics built incrementally', () => {
  it('equal the full recomputation when a follow checkpoint moves forward in steps, and a rerun changes nothing', async () => {
    const full = await dump();
    const rolling = await query(
      'SELECT * EXCEPT (version) FROM alpha_market_rolling FINAL ORDER BY level, id',
    );
    expect(full.alpha_token_candles_1m?.length).toBeGreaterThan(0);

    // Start over: no derived rows, no analytics checkpoint, and the chain's progress only as far as a
    // follow checkpoint says (the backfill's range checkpoint is removed).
    for (const t of [...Object.keys(DERIVED), 'alpha_market_rolling']) {
      await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
    }
    await forgetAnalyticsCheckpoint(deps.clickhouse);
    const marks = createWatermarks(deps.clickhouse);
    await marks.forget('alpha-chain', 'backfill');
    const client = createPublicClient({ transport: http(sim.rpcUrl) });
    let updatedAt = Date.now();
    const follow = async (n: number) => {
      const b = await client.getBlock({ blockNumber: BigInt(n) });
      await marks.commit({
        source: 'alpha-chain',
        stream: 'follow',
        kind: 'head',
        block: n,
        hash: b.hash,
        at: updatedAt++,
      });
    };

    const runs: MarketDataRun[] = [];
    const third = Math.floor(head / 3);
    await follow(third);
    runs.push(await runMarketData(deps, { ...settings, stepBlocks: 7 }));
    expect(runs[0]?.mode).toBe('full');
    // One stretch in steps of 7 blocks, the rest in larger steps, the follow checkpoint moving each time.
    const stops = [
      third + 60,
      ...[1, 2, 3, 4].map((k) => Math.floor(third + ((head - third) * k) / 5)),
      head,
    ];
    for (const [i, stop] of stops.entries()) {
      await follow(stop);
      runs.push(await runMarketData(deps, { ...settings, stepBlocks: i === 0 ? 7 : 97 }));
    }
    expect(runs.slice(1).map((r) => r.mode)).toEqual(stops.map(() => 'incremental'));
    expect(runs[1]?.steps).toBeGreaterThanOrEqual(8);
    const checkpoint = await readAnalyticsCheckpoint(deps.clickhouse, settings.chainId);
    expect(checkpoint?.number).toBe(head);

    const incremental = await dump();
    for (const t of Object.keys(DERIVED)) expect(incremental[t], `incremental: ${t}`).toEqual(full[t]);
    expect((await runMarketData(deps, settings)).mode).toBe('idle');

    const rerun = await recomputeMarketData(deps, settings);
    expect(rerun.mode).toBe('full');
    const again = await dump();
    for (const t of Object.keys(DERIVED)) expect(again[t], `rerun: ${t}`).toEqual(full[t]);
    await runRolling(deps, settings);
    expect(
      await query('SELECT * EXCEPT (version) FROM alpha_market_rolling FINAL ORDER BY level, id'),
      'rolling after the incremental build',
    ).toEqual(rolling);
  }, 240_000);
});
