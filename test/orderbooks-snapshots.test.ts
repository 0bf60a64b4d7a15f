/**
 * Order book snapshots of the REST venues against the sim's replicas (docs/orderbooks.md): the
 * `orderbooks` streams of beta, gamma and delta and epsilon's markets poll store each open market's YES
 * book; each stored snapshot equals the replica's own answer at that poll, read again here at the same
 * world time (levels exact, beta's asks from its NO bids, gamma's midpoints, `ts` the payload's time or
 * the answer's `Date`); beta's sub-cent levels keep their decimals; an unchanged book is stored once per
 * keep-alive; 429s, 5xx and hangs are retried, a malformed book is quarantined and read again, and no
 * market's book is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../core/data-version.ts';
import { decimal } from '../core/decimal.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { keepaliveMs } from '../ingest/orderbooks/stream.ts';
import { runStream, type VenueDefinition } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { subcentMarkets } from '../sim/world/price-levels.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

const http = (url: string) =>
  createHttpClient({ baseUrl: url, timeoutMs: 1_000, baseDelayMs: 20, maxDelayMs: 100 });
const clients = () => ({
  beta: createBetaClient({ http: http(replicas.urls.beta) }),
  gamma: createGammaClient({ http: http(replicas.urls.gamma) }),
  delta: createDeltaClient({ http: http(replicas.urls.delta), codeRetryMs: 10 }),
  epsilon: createEpsilonClient({ http: http(replicas.urls.epsilon) }),
});

type Code = 'beta' | 'gamma' | 'delta' | 'epsilon';
const VENUES: Record<Code, VenueDefinition> = { beta, gamma, delta, epsilon };
const POLLED = ['beta', 'gamma', 'delta'] as const;

/** The markets polls of every venue at `at` (epsilon's records its books too). */
async function syncMarkets(at: number) {
  const c = clients();
  for (const code of Object.keys(VENUES) as Code[]) {
    await runStream(VENUES[code], 'markets', { ...deps, client: c[code], now: () => at }, { mode: 'poll' });
  }
}

/** The orderbooks stream of `code` with its observation time `at`. */
function pollBooks(code: (typeof POLLED)[number], at: number) {
  return runStream(
    VENUES[code],
    'orderbooks',
    { ...deps, client: clients()[code], now: () => at },
    {
      mode: 'poll',
    },
  );
}

interface Levels {
  bids: [string, string][];
  asks: [string, string][];
}
interface Expected extends Levels {
  ts: number;
  token_id: string;
  midpoint?: string | null;
  adjusted_midpoint?: string | null;
}

const canon = (levels: [string | number, string | number][]): [string, string][] =>
  levels.map(([p, s]) => [decimal(p), decimal(s)]);
const desc = (xs: [string, string][]) => [...xs].sort((a, b) => Number(b[0]) - Number(a[0]));
const asc = (xs: [string, string][]) => [...xs].sort((a, b) => Number(a[0]) - Number(b[0]));
/** 1 − p for a price of at most 4 decimals, by integer arithmetic. */
const oneMinus = (p: string) => decimal(((10_000 - Math.round(Number(p) * 10_000)) / 10_000).toFixed(4));

// biome-ignore lint/suspicious/noExplicitAny: the replicas' answers, read field by field as the upstreams document them
async function getJson(url: string): Promise<{ body: any; date: number }> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return { body: await res.json(), date: Date.parse(res.headers.get('date') ?? '') };
}

async function openMarkets(code: Code): Promise<{ key: string; token: string }[]> {
  const sql: Record<Code, string> = {
    beta: `SELECT ticker AS key, '' AS token FROM beta_markets FINAL WHERE status = 'open'`,
    gamma: `SELECT slug AS key, token_ids[1] AS token FROM gamma_markets FINAL WHERE status = 'open' AND trade_type = 'clob'`,
    delta: `SELECT toString(market_id) AS key, token_ids[1] AS token FROM delta_markets FINAL WHERE status = 'open' AND token_ids[1] != ''`,
    epsilon: `SELECT toString(market_id) AS key, token_ids[1] AS token FROM epsilon_markets FINAL WHERE status = 'open' AND token_ids[1] != ''`,
  };
  return deps.clickhouse.query(`test.open.${code}`, `${sql[code]} ORDER BY key`);
}

