/**
 * Golden answers of the chain-data API on a fixed-seed simulated world: every response (status and body,
 * byte for byte) of a fixed set of trades and activity queries — filters, cursors followed page by page,
 * wallet lists, hashes, slugs, time ranges and the 400/422 rules — and a digest of every chain table, are
 * compared with test/golden/api-golden.json. The file was recorded before the ingestion and API layers
 * were restructured: the restructured code must give the same bytes and the same tables, with the
 * response cache on and off.
 *
 * The queries are chosen from the ingested data by deterministic SQL (busiest wallet, busiest token, …),
 * so the same world always yields the same URLs; the URL list is part of the golden file too.
 *
 * Recording happens only with PMDATA_GOLDEN=record (the first test then writes the file instead of
 * comparing); a missing file fails. Never re-record to make a change pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { MarketSlugResolver } from '../api/markets.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps, testConfig } from './support/deps.ts';

const GOLDEN_FILE = path.join(import.meta.dirname, 'golden', 'api-golden.json');
const SEED = 'api-golden-1';
/** Rows within this many blocks of the head are pending: the golden answers hold both statuses. */
const FINALITY_DEPTH = 40;

interface Answer {
  url: string;
  status: number;
  body: string;
}

interface Golden {
  seed: string;
  head: number;
  tables: Record<string, { rows: number; digest: string }>;
  answers: Answer[];
}

/**
 * Every chain table as (row count, order-independent digest of its rows), read FINAL so unmerged
 * versions do not count. Wall-clock columns are left out; progress (the watermarks table) is not data.
 */
const CHAIN_TABLES: Record<string, string> = {
  alpha_fills: '*',
  alpha_activity: '*',
  alpha_lifecycle: '*',
  alpha_oracle: '*',
  alpha_collateral: '*',
  alpha_token_transfers: '*',
  alpha_exchange_events: '*',
  alpha_tokens: '*',
  alpha_blocks: '*',
  alpha_neg_risk_markets: '*',
  alpha_neg_risk_questions: '*',
  alpha_fill_hashes: '*',
  quarantine: '* EXCEPT quarantined_at',
};

async function tableDigests(deps: TestDeps): Promise<Golden['tables']> {
  const out: Golden['tables'] = {};
  for (const [table, columns] of Object.entries(CHAIN_TABLES)) {
    const [row] = await deps.clickhouse.query<{ n: string; h: string }>(
      'test.golden.digest',
      `SELECT toString(count()) AS n, toString(sum(cityHash64(formatRowNoNewline('TSV', *)))) AS h
       FROM (SELECT ${columns} FROM ${table} FINAL)`,
    );
    out[table] = { rows: Number(row!.n), digest: row!.h };
  }
  return out;
}

/** One value of a deterministic SQL choice (ties broken by the value itself). */
async function pick(deps: TestDeps, sql: string): Promise<string> {
  const rows = await deps.clickhouse.query<{ v: string }>('test.golden.pick', sql);
  if (rows.length === 0) throw new Error(`golden: no value for ${sql}`);
  return String(rows[0]!.v);
}

async function pickMany(deps: TestDeps, sql: string): Promise<string[]> {
  const rows = await deps.clickhouse.query<{ v: string }>('test.golden.pick', sql);
  return rows.map((r) => String(r.v));
}

const ADDR = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/**
 * The fixed query set. Entries with `follow` are followed page by page through `pagination_key` (each
 * page is an answer of its own); `tamper` re-sends the first page's key with a changed letter or with
 * other filters.
 */
