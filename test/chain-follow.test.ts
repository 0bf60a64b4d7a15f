/**
 * The live follower against a real anvil chain: reorgs of depth 1, 3 and 10 injected while it
 * follows (snapshot, revert, different blocks at the same heights), then every alpha table must equal
 * a clean backfill of the final chain. Publication on Redis is checked on the way.
 */
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, pad, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../core/redis.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { emitInBlock, installRawEmitter, type RawLogSpec } from '../ingest/chain/raw-emitter.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { createPublisher } from '../ingest/venues/alpha/chain/publish.ts';
import { EVENT_TABLES, NATURAL_ORDER } from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_ADDRESS_SETS, allContracts } from '../schemas/abi/alpha-addresses.ts';
import { type Anvil, startTestChain } from './support/chain.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const V1 = '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E';
const V2 = '0xE111180000d2663C0091e4f400237545B87B996B';
const CTF = '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045';
const PUSD = '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB';
const UMA_V3 = '0x157Ce2d672854c848c9b79C49a8Cc6cc89176a49';

function encodeEvent(signature: string, args: Record<string, unknown>): RawLogSpec {
  const item = parseAbiItem(signature) as AbiEvent;
  const topics = encodeEventTopics({ abi: [item], eventName: item.name, args: args as never }) as Hex[];
  const nonIndexed = item.inputs.filter((i) => !i.indexed);
  return {
    topics,
    data: encodeAbiParameters(
      nonIndexed,
      nonIndexed.map((i) => args[i.name!]),
    ),
  };
}

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** A block's worth of varied alpha events; `seed` makes each block's content distinct. */
function blockEvents(seed: number) {
  const conditionId = pad(`0x${(1000 + seed).toString(16)}`, { size: 32 });
  return [
    {
      address: CTF,
      logs: [
        encodeEvent(
          'event ConditionPreparation(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount)',
          { conditionId, oracle: UMA_V3, questionId: pad('0x0a', { size: 32 }), outcomeSlotCount: 2n },
        ),
        encodeEvent(
          'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
          {
            operator: addr(1),
            from: addr(seed + 2),
            to: addr(seed + 3),
            id: BigInt(seed + 5),
            value: BigInt(seed * 10 + 1),
          },
        ),
      ],
    },
    {
      address: seed % 2 === 0 ? V1 : V2,
      logs: [
        seed % 2 === 0
          ? encodeEvent(
              'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
              {
                orderHash: pad(`0x${seed.toString(16)}`, { size: 32 }),
                maker: addr(100 + seed),
                taker: addr(200),
                makerAssetId: 0n,
                takerAssetId: BigInt(seed + 5),
                makerAmountFilled: BigInt(1_000_000 + seed),
                takerAmountFilled: 2_000_000n,
                fee: 0n,
              },
            )
          : encodeEvent(
              'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
              {
                orderHash: pad(`0x${seed.toString(16)}`, { size: 32 }),
                maker: addr(100 + seed),
                taker: V2,
                side: 0,
                tokenId: BigInt(seed + 5),
                makerAmountFilled: BigInt(1_000_000 + seed),
                takerAmountFilled: 2_000_000n,
                fee: 10n,
                builder: pad('0x00', { size: 32 }),
                metadata: pad('0x01', { size: 32 }),
              },
            ),
      ],
    },
    {
      address: PUSD,
      logs: [
        encodeEvent('event Transfer(address indexed from, address indexed to, uint256 value)', {
          from: addr(seed + 7),
          to: addr(seed + 8),
          value: BigInt(seed),
        }),
      ],
    },
  ];
}

