/**
 * The simulated alpha chain against alpha's published event signatures and its own ground truth: one small world for
 * the whole file (history built once), then read back through JSON-RPC like an ingestor would.
 */
import { type Address, decodeEventLog, encodeFunctionData, getAddress, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDR } from '../sim/chain/addresses.ts';
import { compileContracts } from '../sim/chain/compile.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { allLogs, type DocEvent, type DocRole, docEvents, type RawLog } from './support/chain.ts';

const ROLE_ADDRESSES: Record<DocRole, Address[]> = {
  exchangeV1: [ADDR.ctfExchangeV1, ADDR.negRiskCtfExchangeV1],
  exchangeV2: [ADDR.ctfExchangeV2, ADDR.negRiskCtfExchangeV2],
  feeModule: [ADDR.feeModule, ADDR.negRiskFeeModule],
  ctf: [ADDR.conditionalTokens],
  negRiskAdapter: [ADDR.negRiskAdapter],
  negRiskOperator: [ADDR.negRiskOperator],
  umaAdapter: [ADDR.umaCtfAdapter, ADDR.negRiskUmaCtfAdapter],
  oracle: [ADDR.optimisticOracleV2],
  erc20: [ADDR.usdcE, ADDR.wcol],
  pUsd: [ADDR.pUsd],
};

/** Decoders by (emitter address, topic0), built from the documented signatures only. */
const DECODERS = new Map<string, DocEvent>();
for (const [role, addresses] of Object.entries(ROLE_ADDRESSES) as [DocRole, Address[]][]) {
  for (const ev of docEvents(role)) {
    for (const a of addresses) DECODERS.set(`${a.toLowerCase()}|${ev.topic0}`, ev);
  }
}

/** Event kinds issue 3 requires to appear on chain. */
const REQUIRED_KINDS = [
  'exchangeV1.OrderFilled',
  'exchangeV1.OrdersMatched',
  'exchangeV1.FeeCharged',
  'exchangeV1.TokenRegistered',
  'exchangeV2.OrderFilled',
  'exchangeV2.OrdersMatched',
  'exchangeV2.FeeCharged',
  'feeModule.FeeRefunded',
  'ctf.ConditionPreparation',
  'ctf.ConditionResolution',
  'ctf.PositionSplit',
  'ctf.PositionsMerge',
  'ctf.PayoutRedemption',
  'ctf.TransferSingle',
  'ctf.TransferBatch',
  'negRiskAdapter.MarketPrepared',
  'negRiskAdapter.QuestionPrepared',
  'negRiskAdapter.PositionSplit',
  'negRiskAdapter.PositionsMerge',
  'negRiskAdapter.PayoutRedemption',
  'negRiskAdapter.PositionsConverted',
  'negRiskAdapter.OutcomeReported',
  'umaAdapter.QuestionInitialized',
  'umaAdapter.QuestionReset',
  'umaAdapter.QuestionResolved',
  'oracle.RequestPrice',
  'oracle.ProposePrice',
  'oracle.DisputePrice',
  'oracle.Settle',
  'erc20.Transfer',
  'pUsd.Transfer',
  'pUsd.Wrapped',
  'pUsd.Unwrapped',
];

interface Decoded {
  log: RawLog;
  kind: string;
  args: Record<string, unknown>;
}

function decodeAll(logs: RawLog[]): Decoded[] {
  return logs.map((log) => {
    const ev = DECODERS.get(`${log.address.toLowerCase()}|${log.topics[0]}`);
    if (!ev) throw new Error(`no documented event for ${log.address} topic0 ${log.topics[0]}`);
    const d = decodeEventLog({
      abi: [ev.abi],
      data: log.data,
      topics: log.topics as [Hex, ...Hex[]],
      strict: true,
    });
    return { log, kind: ev.kind, args: d.args as unknown as Record<string, unknown> };
  });
}

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const ERC20_APPROVE = parseAbi(['function approve(address spender, uint256 value) returns (bool)']);
const ERC1155 = parseAbi([
  'function balanceOfBatch(address[] owners, uint256[] ids) view returns (uint256[])',
]);