/** The replica's books of a venue's open markets now, as the YES book the SPEC describes, read here. */
async function replicaBooks(code: Code): Promise<Map<string, Expected>> {
  const out = new Map<string, Expected>();
  const markets = await openMarkets(code);
  if (code === 'beta') {
    for (let i = 0; i < markets.length; i += 100) {
      const q = markets
        .slice(i, i + 100)
        .map((m) => `tickers=${encodeURIComponent(m.key)}`)
        .join('&');
      const { body, date } = await getJson(`${replicas.urls.beta}/markets/orderbooks?${q}`);
      for (const b of body.orderbooks) {
        const fp = b.orderbook_fp;
        out.set(b.ticker, {
          ts: date,
          token_id: '',
          bids: desc(canon(fp.yes_dollars)),
          asks: asc(fp.no_dollars.map(([p, s]: [string, string]) => [oneMinus(p), decimal(s)])),
        });
      }
    }
  }
  for (const m of code === 'beta' ? [] : markets) {
    const lv = (xs: { price: string | number; size: string | number }[]) =>
      canon(xs.map((l) => [l.price, l.size]));
    if (code === 'gamma') {
      const { body, date } = await getJson(`${replicas.urls.gamma}/markets/${m.key}/orderbook`);
      out.set(m.key, {
        ts: date,
        token_id: body.tokenId,
        bids: desc(lv(body.bids)),
        asks: asc(lv(body.asks)),
        midpoint: decimal(body.midpoint),
        adjusted_midpoint: decimal(body.adjustedMidpoint),
      });
    } else if (code === 'delta') {
      const { body } = await getJson(`${replicas.urls.delta}/token/orderbook?token_id=${m.token}`);
      const r = body.result;
      out.set(m.key, { ts: r.timestamp, token_id: r.tokenId, bids: desc(lv(r.bids)), asks: asc(lv(r.asks)) });
    } else {
      const { body } = await getJson(`${replicas.urls.epsilon}/public/api/v1/book?token_id=${m.token}`);
      out.set(m.key, {
        ts: Number(body.timestamp),
        token_id: body.asset_id,
        bids: desc(lv(body.bids)),
        asks: asc(lv(body.asks)),
      });
    }
  }
  return out;
}

/** Each market's last stored snapshot of `code`. */
async function storedBooks(code: Code): Promise<Map<string, Expected & { sequence: number }>> {
  const rows = await deps.clickhouse.query<{
    market: string;
    token_id: string;
    ts: string;
    seq: string;
    bp: string[];
    bs: string[];
    ap: string[];
    as: string[];
    mid: string | null;
    adj: string | null;
  }>(
    'test.stored',
    `SELECT market, argMax(token_id, sequence) AS token_id,
            toString(toUnixTimestamp64Milli(argMax(ts, sequence))) AS ts, toString(max(sequence)) AS seq,
            arrayMap(x -> toString(x), argMax(bid_prices, sequence)) AS bp,
            arrayMap(x -> toString(x), argMax(bid_sizes, sequence)) AS bs,
            arrayMap(x -> toString(x), argMax(ask_prices, sequence)) AS ap,
            arrayMap(x -> toString(x), argMax(ask_sizes, sequence)) AS as,
            toString(argMax(midpoint, sequence)) AS mid, toString(argMax(adjusted_midpoint, sequence)) AS adj
     FROM orderbook_snapshots WHERE venue = {venue:String} AND source = 'rest' GROUP BY market`,
    { venue: code },
  );
  const zip = (p: string[], s: string[]) => p.map((x, i): [string, string] => [decimal(x), decimal(s[i]!)]);
  return new Map(
    rows.map((r) => [
      r.market,
      {
        ts: Number(r.ts),
        sequence: Number(r.seq),
        token_id: r.token_id,
        bids: zip(r.bp, r.bs),
        asks: zip(r.ap, r.as),
        ...(code === 'gamma'
          ? {
              midpoint: r.mid === null ? null : decimal(r.mid),
              adjusted_midpoint: r.adj === null ? null : decimal(r.adj),
            }
          : {}),
      },
    ]),
  );
}

/** Every open market of `code` has its last snapshot recorded at `at`, equal to the replica's book now. */
async function expectStoredEqualsReplica(code: Code, at: number) {
  const want = await replicaBooks(code);
  expect(want.size, `${code}: open markets with a book`).toBeGreaterThan(0);
  const got = await storedBooks(code);
  for (const [market, book] of want) {
    const { sequence, ...stored } = got.get(market) ?? { sequence: null };
    expect(stored, `${code} ${market}`).toEqual(book);
    expect(sequence, `${code} ${market} recorded by this poll`).toBe(at);
  }
}

const quarantined = (source: Code) =>
  deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    `SELECT kind, record_id FROM quarantine FINAL WHERE source = {source:String} AND kind = 'orderbook'`,
    { source },
  );