describe('alpha live follower', () => {
  let deps: TestDeps;
  let anvil: Anvil;
  let chain: AlphaChainIngestor;
  let follower: Follower;
  const messages: { channel: string; status: string }[] = [];
  let subscriber: ReturnType<typeof createRedis>;
  let seed = 1;

  const settingsFor = () =>
    alphaChainSettings(deps.config, {
      rpcUrls: [anvil.url],
      positionIds: 'simplified',
      finalityDepth: 12,
      logRange: 4,
      followMaxBlocksPerTick: 7,
    });

  async function mineWithEvents(blocks: number) {
    for (let i = 0; i < blocks; i++) {
      if (i % 3 === 2) await anvil.rpc('evm_mine', []);
      else await emitInBlock(anvil.rpc, blockEvents(seed++));
    }
  }

  async function catchUp() {
    for (let i = 0; i < 50; i++) {
      const o = await follower.tick();
      if (o.kind === 'idle') return;
    }
    throw new Error('follower did not catch up');
  }

  /** Replaces the last `depth` blocks with `depth` different ones (same heights, new hashes). */
  async function reorg(depth: number, snapshots: Map<number, string>) {
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const id = snapshots.get(head - depth);
    if (!id) throw new Error(`no snapshot at ${head - depth}`);
    await anvil.rpc('evm_revert', [id]);
    seed += 1000;
    await mineWithEvents(depth);
  }

  async function tables() {
    const out: Record<string, unknown[]> = {};
    for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
      const order = NATURAL_ORDER[t as keyof typeof NATURAL_ORDER];
      out[t] = await deps.clickhouse.query(`test.dump.${t}`, `SELECT * FROM ${t} ORDER BY ${order}`);
    }
    return out;
  }

  beforeAll(async () => {
    [deps, anvil] = await Promise.all([createTestDeps('chain_follow'), startTestChain()]);
    await installRawEmitter(
      anvil.rpc,
      allContracts(ALPHA_ADDRESS_SETS).map((c) => c.address),
    );
    subscriber = createRedis(deps.config.redisUrl);
    await subscriber.psubscribe(`${deps.prefix}:alpha:*`);
    subscriber.on('pmessage', (_p, channel, message) => {
      messages.push({ channel, status: (JSON.parse(message) as { status: string }).status });
    });
    chain = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settingsFor());
    follower = chain.follow({
      publisher: createPublisher(deps.redis, { prefix: `${deps.prefix}:`, chainId: 137 }),
      fromBlock: 1,
    });
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await anvil?.stop();
    await deps?.close();
  });

  it('reorgs of depth 1, 3 and 10 during follow leave every table equal to a clean backfill of the final chain', async () => {
    const snapshots = new Map<number, string>();
    const snap = async () => {
      const head = Number(await anvil.rpc<string>('eth_blockNumber'));
      snapshots.set(head, await anvil.rpc<string>('evm_snapshot', []));
    };
    await mineWithEvents(20);
    await catchUp();
    for (const depth of [1, 3, 10]) {
      // Snapshots at every height of the last `depth` blocks' parent (single use: take them fresh).
      snapshots.clear();
      await snap();
      for (let i = 0; i < depth + 2; i++) {
        await mineWithEvents(1);
        await snap();
      }
      await catchUp();
      const before = follower.tip()!;
      await reorg(depth, snapshots);
      const outcome = await follower.tick();
      expect(outcome.kind).toBe('reorg');
      if (outcome.kind === 'reorg') expect(outcome.ancestor).toBeLessThan(before.number);
      await catchUp();
    }
    await mineWithEvents(4);
    await catchUp();
    const followed = await tables();
    expect((followed.alpha_fills ?? []).length).toBeGreaterThan(20);
    expect(followed.alpha_fills?.some((r) => (r as { status: string }).status === 'pending')).toBe(true);
    expect(followed.alpha_fills?.some((r) => (r as { status: string }).status === 'confirmed')).toBe(true);

    // Clean backfill of the final chain into emptied tables.
    for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
      await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
    }
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const clean = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settingsFor());
    await clean.referencePass(1, head);
    await clean.ingestRange({ from: 1, to: head }, { head });
    const backfilled = await tables();
    for (const t of Object.keys(followed)) expect(backfilled[t], t).toEqual(followed[t]);

    await new Promise((r) => setTimeout(r, 100));
    const statuses = new Set(messages.map((m) => m.status));
    expect(statuses).toEqual(new Set(['pending', 'confirmed', 'removed']));
    expect(messages.some((m) => m.channel.endsWith('alpha:trades'))).toBe(true);
  });
});