async function querySet(deps: TestDeps, slugOf: Map<string, string>) {
  const topMaker = await pick(
    deps,
    `SELECT maker AS v FROM alpha_fills GROUP BY maker ORDER BY count() DESC, maker LIMIT 1`,
  );
  const makers = await pickMany(
    deps,
    `SELECT maker AS v FROM alpha_fills GROUP BY maker ORDER BY count() DESC, maker LIMIT 5`,
  );
  const topToken = await pick(
    deps,
    `SELECT token_id AS v FROM alpha_fills GROUP BY token_id ORDER BY count() DESC, token_id LIMIT 1`,
  );
  const topCondition = await pick(
    deps,
    `SELECT condition_id AS v FROM alpha_fills WHERE condition_id != ''
     GROUP BY condition_id ORDER BY count() DESC, condition_id LIMIT 1`,
  );
  const busyTx = await pick(
    deps,
    `SELECT tx_hash AS v FROM alpha_fills GROUP BY tx_hash ORDER BY count() DESC, tx_hash LIMIT 1`,
  );
  const busyOrder = await pick(
    deps,
    `SELECT order_hash AS v FROM alpha_fills GROUP BY order_hash ORDER BY count() DESC, order_hash LIMIT 1`,
  );
  const builder = await pick(
    deps,
    `SELECT builder AS v FROM alpha_fills WHERE builder != '' GROUP BY builder
     ORDER BY count() DESC, builder LIMIT 1`,
  );
  const [tMin, tMax] = (
    await deps.clickhouse.query<{ lo: number; hi: number }>(
      'test.golden.times',
      'SELECT toUnixTimestamp(min(block_time)) AS lo, toUnixTimestamp(max(block_time)) AS hi FROM alpha_fills',
    )
  ).map((r) => [Number(r.lo), Number(r.hi)])[0]!;
  const third = Math.floor((tMax! - tMin!) / 3);
  const windowFrom = tMin! + third;
  const windowTo = tMin! + 2 * third;
  const topActor = await pick(
    deps,
    `SELECT wallet AS v FROM alpha_activity GROUP BY wallet ORDER BY count() DESC, wallet LIMIT 1`,
  );
  const actCondition = await pick(
    deps,
    `SELECT condition_id AS v FROM alpha_activity WHERE type != 'CONVERT' AND condition_id != ''
     GROUP BY condition_id ORDER BY count() DESC, condition_id LIMIT 1`,
  );
  const negRiskMarket = await pick(
    deps,
    `SELECT neg_risk_market_id AS v FROM alpha_activity WHERE type = 'CONVERT'
     GROUP BY neg_risk_market_id ORDER BY count() DESC, neg_risk_market_id LIMIT 1`,
  );
  const actTx = await pick(
    deps,
    `SELECT tx_hash AS v FROM alpha_activity GROUP BY tx_hash ORDER BY count() DESC, tx_hash LIMIT 1`,
  );
  const [aMin, aMax] = (
    await deps.clickhouse.query<{ lo: number; hi: number }>(
      'test.golden.atimes',
      'SELECT toUnixTimestamp(min(block_time)) AS lo, toUnixTimestamp(max(block_time)) AS hi FROM alpha_activity',
    )
  ).map((r) => [Number(r.lo), Number(r.hi)])[0]!;
  const slug = slugOf.get(topCondition);
  const actSlug = slugOf.get(actCondition);
  if (!slug || !actSlug) throw new Error('golden: the busiest conditions have no catalog slug');
  const mixedCase = (a: string) => `0x${a.slice(2).toUpperCase()}`;
  const fiftyOne = Array.from({ length: 51 }, (_, i) => ADDR(i + 1)).join(',');

  const T = '/v2/alpha/trades';
  const A = '/v2/alpha/activity';
  const q: { url: string; follow?: number; tamper?: string }[] = [
    // trades: feeds and directions
    { url: `${T}` },
    { url: `${T}?limit=10`, follow: 3 },
    { url: `${T}?limit=7&order=asc`, follow: 2 },
    // trades: wallets
    { url: `${T}?wallet=${topMaker}&limit=20`, follow: 3 },
    { url: `${T}?wallet=${mixedCase(makers[1]!)}, ${makers[2]},${makers[1]}&limit=15`, follow: 2 },
    { url: `${T}?wallet=${makers.join(',')}&order=asc&limit=25`, follow: 2 },
    { url: `${T}?wallet=${ADDR(0xdead)}` },
    { url: `${T}?wallet=${topMaker}&role=maker&limit=5` },
    { url: `${T}?wallet=${topMaker}&token_id=${topToken}&order=asc&limit=10` },
    // trades: markets
    { url: `${T}?token_id=${topToken}&limit=20`, follow: 2 },
    { url: `${T}?condition_id=${topCondition}&limit=12`, follow: 2 },
    { url: `${T}?condition_id=${mixedCase(topCondition)}&role=taker&limit=5` },
    { url: `${T}?market_slug=${slug}&limit=9`, follow: 2 },
    { url: `${T}?market_slug=no-such-market` },
    // trades: hashes, builder, role, size, time
    { url: `${T}?tx_hash=${busyTx}` },
    { url: `${T}?tx_hash=${mixedCase(busyTx)}&limit=2`, follow: 2 },
    { url: `${T}?order_hash=${busyOrder}` },
    { url: `${T}?builder=${builder}&limit=10`, follow: 2 },
    { url: `${T}?role=taker&limit=8` },
    { url: `${T}?min_total=250&limit=10`, follow: 2 },
    { url: `${T}?start_time=${windowFrom}&end_time=${windowTo}&limit=15`, follow: 2 },
    { url: `${T}?start_time=${windowFrom}&order=asc&limit=6` },
    { url: `${T}?end_time=${windowFrom}&limit=6` },
    // trades: the 400 and 422 rules
    { url: `${T}?wallet=0xbad` },
    { url: `${T}?wallet=${fiftyOne}` },
    { url: `${T}?wallet=,` },
    { url: `${T}?tx_hash=0x1234` },
    { url: `${T}?condition_id=nothex` },
    { url: `${T}?offset=5` },
    { url: `${T}?offset=0&limit=3` },
    { url: `${T}?start_time=${windowTo}&end_time=${windowFrom}` },
    { url: `${T}?limit=0` },
    { url: `${T}?limit=201&order=sideways` },
    { url: `${T}?role=both` },
    { url: `${T}?wallet=${topMaker}&limit=4`, tamper: `&token_id=${topToken}` },
    { url: `${T}?limit=4`, tamper: 'flip' },
    // activity
    { url: `${A}` },
    { url: `${A}?limit=10`, follow: 3 },
    { url: `${A}?limit=9&order=asc`, follow: 2 },
    { url: `${A}?wallet=${topActor}&limit=10`, follow: 3 },
    { url: `${A}?wallet=${mixedCase(topActor)},${topMaker}&limit=10` },
    { url: `${A}?type=split,MERGE&limit=10`, follow: 2 },
    { url: `${A}?type=CONVERT&limit=5`, follow: 2 },
    { url: `${A}?type=REDEEM&wallet=${topActor}` },
    { url: `${A}?condition_id=${actCondition}&limit=10`, follow: 2 },
    { url: `${A}?neg_risk_market_id=${negRiskMarket}&limit=5` },
    { url: `${A}?tx_hash=${actTx}` },
    { url: `${A}?market_slug=${actSlug}&limit=6` },
    {
      url: `${A}?start_time=${aMin! + Math.floor((aMax! - aMin!) / 2)}&end_time=${aMax}&order=asc&limit=10`,
      follow: 2,
    },
    // activity: the 400 and 422 rules
    { url: `${A}?type=BOGUS` },
    { url: `${A}?wallet=${fiftyOne}` },
    { url: `${A}?neg_risk_market_id=0x12` },
    { url: `${A}?offset=1` },
    { url: `${A}?limit=10`, tamper: '&type=SPLIT' },
  ];
  return q;
}

