/**
 * The alpha chain pipeline against a real anvil chain and real chDB: logs emitted at alpha's addresses
 * (raw emitter, so malformed ones too), backfilled by range jobs, checked row by row.
 */
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, pad, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackedLogs } from '../ingest/chain/packed-logs.ts';
import { emitInBlock, installRawEmitter, type RawLogSpec } from '../ingest/chain/raw-emitter.ts';
import { createLogSource, type LogSource } from '../ingest/chain/source.ts';
import { createChainWriter } from '../ingest/chain/writer.ts';
import { createAlphaChain, createAlphaChainParts } from '../ingest/venues/alpha/chain/ingestor.ts';
import { REFERENCE_TABLES } from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from '../ingest/venues/alpha/chain/tables.ts';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import { createEta } from '../jobs/commands/backfill-progress.ts';
import { ALPHA_ADDRESS_SETS, allContracts } from '../schemas/abi/alpha-addresses.ts';
import { type Anvil, startTestChain } from './support/chain.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const V1 = '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E';
const V2 = '0xE111180000d2663C0091e4f400237545B87B996B';
const CTF = '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045';
const PUSD = '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB';
const MAKER = '0x00000000000000000000000000000000000000aa';
const TAKER = '0x00000000000000000000000000000000000000bb';

function encodeEvent(signature: string, args: Record<string, unknown>): RawLogSpec {
  const item = parseAbiItem(signature) as AbiEvent;
  const topics = encodeEventTopics({ abi: [item], eventName: item.name, args: args as never }) as Hex[];
  const nonIndexed = item.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(
    nonIndexed,
    nonIndexed.map((i) => args[i.name!]),
  );
  return { topics, data };
}

const ORDER_FILLED_V1 =
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)';
const ORDER_FILLED_V2 =
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)';

