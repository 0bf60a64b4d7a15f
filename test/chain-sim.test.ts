/**
 * Acceptance of the alpha chain ingestion against the simulated world's ground truth (sim/world/ledger.ts):
 * a backfill of the whole sim chain holds every fill, split, merge, redemption, conversion, resolution,
 * wrap and unwrap exactly once with equal amounts, sides, prices and attribution; matched volume counts
 * each trade once; and every fast decoder equals viem's decodeEventLog on every hot log the sim emits.
 */
import { toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillPipeline, runBackfillRange } from '../ingest/chain/backfill.ts';
import { FAST_EVENTS } from '../ingest/venues/alpha/chain/decoders.ts';
import { readPackedLogs } from '../ingest/chain/log-objects.ts';
import { usesPageWorkers } from '../ingest/chain/page-workers.ts';
import { type AlphaChain, createAlphaChain } from '../ingest/venues/alpha/chain/pipeline.ts';
import { COLUMNS, formatOf, RowBatch, type SerializedTable } from '../ingest/venues/alpha/chain/serialize.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { logPages } from '../ingest/chain/source.ts';
import type { RpcLog } from '../ingest/chain/types.ts';
import { EVENT_TABLES, type EventTable, NATURAL_ORDER, type RowSink } from '../ingest/venues/alpha/chain/rows.ts';
import { allContracts } from '../schemas/abi/alpha-addresses.ts';
import { eventAbi } from '../schemas/abi/alpha-events.ts';
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
  let chain: AlphaChain;
  let head: number;

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('chain_sim'),
      startSim({ seed: 'chain-acceptance', size: 'small', replicas: false }),
    ]);
    ledger = sim.exportLedger();
    head = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    chain = createAlphaChain(
      { clickhouse: deps.clickhouse, log: deps.log },
      alphaChainSettings(deps.config, { rpcUrls: [sim.rpcUrl], positionIds: 'simplified', finalityDepth: 0 }),
    );
    await chain.tokenPass(0, head);
    await runBackfillRange(chain, { from: 0, to: head }, { head });
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
      expect(r).toMatchObject({ caller: lc(l.from), token: lc(l.token) });
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
    const tables = [...chain.rangeTables, 'alpha_blocks' as const];
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
    const parallel = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings);
    expect(usesPageWorkers(parallel, 0, head)).toBe(true);
    await parallel.writer.deleteRange(0, head, parallel.rangeTables);
    await deps.clickhouse.command('test.cp', `DELETE FROM alpha_checkpoints WHERE pipeline = {p:String}`, {
      p: backfillPipeline({ from: 0, to: head }),
    });
    expect((await dump()).alpha_fills).toHaveLength(0);
    const progress: number[] = [];
    const res = await runBackfillRange(
      parallel,
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
    const cp = await parallel.writer.readCheckpoint(backfillPipeline({ from: 0, to: head }));
    expect(cp?.blockNumber).toBe(head);
  }, 120_000);

  // Last: it empties the tables the tests above read.
  it('writes through the direct lane exactly the rows the object path writes', async () => {
    const batches = { lane: new Map<EventTable, RowBatch>(), objects: new Map<EventTable, RowBatch>() };
    const laneRows: Record<string, number> = {};
    const sinkOf = (to: Map<EventTable, RowBatch>, lane: boolean) =>
      batchSink(to, lane ? laneRows : undefined);
    const sinks = { lane: sinkOf(batches.lane, true), objects: sinkOf(batches.objects, false) };
    // Both statuses, by block.
    const statusOf = (b: number): 'pending' | 'confirmed' => (b % 3 === 0 ? 'pending' : 'confirmed');
    let pages = 0;
    for await (const page of logPages(chain.source, 0, head, {
      addresses: chain.decoders.logAddresses,
      initialRange: 4,
      maxRange: 4,
      concurrency: 2,
      targetLogsPerPage: 700,
    })) {
      if (page.logs.length === 0) continue;
      // The pages arrive as bytes (the lane's input); the object path gets the same logs as objects.
      expect(page.logs.buf).toBeDefined();
      pages++;
      const headers = await chain.source.getHeaders([...page.logs.blocks()]);
      const a = await chain.mapper.mapPageTo(sinks.lane, page.logs, headers, statusOf);
      const b = await chain.mapper.mapPageTo(sinks.objects, page.logs.toArray(), headers, statusOf);
      expect(a).toEqual(b);
    }
    expect(pages).toBeGreaterThan(10);
    // Every hot table got lane rows.
    for (const t of ['alpha_fills', 'alpha_token_transfers', 'alpha_collateral', 'alpha_exchange_events'])
      expect(laneRows[t], t).toBeGreaterThan(100);
    // The same rows, column for column: each side's bytes inserted alone, then read back in order.
    const readBack = async (from: Map<EventTable, RowBatch>) => {
      const out: Record<string, Row[]> = {};
      for (const t of EVENT_TABLES) {
        await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
        const { rows, body } = from.get(t)!.take();
        if (rows > 0)
          await deps.clickhouse.insertRaw('test.insert', t, formatOf(t), COLUMNS[t], body, {
            optimize_on_insert: 0,
          });
        out[t] = await deps.clickhouse.query<Row>(
          'test.read',
          `SELECT * FROM ${t} ORDER BY ${NATURAL_ORDER[t]}`,
        );
        expect(out[t]).toHaveLength(rows);
      }
      return out;
    };
    const lane = await readBack(batches.lane);
    const objects = await readBack(batches.objects);
    expect(lane.alpha_fills!.length).toBe(ledger.fills.length);
    // Every ERC-1155 transfer the sim emits, single or batch, is in the ABI's canonical layout: the lane
    // writes them all.
    expect(lane.alpha_token_transfers!.some((r) => Number(r.batch_index) > 0)).toBe(true);
    expect(laneRows.alpha_token_transfers).toBe(lane.alpha_token_transfers!.length);
    // Collateral transfers, wraps and unwraps, OrdersMatched and FeeCharged: the lane writes every one.
    expect(lane.alpha_collateral!.some((r) => r.kind === 'wrap')).toBe(true);
    expect(laneRows.alpha_collateral).toBe(lane.alpha_collateral!.length);
    expect(laneRows.alpha_exchange_events).toBe(
      lane.alpha_exchange_events!.filter((r) => r.kind === 'orders_matched' || r.kind === 'fee_charged')
        .length,
    );
    expect(lane).toEqual(objects);
  }, 120_000);

  it('writes exchange events the sim does not emit (FeeCharged V1, odd words) as the object path does', async () => {
    const contracts = allContracts(chain.settings.sets);
    const at = (kind: string) => contracts.find((c) => c.kind === kind)!.address;
    const topic0 = (kind: 'exchangeV1' | 'exchangeV2', name: string) =>
      toEventSelector(eventAbi(kind).find((e) => e.name === name)!);
    const word = (v: bigint | string) =>
      typeof v === 'string' ? v.padStart(64, '0') : v.toString(16).padStart(64, '0');
    const topicOf = (hex40: string) => `0x${'0'.repeat(24)}${hex40}`;
    const hash = (n: number) => `0x${n.toString(16).padStart(64, 'a')}`;
    const big = 2n ** 70n + 5n;
    const token = 2n ** 250n + 12345n;
    const wallet = 'AbCdEf0123456789aBcDeF0123456789abcdef01';
    const cases: { kind: 'exchangeV1' | 'exchangeV2'; name: string; topics: string[]; words: string[] }[] = [
      // FeeCharged V1: a token id and an amount; then an amount above UInt64 (quarantined either way).
      { kind: 'exchangeV1', name: 'FeeCharged', topics: [topicOf(wallet)], words: [word(token), word(77n)] },
      { kind: 'exchangeV1', name: 'FeeCharged', topics: [topicOf(wallet)], words: [word(token), word(big)] },
      { kind: 'exchangeV2', name: 'FeeCharged', topics: [topicOf(wallet.toUpperCase())], words: [word(9n)] },
      // OrdersMatched V1: collateral on either side; a taker amount above UInt64 (only args hold it).
      {
        kind: 'exchangeV1',
        name: 'OrdersMatched',
        topics: [hash(1).toUpperCase().replace('0X', '0x'), topicOf(wallet)],
        words: [word(0n), word(token), word(1_000_000n), word(2n ** 53n + 1n)],
      },
      {
        kind: 'exchangeV1',
        name: 'OrdersMatched',
        topics: [hash(2), topicOf(wallet)],
        words: [word(token), word(0n), word(5n), word(big)],
      },
      // OrdersMatched V2: a side the ABI's uint8 allows but no order has; a word that is not hex.
      {
        kind: 'exchangeV2',
        name: 'OrdersMatched',
        topics: [hash(3), topicOf(wallet)],
        words: [word(5n), word(token), word(6n), word(7n)],
      },
      {
        kind: 'exchangeV2',
        name: 'OrdersMatched',
        topics: [hash(4), topicOf(wallet)],
        words: [word(1n), word('g'.repeat(64)), word(6n), word(7n)],
      },
    ];
    const block = { number: 16, hash: hash(16), parentHash: hash(15), timestampMs: 1_700_000_000_000 };
    const text = cases
      .map((c, k) =>
        JSON.stringify({
          address: at(c.kind).toLowerCase(),
          topics: [topic0(c.kind, c.name), ...c.topics],
          data: `0x${c.words.join('')}`,
          blockHash: block.hash,
          blockNumber: '0x10',
          transactionHash: hash(100 + k),
          transactionIndex: `0x${k.toString(16)}`,
          logIndex: `0x${k.toString(16)}`,
          removed: false,
        }),
      )
      .join(',');
    const buf = Buffer.from(text, 'latin1');
    const logs = readPackedLogs(buf, 0, buf.length)!;
    expect(logs.length).toBe(cases.length);
    const batches = { lane: new Map<EventTable, RowBatch>(), objects: new Map<EventTable, RowBatch>() };
    const laneRows: Record<string, number> = {};
    const headers = new Map([[16, block]]);
    const a = await chain.mapper.mapPageTo(
      batchSink(batches.lane, laneRows),
      logs,
      headers,
      () => 'confirmed',
    );
    const b = await chain.mapper.mapPageTo(
      batchSink(batches.objects),
      logs.toArray(),
      headers,
      () => 'confirmed',
    );
    expect(a).toEqual(b);
    expect(a.stats.quarantined).toBe(2);
    // The lane took the four whose words it reads exactly; the others went to the object path.
    expect(laneRows.alpha_exchange_events).toBe(4);
    for (const t of EVENT_TABLES) {
      const lane = batches.lane.get(t)!.take();
      const objects = batches.objects.get(t)!.take();
      expect(lane.rows, t).toBe(objects.rows);
      expect(Buffer.from(lane.body).equals(Buffer.from(objects.body)), t).toBe(true);
    }
    expect(batches.lane.size).toBeGreaterThan(0);
  });
});

/** A row sink into one batch per table; `laneRows` given: it takes the direct lane's rows and counts them. */
function batchSink(to: Map<EventTable, RowBatch>, laneRows?: Record<string, number>): RowSink {
  const out: Record<string, unknown> = {};
  for (const t of EVENT_TABLES) {
    to.set(t, new RowBatch(t as SerializedTable, 1 << 16));
    out[t] = { push: (row: object) => to.get(t)!.append(row) };
  }
  if (laneRows) {
    out.direct = {
      writer: (t: EventTable) => to.get(t)!.binaryWriter,
      written: (t: EventTable) => {
        to.get(t)!.rowWritten();
        laneRows[t] = (laneRows[t] ?? 0) + 1;
      },
    };
  }
  return out as unknown as RowSink;
}