let at = START + 30 * HOUR;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'orderbooks-a', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(at);
  [replicas, deps] = await Promise.all([
    startReplicas({ catalog, state }),
    createTestDeps('orderbooks_snapshots'),
  ]);
  await syncMarkets(at);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('order book snapshots against the replicas', () => {
  it("stores each open market's YES book equal to the replica's at that poll", async () => {
    const versions = createDataVersions({ redis: deps.redis });
    for (const code of POLLED) {
      const before = await versions.read([`books:${code}`, `venue:${code}`]);
      const s = await pollBooks(code, at);
      // The books' source moved, the venue's tables' did not.
      const after = await versions.read([`books:${code}`, `venue:${code}`]);
      expect(after[0], code).not.toBe(before[0]);
      expect(after[1], code).toBe(before[1]);
      expect(s.markets, code).toBeGreaterThan(0);
      expect(s.read, code).toBe(s.markets);
      expect(s.written, code).toBe(s.markets);
      expect(s.quarantined, code).toBe(0);
    }
    // epsilon's books came with its markets poll (beforeAll), no poll of their own; it bumped books:epsilon.
    expect((await versions.read(['books:epsilon']))[0]).not.toBe('');
    for (const code of [...POLLED, 'epsilon'] as const) await expectStoredEqualsReplica(code, at);
    // The answer's Date is the world's time (sim/venues/http.ts), not the wall clock.
    const betaBooks = await storedBooks('beta');
    for (const b of betaBooks.values()) expect(b.ts).toBe(Math.floor(state.now() / 1000) * 1000);
  });

  it("keeps beta's sub-cent levels: a deci_cent market's book has levels at $0.001", async () => {
    const stored = await storedBooks('beta');
    const subcent = [...subcentMarkets(catalog).keys()].filter((k) => stored.has(k));
    expect(subcent.length).toBeGreaterThan(0);
    const fine = subcent.flatMap((k) => {
      const b = stored.get(k)!;
      return [...b.bids, ...b.asks].map(([p]) => p).filter((p) => (p.split('.')[1] ?? '').length === 3);
    });
    expect(fine.length).toBeGreaterThan(0);
    // The replica serves each market's structure.
    for (const k of subcent) {
      const { body } = await getJson(`${replicas.urls.beta}/markets/${k}`);
      expect(body.market.price_level_structure).toBe(subcentMarkets(catalog).get(k));
    }
    // Every other market's levels are whole cents.
    for (const [k, b] of stored) {
      if (subcentMarkets(catalog).has(k)) continue;
      for (const [p] of [...b.bids, ...b.asks])
        expect((p.split('.')[1] ?? '').length, k).toBeLessThanOrEqual(2);
    }
  });

  it('stores an unchanged book once per keep-alive', async () => {
    const keep = keepaliveMs(deps.config);
    const rows = async () =>
      (
        await deps.clickhouse.query<{ n: string }>(
          'test.count',
          'SELECT toString(count()) AS n FROM orderbook_snapshots',
        )
      )[0]!.n;
    const before = await rows();
    // The world stands still: the same books a minute later are not stored again.
    for (const code of POLLED) {
      const s = await pollBooks(code, at + 60_000);
      expect([s.written, s.unchanged], code).toEqual([0, s.markets]);
    }
    await syncMarkets(at + 60_000);
    expect(await rows()).toBe(before);
    // Past the keep-alive, each is stored again.
    for (const code of POLLED) {
      const s = await pollBooks(code, at + keep + 1_000);
      expect([s.written, s.unchanged], code).toEqual([s.markets, 0]);
      await expectStoredEqualsReplica(code, at + keep + 1_000);
    }
    at += keep + 1_000;
  });

  it('retries 429s, 5xx and hangs, quarantines a malformed book and reads it again: no book lost', async () => {
    // The books move (a new minute, new trades).
    at += 2 * HOUR;
    state.tick(at);
    await syncMarkets(at);
    const paths: Record<(typeof POLLED)[number], string> = {
      beta: '/markets/orderbooks',
      gamma: '/markets/',
      delta: '/token/orderbook',
    };
    for (const code of POLLED) {
      const path = paths[code];
      replicas.faults.enqueue(
        code,
        { kind: 'rate_limit', retryAfterS: 1, path },
        { kind: 'server_error', path },
        { kind: 'hang', path },
        { kind: 'malformed', path },
      );
      const s = await pollBooks(code, at);
      expect(replicas.faults.injected(code), code).toMatchObject({
        rate_limit: 1,
        server_error: 1,
        hang: 1,
        malformed: 1,
      });
      expect(s.quarantined, code).toBe(1);
      expect(s.read, code).toBe(s.markets);
      expect(await quarantined(code), code).toHaveLength(1);
      await expectStoredEqualsReplica(code, at);
      replicas.faults.clear(code);
    }
  }, 60_000);
});