describe('alpha chain pipeline on anvil', () => {
  let deps: TestDeps;
  let anvil: Anvil;

  beforeAll(async () => {
    [deps, anvil] = await Promise.all([createTestDeps('chain_pipeline'), startTestChain()]);
    await installRawEmitter(
      anvil.rpc,
      allContracts(ALPHA_ADDRESS_SETS).map((c) => c.address),
    );
  });
  afterAll(async () => {
    await anvil?.stop();
    await deps?.close();
  });

  function settingsFor(startBlock = 0) {
    return alphaChainSettings(deps.config, {
      rpcUrls: [anvil.url],
      positionIds: 'simplified',
      finalityDepth: 1,
      logRange: 3,
      startBlock,
    });
  }

  function chainFor(startBlock = 0) {
    return createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settingsFor(startBlock));
  }

  it('maps V1 and V2 OrderFilled into maker and taker fills, and quarantines malformed logs without stopping', async () => {
    const orderHash = pad('0x01', { size: 32 });
    const builder = pad('0xb1', { size: 32 });
    const first = await emitInBlock(anvil.rpc, [
      {
        address: V1,
        logs: [
          // maker BUY: pays 52 USDC for 100 shares of token 7
          encodeEvent(ORDER_FILLED_V1, {
            orderHash,
            maker: MAKER,
            taker: TAKER,
            makerAssetId: 0n,
            takerAssetId: 7n,
            makerAmountFilled: 52_000_000n,
            takerAmountFilled: 100_000_000n,
            fee: 0n,
          }),
          // taker aggregate SELL of token 7 (taker = the exchange)
          encodeEvent(ORDER_FILLED_V1, {
            orderHash: pad('0x02', { size: 32 }),
            maker: TAKER,
            taker: V1,
            makerAssetId: 7n,
            takerAssetId: 0n,
            makerAmountFilled: 100_000_000n,
            takerAmountFilled: 52_000_000n,
            fee: 1_000n,
          }),
          // malformed: an OrderFilled with one data word missing
          {
            ...encodeEvent(ORDER_FILLED_V1, {
              orderHash,
              maker: MAKER,
              taker: TAKER,
              makerAssetId: 0n,
              takerAssetId: 7n,
              makerAmountFilled: 1n,
              takerAmountFilled: 1n,
              fee: 0n,
            }),
            data: `0x${'00'.repeat(32 * 4)}` as Hex,
          },
        ],
      },
      {
        address: CTF,
        // unknown topic at a known address
        logs: [{ topics: [pad('0xdead', { size: 32 })], data: '0x' }],
      },
    ]);
    const second = await emitInBlock(anvil.rpc, [
      {
        address: V2,
        logs: [
          encodeEvent(ORDER_FILLED_V2, {
            orderHash: pad('0x03', { size: 32 }),
            maker: MAKER,
            taker: TAKER,
            side: 1,
            tokenId: 9n,
            makerAmountFilled: 10_000_000n,
            takerAmountFilled: 3_000_000n,
            fee: 30_000n,
            builder,
            metadata: pad('0x00', { size: 32 }),
          }),
        ],
      },
      {
        address: PUSD,
        logs: [
          encodeEvent('event Transfer(address indexed from, address indexed to, uint256 value)', {
            from: MAKER,
            to: TAKER,
            value: 2n ** 64n - 1n,
          }),
        ],
      },
    ]);
    const chain = chainFor();
    const res = await chain.ingestRange({ from: 1, to: second });
    expect(res.quarantined).toBe(2);

    const fills = await deps.clickhouse.query<Record<string, unknown>>(
      'test.fills',
      'SELECT * FROM alpha_fills ORDER BY block_number, log_index',
    );
    expect(fills).toHaveLength(3);
    expect(fills[0]).toMatchObject({
      block_number: String(first),
      exchange: V1.toLowerCase(),
      exchange_version: 1,
      role: 'maker',
      side: 'BUY',
      token_id: '7',
      shares: '100000000',
      usd: '52000000',
      price: 0.52,
      fee_asset: 'shares',
      builder: '',
      maker: MAKER,
      taker: TAKER,
      status: 'confirmed',
    });
    expect(fills[1]).toMatchObject({
      role: 'taker',
      side: 'SELL',
      taker: V1.toLowerCase(),
      fee: '1000',
      fee_asset: 'collateral',
    });
    expect(fills[2]).toMatchObject({
      exchange_version: 2,
      role: 'maker',
      side: 'SELL',
      token_id: '9',
      shares: '10000000',
      usd: '3000000',
      price: 0.3,
      builder: builder.toLowerCase(),
      metadata: '',
      status: 'pending',
    });
    const [transfer] = await deps.clickhouse.query<{ amount: string }>(
      'test.collateral',
      'SELECT amount FROM alpha_collateral',
    );
    expect(transfer?.amount).toBe('18446744073709551615');

    const quarantined = await deps.clickhouse.query<{ kind: string; record_id: string }>(
      'test.quarantine',
      `SELECT kind, record_id FROM quarantine WHERE source = 'alpha-chain' ORDER BY kind`,
    );
    expect(quarantined.map((q) => q.kind)).toEqual(['bad_data', 'unknown_topic']);

    const blocks = await deps.clickhouse.query<{ number: string }>(
      'test.blocks',
      'SELECT number FROM alpha_blocks ORDER BY number',
    );
    expect(blocks.map((b) => Number(b.number))).toEqual([first, second]);
  });

  it('running the same range again changes nothing, and a finished range is skipped', async () => {
    const snapshot = async () =>
      deps.clickhouse.query(
        'test.snapshot',
        `SELECT (SELECT count() FROM alpha_fills) AS fills, (SELECT sum(usd) FROM alpha_fills) AS usd,
                (SELECT count() FROM alpha_collateral) AS collateral, (SELECT count() FROM alpha_blocks) AS blocks`,
      );
    const before = await snapshot();
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const chain = chainFor();
    const again = await chain.ingestRange({ from: 1, to: head });
    expect(again.skipped).toBe(true);
    // A different range over the same blocks rewrites them: same rows.
    await chain.ingestRange({ from: 0, to: head });
    expect(await snapshot()).toEqual(before);
  });

  it('a follower started after a backfill continues where the backfill stopped, deleting nothing (even below ALPHA_START_BLOCK)', async () => {
    const count = async () =>
      Number(
        (await deps.clickhouse.query<{ n: string }>('test.count', 'SELECT count() AS n FROM alpha_fills'))[0]
          ?.n,
      );
    const before = await count();
    const backfilledTo = Number(await anvil.rpc<string>('eth_blockNumber'));
    await emitInBlock(anvil.rpc, [
      {
        address: V1,
        logs: [
          encodeEvent(ORDER_FILLED_V1, {
            orderHash: pad('0x09', { size: 32 }),
            maker: MAKER,
            taker: TAKER,
            makerAssetId: 0n,
            takerAssetId: 7n,
            makerAmountFilled: 5n,
            takerAmountFilled: 10n,
            fee: 0n,
          }),
        ],
      },
    ]);
    // The backfill ran from block 0, below this start block (the Polygon default, far above this chain's
    // head): the follower continues after the backfill all the same.
    const follower = chainFor(4_023_686).follow();
    const first = await follower.tick();
    expect(first).toMatchObject({ kind: 'ingested', from: backfilledTo + 1 });
    expect(await count()).toBe(before + 1);
  });

  it("requests a short range's headers before its logs, each block's once", async () => {
    // anvil answers nothing while it builds a large log response: a header asked for once the logs
    // arrive would wait behind the next ranges' logs.
    const real = createLogSource({ urls: [anvil.url], log: deps.log });
    const calls: ({ kind: 'headers'; numbers: number[] } | { kind: 'logs'; from: number; to: number })[] = [];
    const source: LogSource = {
      ...real,
      getHeaders(numbers) {
        calls.push({ kind: 'headers', numbers: [...numbers] });
        return real.getHeaders(numbers);
      },
      streamLogs(from, to, addresses, topics, partLogs) {
        calls.push({ kind: 'logs', from, to });
        return real.streamLogs!(from, to, addresses, topics, partLogs);
      },
    };
    const settings = alphaChainSettings(deps.config, {
      rpcUrls: [anvil.url],
      positionIds: 'simplified',
      finalityDepth: 1,
      logRange: 2,
      logRangeMax: 2,
    });
    const batches: number[] = [];
    const writer = createChainWriter({
      tables: ALPHA_CHAIN_WRITES,
      log: deps.log,
      chainId: settings.chainId,
      send: async (_t, rows) => void batches.push(rows),
    });
    const { pipeline } = createAlphaChainParts(
      { clickhouse: deps.clickhouse, log: deps.log, source, writer },
      settings,
    );
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const result = await pipeline.ingestRange(0, head, {
      statusOf: () => 'confirmed',
      skip: REFERENCE_TABLES,
    });
    await writer.flush();
    expect(result.logs).toBeGreaterThan(0);
    expect(batches.length).toBeGreaterThan(0);
    const asked = new Set<number>();
    let ranges = 0;
    for (const call of calls) {
      if (call.kind === 'headers') {
        for (const n of call.numbers) {
          expect(asked.has(n), `header of block ${n} requested twice`).toBe(false);
          asked.add(n);
        }
        continue;
      }
      ranges++;
      for (let n = call.from; n <= call.to; n++) expect(asked.has(n), `header of block ${n}`).toBe(true);
    }
    expect(ranges).toBeGreaterThan(2);
  });

  it('turns a date into the first block at or after it', async () => {
    const chain = chainFor();
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const source = createLogSource({ urls: [anvil.url], log: deps.log });
    const headers = await source.getHeaders(Array.from({ length: head + 1 }, (_, i) => i));
    for (const k of [1, head]) {
      const t = headers.get(k)!.timestampMs;
      const b = await chain.blockAt(t, head);
      expect(headers.get(b)!.timestampMs).toBeGreaterThanOrEqual(t);
      if (b > 0) expect(headers.get(b - 1)!.timestampMs).toBeLessThan(t);
    }
    expect(await chain.blockAt(headers.get(head)!.timestampMs + 1000, head)).toBe(head + 1);
  });

  it('pages mapped at the same time on one chain each count their own rows (range jobs share the writer)', async () => {
    const chain = createAlphaChainParts({ clickhouse: deps.clickhouse, log: deps.log }, settingsFor());
    const usdc = '0x2791bca1f2de4661ed88a30c99a7a9449aa84174';
    const page = (block: number, n: number) => {
      const blockHash = pad(`0x${block.toString(16)}`, { size: 32 });
      const logs = Array.from({ length: n }, (_, i) => ({
        address: usdc,
        ...encodeEvent('event Transfer(address indexed from, address indexed to, uint256 value)', {
          from: MAKER,
          to: TAKER,
          value: BigInt(i + 1),
        }),
        blockNumber: `0x${block.toString(16)}`,
        blockHash,
        transactionHash: pad(`0x${(block * 10_000 + i).toString(16)}`, { size: 32 }),
        transactionIndex: `0x${i.toString(16)}`,
        logIndex: `0x${i.toString(16)}`,
        removed: false,
      }));
      const headers = new Map([
        [
          block,
          {
            number: block,
            hash: blockHash,
            parentHash: pad('0x01', { size: 32 }),
            timestampMs: 1_700_000_000_000,
          },
        ],
      ]);
      return { logs: PackedLogs.of(logs), headers };
    };
    // Blocks far above the chain's, removed afterwards. The mapper yields every 1,000 logs, so the two
    // mappings interleave.
    const a = page(900_000, 2_500);
    const b = page(900_001, 3_000);
    const opts = { statusOf: () => 'confirmed' as const, skip: REFERENCE_TABLES };
    const [ra, rb] = await Promise.all([
      chain.pipeline.writeLogs(a.logs, a.headers, opts),
      chain.pipeline.writeLogs(b.logs, b.headers, opts),
    ]);
    expect([ra.rows, rb.rows]).toEqual([2_500, 3_000]);
    await chain.writer.flush();
    const n = await deps.clickhouse.query<{ n: string }>(
      'test.count',
      'SELECT count() AS n FROM alpha_collateral WHERE block_number >= 900000',
    );
    expect(Number(n[0]!.n)).toBe(5_500);
    await chain.writer.deleteRange(900_000);
  });

  it('refuses a --concurrency that is not an integer from 1 to 64, before touching any service', async () => {
    for (const bad of ['0', '65', '1.5', 'two', '']) {
      await expect(runBackfillCommand(['alpha', '--concurrency', bad], {} as never)).rejects.toThrow(
        `--concurrency must be an integer from 1 to 64, got "${bad}"`,
      );
    }
  });

  it("the backfill's ETA follows the rate of the last 30 s, and is unknown after a longer stall", () => {
    const eta = createEta(1_000, 0);
    // 60 s at 10 blocks/s, then 20 s at 1 block/s: the last 30 s did 10 × 10 + 20 × 1 = 120 blocks.
    let blocks = 0;
    let left = 0;
    for (let t = 1; t <= 80; t++) {
      blocks += t <= 60 ? 10 : 1;
      left = eta.update(t * 1000, blocks);
    }
    expect(blocks).toBe(620);
    expect(left).toBeCloseTo((1_000 - 620) / (120 / 30), 5);
    // No block for 31 s: the window holds no progress.
    expect(eta.update(111_000, blocks)).toBe(Number.POSITIVE_INFINITY);
  });
});
