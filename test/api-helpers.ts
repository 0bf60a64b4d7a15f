/**
 * Shared set-up for the API tests: real chDB and Redis from createTestDeps, an app built on them, and a
 * key store on the same (prefixed) Redis to issue keys.
 */
import type { Tier } from '../api/access.ts';
import { type App, type AppOptions, buildApp } from '../api/app.ts';
import { createKeyStore, type KeyStore } from '../api/keys/store.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

export interface ApiTestContext {
  deps: TestDeps;
  app: App;
  keys: KeyStore;
  /** A fresh key of `tier` (each test takes its own so rate limits do not interfere). */
  key(tier: Tier, rate?: number): Promise<string>;
  close(): Promise<void>;
}

export async function createApiTestContext(
  name: string,
  options: AppOptions & { env?: Record<string, string> } = {},
): Promise<ApiTestContext> {
  const deps = await createTestDeps(name, { env: options.env });
  const { env: _env, ...appOptions } = options;
  const app = await buildApp({ ...deps, ...appOptions, secret: options.secret ?? TEST_SECRET });
  const keys = createKeyStore(deps.redis);
  return {
    deps,
    app,
    keys,
    async key(tier, rate) {
      return (await keys.create({ tier, name: `test-${tier}`, rate })).key;
    },
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** A lowercase 0x address / bytes32 built from a number, for readable fixtures. */
export const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const bytes32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

export const EXCHANGE_V1 = '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e';
export const EXCHANGE_V2 = '0xe111180000d2663c0091e4f400237545b87b996b';

/** Unix seconds → a DateTime64(3) literal ClickHouse parses in any input format. */
export const chTime = (s: number) => new Date(s * 1000).toISOString().replace('T', ' ').replace('Z', '');

/** One `alpha_fills` row (columns of schemas/clickhouse/010_chain.sql) with sensible defaults. */
export function fillRow(o: {
  block: number;
  logIndex: number;
  maker: string;
  tokenId?: string;
  conditionId?: string;
  txHash?: string;
  orderHash?: string;
  role?: 'maker' | 'taker';
  side?: 'BUY' | 'SELL';
  usd?: number;
  shares?: number;
  version?: 1 | 2;
  builder?: string;
  metadata?: string;
  time?: number;
}) {
  const usd = o.usd ?? 50_000_000;
  const shares = o.shares ?? 100_000_000;
  const version = o.version ?? 1;
  const side = o.side ?? 'BUY';
  return {
    chain_id: 137,
    block_number: o.block,
    block_hash: bytes32(o.block + 7_000_000),
    block_time: chTime(o.time ?? 1_700_000_000 + o.block * 2),
    tx_hash: o.txHash ?? bytes32(o.block * 1000 + 1),
    log_index: o.logIndex,
    exchange: version === 2 ? EXCHANGE_V2 : EXCHANGE_V1,
    exchange_version: version,
    neg_risk: false,
    order_hash: o.orderHash ?? bytes32(o.block * 1000 + o.logIndex + 500_000_000),
    maker: o.maker,
    taker: o.role === 'taker' ? (version === 2 ? EXCHANGE_V2 : EXCHANGE_V1) : addr(0xfeed),
    role: o.role ?? 'maker',
    side,
    token_id: o.tokenId ?? '1001',
    condition_id: o.conditionId ?? '',
    outcome_index: 0,
    maker_amount: side === 'BUY' ? usd : shares,
    taker_amount: side === 'BUY' ? shares : usd,
    shares,
    usd,
    price: usd / shares,
    fee: 0,
    fee_asset: version === 2 || side === 'SELL' ? 'collateral' : 'shares',
    builder: o.builder ?? '',
    metadata: o.metadata ?? '',
    status: 'confirmed',
  };
}

/**
 * Labels of the reads the app's in-process maps make on their own timers (the token map's refresh, the
 * market slugs' reload every 60 s), whatever the requests do: a test counting a request's reads leaves
 * them out.
 */
export const BACKGROUND_READS = /^api\.alpha\.(tokens\.|market_slugs$)/;

/** The labels of a spied read's calls, the background reloads left out. */
export const requestReads = (calls: readonly unknown[][]): unknown[] =>
  calls.map((c) => c[0]).filter((l) => !(typeof l === 'string' && BACKGROUND_READS.test(l)));
