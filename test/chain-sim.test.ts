/**
 * Acceptance of the alpha chain ingestion against the simulated world's ground truth (sim/world/ledger.ts):
 * a backfill of the whole sim chain holds every fill, split, merge, redemption, conversion, resolution,
 * wrap and unwrap exactly once with equal amounts, sides, prices and attribution; matched volume counts
 * each trade once; every fast decoder equals viem's decodeEventLog on every log the sim emits; and the
 * direct lane writes every hot log as viem reads it, writes the hot logs the sim does not emit (large
 * batches, unknown tokens, odd words) and quarantines with its reason each one it cannot take.
 */
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteWriter, type U64 } from '../core/clickhouse/row-binary.ts';
import { BACKFILL_STREAM } from '../core/watermarks.ts';
import { ratio } from '../ingest/chain/hex.ts';
import { PackedLogs } from '../ingest/chain/packed-logs.ts';
import { logPages } from '../ingest/chain/source.ts';
import { rangeTables } from '../ingest/chain/tables.ts';
import type { RpcLog } from '../ingest/chain/types.ts';
import { collectingSink } from '../ingest/venues/alpha/chain/collect.ts';
import { FAST_EVENTS, normalizeValue } from '../ingest/venues/alpha/chain/decoders.ts';
import { HOT_EVENTS, HOT_TOPICS } from '../ingest/venues/alpha/chain/direct-lane.ts';
import {
  type AlphaChainIngestor,
  type AlphaChainParts,
  createAlphaChain,
  createAlphaChainParts,
} from '../ingest/venues/alpha/chain/ingestor.ts';
import { usesPageWorkers } from '../ingest/venues/alpha/chain/page-workers.ts';
import {
  EVENT_TABLES,
  type EventTable,
  emptyRowSet,
  NATURAL_ORDER,
  type RowSet,
  type RowSink,
  type Status,
} from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from '../ingest/venues/alpha/chain/tables.ts';
import { allContracts } from '../schemas/abi/alpha-addresses.ts';
import { type ContractKind, eventAbi } from '../schemas/abi/alpha-events.ts';
import { type Sim, startSim } from '../sim/index.ts';
import type { LedgerExport } from '../sim/world/ledger.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

type Row = Record<string, unknown>;
const lc = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const ZERO32 = `0x${'0'.repeat(64)}`;

/** Groups rows by a key and checks each ledger record finds exactly one distinct partner. */
function pairUp<L, R>(ledger: L[], rows: R[], keyL: (l: L) => string, keyR: (r: R) => string): [L, R][] {
  const byKey = new Map<string, R[]>();
  for (const r of rows) {
    const k = keyR(r);
    const list = byKey.get(k) ?? [];
    list.push(r);
    byKey.set(k, list);
  }
  const pairs: [L, R][] = [];
  for (const l of ledger) {
    const list = byKey.get(keyL(l));
    expect(list?.length, `no ingested row for ${keyL(l)}`).toBeGreaterThan(0);
    pairs.push([l, list!.shift()!]);
  }
  return pairs;
}