async function ask(app: App, key: string, url: string): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  return { url, status: res.statusCode, body: res.body };
}

/** Every answer of the query set, following cursors and tampering keys as each entry says. */
async function answers(app: App, key: string, queries: Awaited<ReturnType<typeof querySet>>) {
  const out: Answer[] = [];
  for (const q of queries) {
    let answer = await ask(app, key, q.url);
    out.push(answer);
    const first = answer;
    for (let page = 1; page < (q.follow ?? 1); page++) {
      const next = (JSON.parse(answer.body) as { pagination?: { pagination_key: string | null } }).pagination
        ?.pagination_key;
      if (!next) break;
      answer = await ask(app, key, `${q.url}&pagination_key=${next}`);
      out.push(answer);
    }
    if (q.tamper) {
      const token = (JSON.parse(first.body) as { pagination: { pagination_key: string | null } }).pagination
        .pagination_key;
      if (!token) throw new Error(`golden: ${q.url} has no second page to tamper with`);
      const sep = q.url.includes('?') ? '&' : '?';
      const tampered =
        q.tamper === 'flip'
          ? `${q.url}${sep}pagination_key=${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`
          : `${q.url}${q.tamper}&pagination_key=${token}`;
      out.push(await ask(app, key, tampered));
    }
  }
  return out;
}