/** Ledger balances that differ from the chain's, as readable strings (empty when all agree). */
async function balanceMismatches(sim: Sim): Promise<string[]> {
  const bad: string[] = [];
  const erc20 = sim.ledger.erc20Balances();
  for (const b of erc20) {
    const data = encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [b.holder] });
    const out = await sim.anvil.rpc<Hex>('eth_call', [{ to: b.token, data }, 'latest']);
    if (BigInt(out) !== b.amount)
      bad.push(`erc20 ${b.token} ${b.holder}: ledger ${b.amount}, chain ${BigInt(out)}`);
  }
  const erc1155 = sim.ledger.erc1155Balances();
  for (let i = 0; i < erc1155.length; i += 400) {
    const chunk = erc1155.slice(i, i + 400);
    const data = encodeFunctionData({
      abi: ERC1155,
      functionName: 'balanceOfBatch',
      args: [chunk.map((b) => b.holder), chunk.map((b) => BigInt(b.tokenId))],
    });
    const out = await sim.anvil.rpc<Hex>('eth_call', [{ to: ADDR.conditionalTokens, data }, 'latest']);
    const words = out.slice(130).match(/.{64}/g) ?? [];
    chunk.forEach((b, j) => {
      const onChain = BigInt(`0x${words[j] ?? '0'}`);
      if (onChain !== b.amount)
        bad.push(`erc1155 ${b.tokenId} ${b.holder}: ledger ${b.amount}, chain ${onChain}`);
    });
  }
  return bad;
}

let sim: Sim;
let upMs = 0;
let decoded: Decoded[] = [];

beforeAll(async () => {
  compileContracts(); // warm the compile cache: the timing below is about starting a world
  const t0 = performance.now();
  sim = await startSim({ seed: 'sim-chain-test', size: 'small' });
  upMs = performance.now() - t0;
  decoded = decodeAll(await allLogs(sim.anvil, 0, sim.historyHead));
}, 240_000);

afterAll(async () => {
  await sim?.stop();
});