describe('alpha chain ingestion against the sim ground truth', () => {
  let deps: TestDeps;
  let sim: Sim;
  let ledger: LedgerExport;
  let ingestor: AlphaChainIngestor;
  let chain: AlphaChainParts;
  let head: number;

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('chain_sim'),
      startSim({ seed: 'chain-acceptance', size: 'small', replicas: false }),
    ]);
    ledger = sim.exportLedger();
    head = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    const settings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 0,
    });
    chain = createAlphaChainParts({ clickhouse: deps.clickhouse, log: deps.log }, settings);
    ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings, chain);
    await ingestor.referencePass(0, head);
    await ingestor.ingestRange({ from: 0, to: head }, { head });
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('holds every fill exactly once with equal amounts, sides, prices and attribution', async () => {
    const fills = await deps.clickhouse.query<Row>(
      'test.fills',
      'SELECT * FROM alpha_fills ORDER BY block_number, log_index',
    );
    expect(fills).toHaveLength(ledger.fills.length);
    const pairs = pairUp(
      ledger.fills,
      fills,
      (f) => `${lc(f.txHash)}|${lc(f.orderHash)}|${lc(f.maker)}|${f.role}`,
      (r) => `${r.tx_hash}|${r.order_hash}|${r.maker}|${r.role}`,
    );
    for (const [l, r] of pairs) {
      expect(r).toMatchObject({
        block_number: String(l.block),
        exchange: lc(l.exchange),
        exchange_version: l.version,
        neg_risk: l.negRisk,
        taker: lc(l.taker),
        side: String(l.side).toUpperCase(),
        token_id: l.tokenId,
        condition_id: lc(l.conditionId),
        outcome_index: l.outcomeIndex,
        maker_amount: l.makerAmountFilled,
        taker_amount: l.takerAmountFilled,
        shares: l.shares,
        usd: l.usd,
        fee: l.fee,
        builder: l.builder === null || l.builder === ZERO32 ? '' : lc(l.builder),
        metadata: l.metadata === null || l.metadata === ZERO32 ? '' : lc(l.metadata),
      });
      expect(r.price).toBeCloseTo(Number(l.usd) / Number(l.shares), 12);
      expect(new Date(String(r.block_time)).getTime()).toBe(Number(l.time) * 1000);
    }
  });

  it('counts matched volume once per trade (maker fills only), per market', async () => {
    const rows = await deps.clickhouse.query<{
      condition_id: string;
      trades: string;
      shares: string;
      usd: string;
    }>(
      'test.volume',
      `SELECT condition_id, count() AS trades, sum(shares) AS shares, sum(usd) AS usd
       FROM alpha_fills WHERE role = 'maker' GROUP BY condition_id`,
    );
    const ours = Object.fromEntries(
      rows.map((r) => [r.condition_id, { trades: Number(r.trades), shares: r.shares, usd: r.usd }]),
    );
    const theirs = Object.fromEntries(
      Object.entries(ledger.markets).map(([k, v]) => [
        lc(k) as string,
        { trades: v.trades, shares: v.shares, usd: v.usd },
      ]),
    );
    expect(ours).toEqual(theirs);
  });

  it('holds every split, merge, redemption and conversion once, attributed to the real user', async () => {
    const activity = await deps.clickhouse.query<Row>(
      'test.activity',
      'SELECT * FROM alpha_activity ORDER BY block_number, log_index',
    );
    const kinds: Record<string, string> = {
      split: 'SPLIT',
      merge: 'MERGE',
      redeem: 'REDEEM',
      convert: 'CONVERT',
    };
    expect(activity).toHaveLength(ledger.activity.length);
    const pairs = pairUp(
      ledger.activity,
      activity,
      (a) => `${lc(a.txHash)}|${kinds[String(a.kind)]}|${lc(a.user)}`,
      (r) => `${r.tx_hash}|${r.type}|${r.wallet}`,
    );
    for (const [l, r] of pairs) {
      expect(r, JSON.stringify(l)).toMatchObject({
        block_number: String(l.block),
        condition_id: lc(l.conditionId),
        market_id: lc(l.conditionId),
        neg_risk_market_id: lc(l.negRiskMarketId),
        index_set: l.indexSet === null ? null : String(l.indexSet),
        amount: l.amount,
        payout: l.payout,
      });
    }
  });

  it('holds every change of outcome-token supply once, whoever the stakeholder, as viem decodes it', async () => {
    const ctf = chain.settings.roles.conditionalTokens.toLowerCase();
    const adapter = chain.settings.roles.negRiskAdapter.toLowerCase();
    const supplyEvents: [string, ContractKind, readonly string[]][] = [
      [ctf, 'conditionalTokens', ['PositionSplit', 'PositionsMerge', 'PayoutRedemption']],
      [
        adapter,
        'negRiskAdapter',
        ['PositionSplit', 'PositionsMerge', 'PayoutRedemption', 'PositionsConverted'],
      ],
    ];
    const kindOf: Record<string, string> = {
      PositionSplit: 'split',
      PositionsMerge: 'merge',
      PayoutRedemption: 'redeem',
      PositionsConverted: 'convert',
    };
    const expected: Record<string, string | null>[] = [];
    for (const [address, kind, names] of supplyEvents) {
      const abi = eventAbi(kind).filter((e) => names.includes(e.name));
      const logs = await sim.anvil.rpc<RpcLog[]>('eth_getLogs', [
        {
          fromBlock: '0x0',
          toBlock: `0x${head.toString(16)}`,
          address,
          topics: [abi.map((e) => toEventSelector(e))],
        },
      ]);
      for (const l of logs) {
        const ev = decodeEventLog({ abi, data: l.data as Hex, topics: l.topics as [Hex, ...Hex[]] });
        const a = ev.args as Record<string, unknown>;
        const redeem = ev.eventName === 'PayoutRedemption';
        const convert = ev.eventName === 'PositionsConverted';
        const ctfEvent = address === ctf;
        expected.push({
          block_number: String(Number(l.blockNumber)),
          log_index: String(Number(l.logIndex)),
          kind: kindOf[ev.eventName]!,
          contract: address,
          stakeholder: String(redeem ? a.redeemer : a.stakeholder).toLowerCase(),
          condition_id: convert ? null : String(a.conditionId).toLowerCase(),
          collateral_token: ctfEvent ? String(a.collateralToken).toLowerCase() : '',
          amount: String(
            redeem
              ? ctfEvent
                ? 0n
                : (a.amounts as bigint[]).reduce((x, y) => x + y, 0n)
              : (a.amount as bigint),
          ),
          payout: String(redeem ? (a.payout as bigint) : 0n),
          neg_risk_market_id: convert ? String(a.marketId).toLowerCase() : null,
          index_set: convert ? String(a.indexSet) : null,
        });
      }
    }
    const order = (r: Record<string, string | null>) => Number(r.block_number) * 1e6 + Number(r.log_index);
    expected.sort((x, y) => order(x) - order(y));
    const rows = await deps.clickhouse.query<Record<string, string | null>>(
      'test.supply',
      `SELECT toString(block_number) AS block_number, toString(log_index) AS log_index, toString(kind) AS kind,
              contract, stakeholder, condition_id, collateral_token, toString(amount) AS amount,
              toString(payout) AS payout, neg_risk_market_id, index_set
       FROM alpha_ctf_supply FINAL`,
    );
    rows.sort((x, y) => order(x) - order(y));
    expect(rows).toEqual(expected);
    // Beyond the user actions of alpha_activity: exchange mints and merges, and the NegRiskAdapter's own
    // CTF calls, change the supply too.
    const exchanges = new Set(
      allContracts(chain.settings.sets)
        .filter((c) => c.kind === 'exchangeV1' || c.kind === 'exchangeV2')
        .map((c) => c.address.toLowerCase()),
    );
    expect(rows.some((r) => exchanges.has(r.stakeholder!))).toBe(true);
    expect(rows.some((r) => r.contract === ctf && r.stakeholder === adapter)).toBe(true);
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['split', 'merge', 'redeem', 'convert']));
    const [activity] = await deps.clickhouse.query<{ n: string }>(
      'test.supply.activity',
      'SELECT count() AS n FROM alpha_activity FINAL',
    );
    expect(rows.length).toBeGreaterThan(Number(activity!.n));
  });

  it('holds every resolution, wrap and unwrap once', async () => {
    const resolutions = await deps.clickhouse.query<Row>(
      'test.resolutions',
      `SELECT * FROM alpha_lifecycle WHERE kind = 'condition_resolved' ORDER BY block_number, log_index`,
    );
    expect(resolutions).toHaveLength(ledger.resolutions.length);
    for (const [l, r] of pairUp(
      ledger.resolutions,
      resolutions,
      (x) => `${lc(x.txHash)}|${lc(x.conditionId)}`,
      (x) => `${x.tx_hash}|${x.condition_id}`,
    )) {
      expect(r).toMatchObject({
        question_id: lc(l.questionId),
        oracle: lc(l.oracle),
        payout_numerators: (l.payouts as number[]).map(String),
      });
    }
    const wraps = await deps.clickhouse.query<Row>(
      'test.wraps',
      `SELECT * FROM alpha_collateral WHERE kind IN ('wrap', 'unwrap') ORDER BY block_number, log_index`,
    );
    const ledgerWraps = ledger.collateral.filter((c) => c.kind === 'wrap' || c.kind === 'unwrap');
    expect(wraps).toHaveLength(ledgerWraps.length);
    for (const [l, r] of pairUp(
      ledgerWraps,
      wraps,
      (x) => `${lc(x.txHash)}|${x.kind}|${lc(x.to)}|${x.amount}`,
      (x) => `${x.tx_hash}|${x.kind}|${x.to_address}|${x.amount}`,
    )) {
      // from_address: who transferred in what was wrapped (not in the Wrapped/Unwrapped log itself).
      expect(r).toMatchObject({ caller: lc(l.from), token: lc(l.token), from_address: lc(l.funder) });
    }
  });

  it('quarantines nothing from a well-formed chain and every fast decoder equals viem decodeEventLog', async () => {
    const [q] = await deps.clickhouse.query<{ n: string }>('test.q', `SELECT count() AS n FROM quarantine`);
    expect(Number(q?.n)).toBe(0);
    const logs: RpcLog[] = await chain.source.getLogs(0, head, chain.decoders.logAddresses);
    const fast = new Set(FAST_EVENTS);
    const seen: Record<string, number> = {};
    for (const log of logs) {
      const r = chain.decoders.decode(log);
      if (r.status !== 'decoded') continue;
      const key = `${r.contract.kind}.${r.name}`;
      if (!fast.has(key)) continue;
      seen[key] = (seen[key] ?? 0) + 1;
      const generic = chain.decoders.decodeGeneric(log);
      const norm = (o: Record<string, unknown>) =>
        JSON.parse(JSON.stringify(o, (_k, v) => (typeof v === 'number' ? String(v) : v)));
      expect(norm(r.args), key).toEqual(norm(generic));
    }
    // Every fast decoder met the sim's logs (the sim emits every hot event kind).
    for (const k of FAST_EVENTS) expect(seen[k], k).toBeGreaterThan(0);
  });

  it('writes exactly the same rows when the range is spread over page workers', async () => {
    const tables = [...rangeTables(ALPHA_CHAIN_WRITES), 'alpha_blocks' as const];
    const dump = async () => {
      const out: Record<string, Row[]> = {};
      for (const t of tables) {
        out[t] = await deps.clickhouse.query<Row>(
          `test.dump.${t}`,
          `SELECT * FROM ${t} ORDER BY ${NATURAL_ORDER[t]}`,
        );
      }
      return out;
    };
    const inProcess = await dump();
    expect(inProcess.alpha_fills?.length).toBe(ledger.fills.length);
    // Chunks of 4 blocks: many more chunks than threads, claimed in turn and finished out of order.
    const settings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 0,
      logRange: 4,
      logRangeMax: 4,
      pipelineWorkers: 2,
    });
    const parts = createAlphaChainParts({ clickhouse: deps.clickhouse, log: deps.log }, settings);
    const parallel = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings, parts);
    expect(usesPageWorkers(parts, 0, head)).toBe(true);
    await parts.writer.deleteRange(0, head, rangeTables(ALPHA_CHAIN_WRITES));
    await parts.writer.forgetMark(BACKFILL_STREAM, { from: 0, to: head });
    expect((await dump()).alpha_fills).toHaveLength(0);
    const progress: number[] = [];
    const res = await parallel.ingestRange(
      { from: 0, to: head },
      { head, checkpointEveryBlocks: 8, onProgress: (p) => progress.push(p.blocksDone) },
    );
    expect(res.logs).toBeGreaterThan(0);
    // The workers took chunks (they start claiming with the calling thread).
    expect(res.workerLogs).toBeGreaterThan(0);
    expect(await dump()).toEqual(inProcess);
    // Progress never goes back, and ends with the whole range.
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(head + 1);
    const cp = await parts.writer.readMark(BACKFILL_STREAM, { from: 0, to: head });
    expect(cp?.blockNumber).toBe(head);
  }, 120_000);

  it('writes every hot log of the sim chain as viem decodeEventLog reads it, through either collecting sink', async () => {
    const statusOf = (b: number): Status => (b % 3 === 0 ? 'pending' : 'confirmed');
    const expected = emptyRowSet();
    const objects = emptyRowSet();
    const throughWriter = emptyRowSet();
    const seen: Record<string, number> = {};
    let pages = 0;
    for await (const page of logPages(chain.source, 0, head, {
      addresses: chain.decoders.logAddresses,
      initialRange: 4,
      maxRange: 4,
      concurrency: 2,
      targetLogsPerPage: 700,
    })) {
      if (page.logs.length === 0) continue;
      pages++;
      const headers = await chain.source.getHeaders([...page.logs.blocks()]);
      // A RowSet sink (the lane's rows read back from scratch bytes) and a writer-like sink with
      // `direct` whose rows are also collected: the same rows, the same quarantine.
      const a = await chain.mapper.mapPage(page.logs, headers, statusOf);
      const b = await chain.mapper.mapPageTo(
        collectingSink(writerSink(), throughWriter),
        page.logs,
        headers,
        statusOf,
      );
      expect(b).toEqual({ quarantine: a.quarantine, stats: a.stats });
      expect(a.quarantine).toEqual([]);
      for (const t of EVENT_TABLES) (objects[t] as object[]).push(...a.rows[t]);
      for (let i = 0; i < page.logs.length; i++) {
        const log = page.logs.log(i);
        const contract = chain.decoders.contractAt(log.address);
        const kind = contract?.kind;
        if (!contract || !kind || !HOT_TOPICS.get(log.topics[0] ?? '')?.has(kind)) continue;
        const item = chain.decoders.abiItemFor(log.address, log.topics[0]!)!;
        seen[`${kind}.${item.name}`] = (seen[`${kind}.${item.name}`] ?? 0) + 1;
        const n = Number.parseInt(log.blockNumber, 16);
        expectedRows(expected, chain, log, headers.get(n)!.timestampMs, statusOf(n));
      }
    }
    expect(pages).toBeGreaterThan(10);
    // Every hot event kind met the sim's logs.
    for (const [kind, name] of HOT_EVENTS)
      expect(seen[`${kind}.${name}`], `${kind}.${name}`).toBeGreaterThan(0);
    const hot = (rows: RowSet) => ({
      alpha_fills: rows.alpha_fills,
      alpha_token_transfers: rows.alpha_token_transfers,
      // A wrap's from_address is read from the transaction's other logs: checked against the ledger below.
      alpha_collateral: rows.alpha_collateral.map((r) =>
        r.kind === 'transfer' ? r : { ...r, from_address: 'funder' },
      ),
      alpha_exchange_events: rows.alpha_exchange_events.filter(
        (r) => r.kind === 'orders_matched' || r.kind === 'fee_charged',
      ),
    });
    expect(hot(objects)).toEqual(hot(expected));
    expect(throughWriter).toEqual(objects);
    // The sim's ground truth: every fill (with its token's condition and outcome) and every wrap.
    expect(objects.alpha_fills).toHaveLength(ledger.fills.length);
    for (const [l, r] of pairUp(
      ledger.fills,
      objects.alpha_fills,
      (f) => `${lc(f.txHash)}|${lc(f.orderHash)}|${lc(f.maker)}|${f.role}`,
      (r) => `${r.tx_hash}|${r.order_hash}|${r.maker}|${r.role}`,
    )) {
      expect(r).toMatchObject({ condition_id: lc(l.conditionId), outcome_index: l.outcomeIndex });
      expect(String(r.shares)).toBe(String(l.shares));
    }
    expect(objects.alpha_token_transfers.some((r) => r.batch_index > 0)).toBe(true);
    const ledgerWraps = ledger.collateral.filter((c) => c.kind === 'wrap' || c.kind === 'unwrap');
    const wraps = objects.alpha_collateral.filter((r) => r.kind !== 'transfer');
    expect(wraps).toHaveLength(ledgerWraps.length);
    for (const [l, r] of pairUp(
      ledgerWraps,
      wraps,
      (x) => `${lc(x.txHash)}|${x.kind}|${lc(x.to)}|${x.amount}`,
      (x) => `${x.tx_hash}|${x.kind}|${x.to_address}|${x.amount}`,
    ))
      expect(r.from_address).toBe(lc(l.funder));
  }, 120_000);

  it('writes hot logs the sim does not emit, and quarantines with its reason each one it cannot take', async () => {
    const contracts = allContracts(chain.settings.sets);
    const at = (kind: string) => contracts.find((c) => c.kind === kind)!.address.toLowerCase();
    const abiOf = (kind: ContractKind, name: string) => eventAbi(kind).find((e) => e.name === name)!;
    const word = (v: bigint | string) =>
      typeof v === 'string' ? v.padStart(64, '0') : v.toString(16).padStart(64, '0');
    const topicOf = (hex40: string) => `0x${'0'.repeat(24)}${hex40}`;
    const hash = (n: number) => `0x${n.toString(16).padStart(64, 'a')}`;
    const big = 2n ** 70n + 5n;
    const token = 2n ** 250n + 12345n;
    const wallet = 'AbCdEf0123456789aBcDeF0123456789abcdef01';
    const user = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    /** A log of `kind`'s event `name`, its topics after topic0 and its data words given as they are. */
    const raw = (kind: ContractKind, name: string, topics: string[], words: string[]) => ({
      address: at(kind),
      topics: [toEventSelector(abiOf(kind, name)), ...topics],
      data: `0x${words.join('')}`,
    });
    /** A log of `kind`'s event `name` encoded by viem (canonical ABI layout). */
    const encoded = (kind: ContractKind, name: string, args: Record<string, unknown>) => {
      const item = abiOf(kind, name);
      const nonIndexed = item.inputs.filter((i) => !i.indexed);
      return {
        address: at(kind),
        topics: encodeEventTopics({ abi: [item], eventName: item.name, args: args as never }) as string[],
        data: encodeAbiParameters(
          nonIndexed,
          nonIndexed.map((i) => args[i.name!]),
        ) as string,
      };
    };
    const ids = Array.from({ length: 300 }, (_, k) => token + BigInt(k));
    const unknownToken = 2n ** 200n + 7n;
    type Case = { log: { address: string; topics: string[]; data: string }; quarantined?: [string, string] };
    const cases: Case[] = [
      // FeeCharged V1: a token id and an amount; then an amount above UInt64.
      { log: raw('exchangeV1', 'FeeCharged', [topicOf(wallet)], [word(token), word(77n)]) },
      {
        log: raw('exchangeV1', 'FeeCharged', [topicOf(wallet)], [word(token), word(big)]),
        quarantined: ['amount_overflow', `FeeCharged: amount ${big} exceeds UInt64`],
      },
      // An uppercase address in a topic is read lowercase.
      { log: raw('exchangeV2', 'FeeCharged', [topicOf(wallet.toUpperCase())], [word(9n)]) },
      // OrdersMatched V1: an uppercase order hash; a taker amount above UInt64 (only args hold it).
      {
        log: raw(
          'exchangeV1',
          'OrdersMatched',
          [hash(1).toUpperCase().replace('0X', '0x'), topicOf(wallet)],
          [word(0n), word(token), word(1_000_000n), word(2n ** 53n + 1n)],
        ),
      },
      {
        log: raw(
          'exchangeV1',
          'OrdersMatched',
          [hash(2), topicOf(wallet)],
          [word(token), word(0n), word(5n), word(big)],
        ),
      },
      // OrdersMatched V2: a side the ABI's uint8 allows but no order has; a word that is not hex.
      {
        log: raw(
          'exchangeV2',
          'OrdersMatched',
          [hash(3), topicOf(wallet)],
          [word(5n), word(token), word(6n), word(7n)],
        ),
      },
      {
        log: raw(
          'exchangeV2',
          'OrdersMatched',
          [hash(4), topicOf(wallet)],
          [word(1n), word('g'.repeat(64)), word(6n), word(7n)],
        ),
        quarantined: ['bad_data', 'OrdersMatched: tokenId is not hex'],
      },
      // A fill of a token no preparation taught: written with no condition and outcome -1.
      {
        log: encoded('exchangeV2', 'OrderFilled', {
          orderHash: hash(5),
          maker: user(1),
          taker: user(2),
          side: 0,
          tokenId: unknownToken,
          makerAmountFilled: 500_000n,
          takerAmountFilled: 1_000_000n,
          fee: 0n,
          builder: hash(6),
          metadata: `0x${'0'.repeat(64)}`,
        }),
      },
      // A fill whose amount exceeds UInt64; a fill whose emitter is not written in lowercase.
      {
        log: encoded('exchangeV1', 'OrderFilled', {
          orderHash: hash(7),
          maker: user(1),
          taker: user(2),
          makerAssetId: 0n,
          takerAssetId: token,
          makerAmountFilled: big,
          takerAmountFilled: 1n,
          fee: 0n,
        }),
        quarantined: ['amount_overflow', `OrderFilled: makerAmountFilled ${big} exceeds UInt64`],
      },
      {
        log: {
          ...encoded('exchangeV1', 'OrderFilled', {
            orderHash: hash(8),
            maker: user(1),
            taker: user(2),
            makerAssetId: 0n,
            takerAssetId: token,
            makerAmountFilled: 1n,
            takerAmountFilled: 1n,
            fee: 0n,
          }),
          address: at('exchangeV1').toUpperCase().replace('0X', '0x'),
        },
        quarantined: ['bad_data', 'OrderFilled: emitter'],
      },
      // A TransferBatch of 300 ids (one row each); one whose arrays are not in the canonical layout.
      {
        log: encoded('conditionalTokens', 'TransferBatch', {
          operator: user(3),
          from: user(4),
          to: user(5),
          ids,
          values: ids.map((_, k) => BigInt(k + 1)),
        }),
      },
      {
        log: raw(
          'conditionalTokens',
          'TransferBatch',
          [topicOf(user(3).slice(2)), topicOf(user(4).slice(2)), topicOf(user(5).slice(2))],
          [word(0x60n), word(0xa0n), word(0n), word(1n), word(token), word(1n), word(9n)],
        ),
        quarantined: [
          'bad_data',
          'TransferBatch: data of 448 hex digits is not two uint256 arrays of equal length in ABI layout',
        ],
      },
      // A pUSD wrap of more than UInt64.
      {
        log: encoded('collateralToken', 'Wrapped', {
          caller: user(6),
          asset: user(7),
          to: user(8),
          amount: big,
        }),
        quarantined: ['amount_overflow', `Wrapped: amount ${big} exceeds UInt64`],
      },
    ];
    const block = { number: 16, hash: hash(16), parentHash: hash(15), timestampMs: 1_700_000_000_000 };
    const objects = cases.map((c, k) => ({
      ...c.log,
      blockHash: block.hash,
      blockNumber: '0x10',
      transactionHash: hash(100 + k),
      transactionIndex: `0x${k.toString(16)}`,
      logIndex: `0x${k.toString(16)}`,
      removed: false,
    }));
    // Logs `PackedLogs.of` cannot write as they are: quarantined as 'bad_log' with what is wrong.
    const defective: [unknown, string][] = [
      [{ ...objects[0], transactionIndex: 3 }, 'transactionIndex is a number'],
      [{ ...objects[0], topics: undefined, logIndex: '0x40' }, 'topics is missing'],
      [
        { ...objects[0], data: '0x\u00e9', logIndex: '0x41' },
        'data holds characters other than printable ASCII, or a quote or backslash',
      ],
      [null, 'the log is null, not an object'],
    ];
    const logs = PackedLogs.of([...objects, ...defective.map(([l]) => l)]);
    expect(logs.length).toBe(cases.length + defective.length);
    const headers = new Map([[16, block]]);
    const m = await chain.mapper.mapPage(logs, headers, () => 'confirmed');
    const reasons = m.quarantine.map((q) => [q.kind, q.reason]);
    const wanted = cases.flatMap((c) => (c.quarantined ? [c.quarantined] : []));
    expect(reasons).toHaveLength(wanted.length + defective.length);
    for (const [k, [kind, reason]] of wanted.entries()) {
      expect(reasons[k]![0]).toBe(kind);
      expect(reasons[k]![1]).toContain(reason);
    }
    expect(reasons.slice(wanted.length)).toEqual(defective.map(([, reason]) => ['bad_log', reason]));
    expect(m.stats).toMatchObject({ logs: logs.length, quarantined: reasons.length });
    // The rows written are viem's reading of the logs.
    const expected = emptyRowSet();
    for (const [k, c] of cases.entries())
      if (!c.quarantined) expectedRows(expected, chain, logs.log(k), block.timestampMs, 'confirmed');
    expect(m.rows.alpha_exchange_events).toEqual(expected.alpha_exchange_events);
    expect(m.rows.alpha_fills).toEqual(expected.alpha_fills);
    expect(m.rows.alpha_token_transfers).toEqual(expected.alpha_token_transfers);
    expect(m.rows.alpha_token_transfers).toHaveLength(300);
    expect(m.rows.alpha_fills[0]).toMatchObject({
      token_id: String(unknownToken),
      condition_id: '',
      outcome_index: -1,
    });
    expect(m.rows.alpha_exchange_events).toHaveLength(5);
    expect(JSON.parse(m.rows.alpha_exchange_events[3]!.args).takerAmountFilled).toBe(String(big));
  });
});