describe('golden answers of the chain-data API on a fixed-seed world', () => {
  let deps: TestDeps;
  let sim: Sim;
  let head: number;
  let slugs: MarketSlugResolver;
  let slugOf: Map<string, string>;
  const apps: { name: string; app: App }[] = [];
  let key: string;

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('api_golden'),
      // The world the file was recorded on: no wallet-to-wallet position transfers (added to the sim
      // later, from a random stream of their own, so turning them off gives the recorded chain).
      startSim({ seed: SEED, size: 'small', replicas: false, transfersPerMarketDay: 0 }),
    ]);
    head = sim.historyHead;
    const chain = createAlphaChain(
      { clickhouse: deps.clickhouse, log: deps.log },
      alphaChainSettings(deps.config, {
        rpcUrls: [sim.rpcUrl],
        positionIds: 'simplified',
        finalityDepth: FINALITY_DEPTH,
      }),
    );
    await chain.referencePass(0, head);
    await chain.ingestRange({ from: 0, to: head }, { head });

    slugOf = new Map(sim.catalog.venues.alpha.markets.map((m) => [m.key.toLowerCase(), m.slug]));
    const bySlug = new Map<string, string[]>();
    for (const [condition, slug] of slugOf) bySlug.set(slug, [...(bySlug.get(slug) ?? []), condition]);
    slugs = {
      conditionIds: async (slug) => bySlug.get(slug) ?? [],
      slugs: async (ids) => new Map(ids.flatMap((c) => (slugOf.has(c) ? [[c, slugOf.get(c)!]] : []))),
    };
    // The same database served with the response cache on (the default) and off.
    for (const [name, env] of [
      ['cache default', {}],
      ['cache off', { API_CACHE_BYTES: '0' }],
    ] as const) {
      const config = testConfig('api_golden', env);
      const app = await buildApp({ ...deps, config, secret: TEST_SECRET, marketSlugs: slugs });
      apps.push({ name, app });
    }
    key = (await createKeyStore(deps.redis).create({ tier: 'enterprise', name: 'golden', rate: 100_000 }))
      .key;
  }, 240_000);

  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await sim?.stop();
    await deps?.close();
  });

  it('holds the same chain tables as the golden world', async () => {
    const tables = await tableDigests(deps);
    if (process.env.PMDATA_GOLDEN === 'record') {
      const queries = await querySet(deps, slugOf);
      const recorded = await answers(apps[0]!.app, key, queries);
      writeGolden({ seed: SEED, head, tables, answers: recorded });
      return;
    }
    const golden = readGolden();
    expect(golden, `${GOLDEN_FILE} exists`).toBeDefined();
    expect(head).toBe(golden!.head);
    expect(tables).toEqual(golden!.tables);
  });

  it('answers every golden query with the same status and bytes, cache on and off, twice', async () => {
    const golden = readGolden();
    expect(golden, 'the golden file exists (recorded by the first test)').toBeDefined();
    const queries = await querySet(deps, slugOf);
    expect(queries.length).toBeGreaterThanOrEqual(30);
    for (const { name, app } of apps) {
      for (const round of [1, 2]) {
        const got = await answers(app, key, queries);
        expect(
          got.map((a) => a.url),
          `${name}, round ${round}: the URL list`,
        ).toEqual(golden!.answers.map((a) => a.url));
        for (let i = 0; i < got.length; i++) {
          const want = golden!.answers[i]!;
          expect(got[i]!.status, `${name}, round ${round}: status of ${want.url}`).toBe(want.status);
          expect(got[i]!.body, `${name}, round ${round}: body of ${want.url}`).toBe(want.body);
        }
      }
    }
  });
});

function readGolden(): Golden | undefined {
  if (!fs.existsSync(GOLDEN_FILE)) return undefined;
  return JSON.parse(fs.readFileSync(GOLDEN_FILE, 'utf8')) as Golden;
}

function writeGolden(g: Golden): void {
  fs.mkdirSync(path.dirname(GOLDEN_FILE), { recursive: true });
  fs.writeFileSync(GOLDEN_FILE, `${JSON.stringify(g, null, 1)}\n`);
}