describe('sim chain', () => {
  it('a small world (chain with its history and every venue replica) is up in under 10 s', async () => {
    expect(upMs).toBeLessThan(10_000);
    expect(sim.stats.fills).toBeGreaterThan(300);
    const urls = sim.replicaUrls as NonNullable<Sim['replicaUrls']>;
    expect(Object.keys(urls).sort()).toEqual([
      'alpha_book',
      'alpha_metadata',
      'beta',
      'delta',
      'epsilon',
      'gamma',
    ]);
    const res = await fetch(`${urls.alpha_metadata}/markets?limit=5`);
    expect(res.status).toBe(200);
  });

  it('every log decodes against the alpha-chain.md signatures by (emitter, topic0), and every listed kind occurs', () => {
    const seen = new Map<string, number>();
    for (const d of decoded) seen.set(d.kind, (seen.get(d.kind) ?? 0) + 1);
    const missing = REQUIRED_KINDS.filter((k) => !seen.has(k));
    expect(missing).toEqual([]);
    expect(decoded.length).toBeGreaterThan(2000);
  });

  it('each match emits one fill per maker naming the taker order maker, then the aggregate naming the exchange, then OrdersMatched', () => {
    const exchanges = new Set(
      [...ROLE_ADDRESSES.exchangeV1, ...ROLE_ADDRESSES.exchangeV2].map((a) => a.toLowerCase()),
    );
    let matches = 0;
    let pendingMakers: Decoded[] = [];
    let aggregate: Decoded | null = null;
    let complementFills = { buy: 0, sell: 0 };
    const tokenOf = (d: Decoded): bigint => {
      if ('tokenId' in d.args) return d.args.tokenId as bigint;
      return (d.args.makerAssetId as bigint) === 0n
        ? (d.args.takerAssetId as bigint)
        : (d.args.makerAssetId as bigint);
    };
    const isBuy = (d: Decoded): boolean =>
      'side' in d.args ? Number(d.args.side) === 0 : (d.args.makerAssetId as bigint) === 0n;
    for (const d of decoded) {
      const addr = d.log.address.toLowerCase();
      if (!exchanges.has(addr)) continue;
      const name = d.kind.split('.')[1];
      if (name === 'OrderFilled') {
        expect(aggregate).toBeNull();
        if ((d.args.taker as string).toLowerCase() === addr) aggregate = d;
        else pendingMakers.push(d);
      } else if (name === 'OrdersMatched') {
        const agg = aggregate as Decoded | null;
        expect(agg).not.toBeNull();
        if (!agg) continue;
        expect(d.log.transactionHash).toBe(agg.log.transactionHash);
        expect(Number(d.log.logIndex)).toBe(Number(agg.log.logIndex) + 1);
        expect(d.args.takerOrderHash).toBe(agg.args.orderHash);
        expect(d.args.takerOrderMaker).toBe(agg.args.maker);
        expect(d.args.makerAmountFilled).toBe(agg.args.makerAmountFilled);
        expect(d.args.takerAmountFilled).toBe(agg.args.takerAmountFilled);
        expect(pendingMakers.length).toBeGreaterThan(0);
        for (const m of pendingMakers) {
          expect(m.args.taker).toBe(agg.args.maker);
          expect(m.log.transactionHash).toBe(agg.log.transactionHash);
          if (tokenOf(m) !== tokenOf(agg)) {
            // MINT (both buy) or MERGE (both sell): the maker trades the complement token.
            expect(isBuy(m)).toBe(isBuy(agg));
            complementFills = isBuy(m)
              ? { ...complementFills, buy: complementFills.buy + 1 }
              : { ...complementFills, sell: complementFills.sell + 1 };
          }
        }
        matches++;
        pendingMakers = [];
        aggregate = null;
      }
    }
    expect(pendingMakers).toEqual([]);
    expect(matches).toBe(sim.stats.matches);
    expect(complementFills.buy).toBeGreaterThan(0);
    expect(complementFills.sell).toBeGreaterThan(0);
  });

  it('token registrations come in (t0, t1) and (t1, t0) pairs, and v2 fills carry builder codes and metadata', () => {
    const regs = decoded.filter((d) => d.kind === 'exchangeV1.TokenRegistered');
    for (let i = 0; i < regs.length; i += 2) {
      const a = regs[i] as Decoded;
      const b = regs[i + 1] as Decoded;
      expect(b.args.token0).toBe(a.args.token1);
      expect(b.args.token1).toBe(a.args.token0);
      expect(b.args.conditionId).toBe(a.args.conditionId);
    }
    const v2 = decoded.filter((d) => d.kind === 'exchangeV2.OrderFilled');
    const zero = `0x${'0'.repeat(64)}`;
    const builders = new Set(v2.map((d) => d.args.builder as string).filter((b) => b !== zero));
    expect(builders.size).toBeGreaterThan(1);
    expect(v2.some((d) => d.args.metadata !== zero)).toBe(true);
    expect(v2.some((d) => d.args.builder === zero)).toBe(true);
  });

  it('the fills on chain equal the ledger fills field by field, in order', () => {
    const onChain = decoded.filter((d) => d.kind.endsWith('.OrderFilled'));
    const ledger = sim.ledger.fills;
    expect(onChain.length).toBe(ledger.length);
    onChain.forEach((d, i) => {
      const f = ledger[i] as (typeof ledger)[number];
      expect(d.log.transactionHash).toBe(f.txHash);
      expect(Number(d.log.blockNumber)).toBe(f.block);
      expect(getAddress(d.log.address)).toBe(getAddress(f.exchange));
      expect(d.args.orderHash).toBe(f.orderHash);
      expect(getAddress(d.args.maker as string)).toBe(getAddress(f.maker));
      expect(getAddress(d.args.taker as string)).toBe(getAddress(f.taker));
      expect(d.args.makerAmountFilled).toBe(f.makerAmountFilled);
      expect(d.args.takerAmountFilled).toBe(f.takerAmountFilled);
      expect(d.args.fee).toBe(f.fee);
      if (f.version === 2) {
        expect(Number(d.args.side)).toBe(f.side === 'buy' ? 0 : 1);
        expect((d.args.tokenId as bigint).toString()).toBe(f.tokenId);
        expect(d.args.builder).toBe(f.builder);
        expect(d.args.metadata).toBe(f.metadata);
      } else {
        const buy = (d.args.makerAssetId as bigint) === 0n;
        expect(buy).toBe(f.side === 'buy');
        expect((buy ? (d.args.takerAssetId as bigint) : (d.args.makerAssetId as bigint)).toString()).toBe(
          f.tokenId,
        );
      }
    });
  });

  it('the ledger records every resolution, conversion, wrap, unwrap and fee refund the chain emitted', () => {
    const count = (kind: string) => decoded.filter((d) => d.kind === kind).length;
    const resolutions = decoded
      .filter((d) => d.kind === 'ctf.ConditionResolution')
      .map((d) => [d.args.conditionId, getAddress(d.args.oracle as string), d.log.transactionHash]);
    expect(resolutions).toEqual(
      sim.ledger.resolutions.map((r) => [r.conditionId, getAddress(r.oracle), r.txHash]),
    );
    expect(sim.ledger.resolutions.some((r) => r.disputed)).toBe(true);
    expect(count('negRiskAdapter.PositionsConverted')).toBe(
      sim.ledger.activity.filter((a) => a.kind === 'convert').length,
    );
    expect(count('pUsd.Wrapped')).toBe(sim.ledger.collateral.filter((c) => c.kind === 'wrap').length);
    expect(count('pUsd.Unwrapped')).toBe(sim.ledger.collateral.filter((c) => c.kind === 'unwrap').length);
    const refunds = decoded.filter((d) => d.kind === 'feeModule.FeeRefunded');
    expect(refunds.length).toBe(sim.ledger.fills.filter((f) => f.feeRefund > 0n).length);
    expect(decoded.filter((d) => d.kind === 'oracle.DisputePrice').length).toBe(
      sim.ledger.oracle.filter((o) => o.kind === 'dispute').length,
    );
  });

  it('wallet-to-wallet position transfers on chain (TransferSingle sent by the holder) equal the ledger transfers, in order, clustered and to strangers', () => {
    // A contract moving its own tokens also has operator = from, and a direct redemption burns the
    // holder's tokens (to = zero): a plain transfer is a sim wallet's, to a nonzero address.
    const members = new Map(sim.wallets.wallets.map((w) => [w.address.toLowerCase(), w.cluster]));
    const plain = decoded
      .filter(
        (d) =>
          d.kind === 'ctf.TransferSingle' &&
          (d.args.operator as string).toLowerCase() === (d.args.from as string).toLowerCase() &&
          members.has((d.args.from as string).toLowerCase()) &&
          BigInt(d.args.to as string) !== 0n,
      )
      .map((d) => [
        d.log.transactionHash,
        Number(d.log.blockNumber),
        (d.args.from as string).toLowerCase(),
        (d.args.to as string).toLowerCase(),
        (d.args.id as bigint).toString(),
        d.args.value as bigint,
      ]);
    const ledger = sim.ledger.transfers.filter((t) => t.block <= sim.historyHead);
    expect(plain).toEqual(ledger.map((t) => [t.txHash, t.block, t.from, t.to, t.tokenId, t.amount]));
    const inCluster = ledger.filter((t) => members.get(t.from) && members.get(t.from) === members.get(t.to));
    const toStrangers = ledger.filter((t) => !members.has(t.to));
    expect(inCluster.length).toBeGreaterThan(0);
    expect(toStrangers.length).toBeGreaterThan(0);
    expect(inCluster.length + toStrangers.length).toBe(ledger.length);
  });

  it('ledger balances equal the ERC-20 and ERC-1155 balances read back from the chain', async () => {
    expect(sim.ledger.erc1155Balances().length).toBeGreaterThan(100);
    expect(await balanceMismatches(sim)).toEqual([]);
  });

  it('a reorg of depth 3 replaces the last 3 blocks at the same heights with different logs, ledger still equal to the chain', async () => {
    await sim.control.mineActive(4, 8);
    const head = sim.control.head();
    const before = await allLogs(sim.anvil, head - 2, head);
    const parent = await sim.anvil.rpc<{ hash: Hex }>('eth_getBlockByNumber', [
      `0x${(head - 3).toString(16)}`,
      false,
    ]);
    const result = await sim.control.reorg(3);
    expect(sim.control.head()).toBe(head);
    expect(result.orphaned).toHaveLength(3);
    for (const [i, h] of result.orphaned.entries()) expect(result.replacement[i]).not.toBe(h);
    const after = await allLogs(sim.anvil, head - 2, head);
    const key = (l: RawLog) => `${l.transactionHash}:${l.logIndex}:${l.data}`;
    expect(after.map(key)).not.toEqual(before.map(key));
    const first = await sim.anvil.rpc<{ parentHash: Hex }>('eth_getBlockByNumber', [
      `0x${(head - 2).toString(16)}`,
      false,
    ]);
    expect(first.parentHash).toBe(parent.hash);
    expect(sim.ledger.fills.at(-1)?.block).toBeLessThanOrEqual(head);
    expect(await balanceMismatches(sim)).toEqual([]);
  });

  it('live mode keeps mining blocks with fills until stopped', async () => {
    const head = sim.control.head();
    sim.control.startLive({ ratePerSecond: 6, blockTime: 1 });
    await new Promise((r) => setTimeout(r, 2600));
    await sim.control.stopLive();
    const now = sim.control.head();
    expect(now).toBeGreaterThanOrEqual(head + 2);
    const fills = decodeAll(await allLogs(sim.anvil, head + 1, now)).filter((d) =>
      d.kind.endsWith('OrderFilled'),
    );
    expect(fills.length).toBeGreaterThan(0);
  });

  it('live mode mines foreign transactions sent to its RPC URL (an ETH transfer, a contract call) and keeps trading', async () => {
    const [dev] = await sim.anvil.rpc<Address[]>('eth_accounts');
    const stranger = '0x00000000000000000000000000000000000f0e1a' as Address;
    sim.control.startLive({ ratePerSecond: 6, blockTime: 1 });
    try {
      await new Promise((r) => setTimeout(r, 1200));
      // Sent as any user of the printed RPC URL would: from anvil's dev account, no gas fields.
      const transfer = await sim.anvil.rpc<Hex>('eth_sendTransaction', [
        { from: dev, to: stranger, value: '0x2386f26fc10000' },
      ]);
      const call = await sim.anvil.rpc<Hex>('eth_sendTransaction', [
        {
          from: dev,
          to: ADDR.usdcE,
          data: encodeFunctionData({ abi: ERC20_APPROVE, functionName: 'approve', args: [stranger, 1n] }),
        },
      ]);
      const receipt = async (hash: Hex) => {
        for (let i = 0; i < 100; i++) {
          const r = await sim.anvil.rpc<{ status: Hex; blockNumber: Hex } | null>(
            'eth_getTransactionReceipt',
            [hash],
          );
          if (r) return r;
          await new Promise((res) => setTimeout(res, 100));
        }
        throw new Error(`${hash} was not mined`);
      };
      const [r1, r2] = [await receipt(transfer), await receipt(call)];
      expect([r1.status, r2.status]).toEqual(['0x1', '0x1']);
      const mined = Math.max(Number(r1.blockNumber), Number(r2.blockNumber));
      for (let i = 0; i < 100 && sim.control.head() < mined + 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(sim.control.isLive(), 'live trading stopped').toBe(true);
      expect(sim.control.head()).toBeGreaterThanOrEqual(mined + 2);
      const balance = await sim.anvil.rpc<Hex>('eth_getBalance', [stranger, 'latest']);
      expect(BigInt(balance)).toBe(10_000_000_000_000_000n);
      // The blocks after the foreign ones still carry the sim's trades.
      const fills = decodeAll(await allLogs(sim.anvil, mined + 1, sim.control.head())).filter((d) =>
        d.kind.endsWith('OrderFilled'),
      );
      expect(fills.length).toBeGreaterThan(0);
    } finally {
      await sim.control.stopLive();
    }
    expect(await balanceMismatches(sim)).toEqual([]);
  });
});