/** A sink that takes rows column by column into a writer per table, as the writer's sink does. */
function writerSink(): RowSink {
  const writers = new Map<EventTable, ByteWriter>();
  const out: Record<string, unknown> = {};
  for (const t of EVENT_TABLES) out[t] = { push: () => {} };
  out.direct = {
    writer(t: EventTable) {
      const w = writers.get(t) ?? new ByteWriter(1 << 12);
      writers.set(t, w);
      // A batch handed over now and then: the writer starts over mid-page.
      if (w.pos > 1 << 14) w.take();
      return w;
    },
    written: () => {},
  };
  return out as unknown as RowSink;
}

/** A UInt64 as the row types hold it. */
const u64 = (v: bigint): U64 => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());

/**
 * The rows of hot log `log` as viem's decodeEventLog reads it (strict), pushed into `into`: what the
 * lane must write for it, column for column.
 */
function expectedRows(into: RowSet, chain: AlphaChainParts, log: RpcLog, time: number, status: Status): void {
  const contract = chain.decoders.contractAt(log.address)!;
  const item = chain.decoders.abiItemFor(log.address, log.topics[0]!)!;
  const { args } = decodeEventLog({
    abi: [item],
    data: log.data as Hex,
    topics: log.topics as [Hex],
    strict: true,
  });
  const values = args as Record<string, unknown>;
  /** A uint256 argument (viem: bigint); an address or bytes32 argument, lowercase. */
  const num = (name: string) => values[name] as bigint;
  const hex = (name: string) => (values[name] as string).toLowerCase();
  const address = contract.address.toLowerCase();
  const key = {
    chain_id: chain.settings.chainId,
    block_number: Number.parseInt(log.blockNumber, 16),
    block_hash: log.blockHash.toLowerCase(),
    block_time: time,
    tx_hash: log.transactionHash.toLowerCase(),
    log_index: Number.parseInt(log.logIndex, 16),
  };
  const version = contract.kind === 'exchangeV2' ? 2 : 1;
  const argsJson = () => {
    const out: Record<string, unknown> = {};
    for (const input of item.inputs)
      out[input.name!] = normalizeValue(input.type, (args as Record<string, unknown>)[input.name!]);
    return JSON.stringify(out);
  };
  switch (item.name) {
    case 'OrderFilled': {
      const buy = version === 2 ? values.side === 0 : num('makerAssetId') === 0n;
      const tokenId = String(num(version === 2 ? 'tokenId' : buy ? 'takerAssetId' : 'makerAssetId'));
      const known = chain.tokens.get(tokenId);
      const maker = u64(num('makerAmountFilled'));
      const taker = u64(num('takerAmountFilled'));
      const bytes = (v: string) => (BigInt(v) === 0n ? '' : v);
      into.alpha_fills.push({
        ...key,
        exchange: address,
        exchange_version: version,
        neg_risk: contract.negRisk,
        order_hash: hex('orderHash'),
        maker: hex('maker'),
        taker: hex('taker'),
        role: hex('taker') === address ? 'taker' : 'maker',
        side: buy ? 'BUY' : 'SELL',
        token_id: tokenId,
        condition_id: known?.condition_id ?? '',
        outcome_index: known?.outcome_index ?? -1,
        maker_amount: maker,
        taker_amount: taker,
        shares: buy ? taker : maker,
        usd: buy ? maker : taker,
        price: ratio(buy ? maker : taker, buy ? taker : maker),
        fee: u64(num('fee')),
        fee_asset: version === 1 && buy ? 'shares' : 'collateral',
        builder: version === 2 ? bytes(hex('builder')) : '',
        metadata: version === 2 ? bytes(hex('metadata')) : '',
        status,
      });
      return;
    }
    case 'TransferSingle':
    case 'TransferBatch': {
      const ids = item.name === 'TransferSingle' ? [num('id')] : (values.ids as bigint[]);
      const amounts = item.name === 'TransferSingle' ? [num('value')] : (values.values as bigint[]);
      for (let k = 0; k < ids.length; k++)
        into.alpha_token_transfers.push({
          ...key,
          batch_index: k,
          operator: hex('operator'),
          from_address: hex('from'),
          to_address: hex('to'),
          token_id: String(ids[k]),
          amount: u64(amounts[k]!),
          status,
        });
      return;
    }
    case 'Transfer':
    case 'Wrapped':
    case 'Unwrapped': {
      const transfer = item.name === 'Transfer';
      into.alpha_collateral.push({
        ...key,
        kind: transfer ? 'transfer' : item.name === 'Wrapped' ? 'wrap' : 'unwrap',
        token: address,
        symbol: contract.label,
        from_address: transfer ? hex('from') : '',
        to_address: hex('to'),
        caller: transfer ? '' : hex('caller'),
        asset: transfer ? '' : hex('asset'),
        amount: u64(num(transfer ? 'value' : 'amount')),
        status,
      });
      return;
    }
    case 'OrdersMatched':
    case 'FeeCharged': {
      const matched = item.name === 'OrdersMatched';
      const tokenId = matched
        ? String(
            num(version === 2 ? 'tokenId' : num('makerAssetId') === 0n ? 'takerAssetId' : 'makerAssetId'),
          )
        : version === 1
          ? String(num('tokenId'))
          : '0';
      into.alpha_exchange_events.push({
        ...key,
        kind: matched ? 'orders_matched' : 'fee_charged',
        contract: address,
        exchange_version: version,
        neg_risk: contract.negRisk,
        order_hash: matched ? hex('takerOrderHash') : '',
        account: hex(matched ? 'takerOrderMaker' : 'receiver'),
        token_id: tokenId,
        amount: u64(num(matched ? 'makerAmountFilled' : 'amount')),
        args: argsJson(),
        status,
      });
      return;
    }
    default:
      throw new Error(`not a hot event: ${item.name}`);
  }
}
