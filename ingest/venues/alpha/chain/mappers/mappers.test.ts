/**
 * Each contract family's mapper on its own: decoded logs built by hand (arguments as the decoders
 * normalize them) go through one family module, without a page, a node or a store. The hot events,
 * which no family maps, go through the row mapper as the bytes of encoded logs (its direct lane).
 */
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  ALPHA_ADDRESS_SETS,
  ALPHA_ROLES,
  type AlphaContract,
  allContracts,
} from '../../../../../schemas/abi/alpha-addresses.ts';
import { type ContractKind, eventAbi } from '../../../../../schemas/abi/alpha-events.ts';
import { PackedLogs } from '../../../../chain/packed-logs.ts';
import type { MapStats, RpcLog } from '../../../../chain/types.ts';
import { createDecoderRegistry } from '../decoders.ts';
import { createRowMapper } from '../mapper.ts';
import { positionIdOf } from '../position-ids.ts';
import { type EventKey, emptyRowSet, type RowSet } from '../rows.ts';
import { createTokenMap } from '../token-map.ts';
import { TxContext } from './attribution.ts';
import { createMapContext, type Decoded, type FamilyMapper } from './context.ts';
import { createCtfMapper } from './ctf.ts';
import { createExchangeMapper } from './exchange.ts';
import { createNegRiskAdapterMapper } from './neg-risk-adapter.ts';
import { createOperatorMapper } from './operator.ts';
import { learnTokens } from './tokens.ts';
import { createUmaMapper } from './uma.ts';

const contracts = allContracts(ALPHA_ADDRESS_SETS);
const first = (kind: AlphaContract['kind']) => contracts.find((c) => c.kind === kind)!;
const lc = (a: string) => a.toLowerCase();
const user = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const bytes32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

function setup() {
  const tokens = createTokenMap({ chainId: 137 });
  const ctx = createMapContext({
    chainId: 137,
    sets: ALPHA_ADDRESS_SETS,
    roles: { usdcE: ALPHA_ROLES.usdcE, wcol: ALPHA_ROLES.wcol, pUsd: ALPHA_ROLES.pUsd },
    positionIds: 'simplified',
    tokens,
  });
  return { ctx, tokens };
}

const KEY: EventKey = {
  chain_id: 137,
  block_number: 12,
  block_hash: bytes32(0xb10c),
  block_time: 1_700_000_000_000,
  tx_hash: bytes32(0x7),
  log_index: 4,
  status: 'confirmed',
};

function decoded(contract: AlphaContract, name: string, args: Record<string, unknown>, topics = 1): Decoded {
  const log = { topics: Array.from({ length: topics }, () => bytes32(0)) } as unknown as RpcLog;
  return { log, key: KEY, contract, name, args };
}

function run(map: FamilyMapper, d: Decoded): { rows: RowSet; stats: MapStats } {
  const rows = emptyRowSet();
  const stats: MapStats = { logs: 1, decoded: 1, ignored: 0, quarantined: 0, skipped: 0 };
  map(d, d.key, new TxContext(() => {}), rows, stats);
  return { rows, stats };
}

describe('exchange family', () => {
  it('maps a 2025 FeeRefunded with its order hash and refund', () => {
    const { ctx } = setup();
    const { rows } = run(
      createExchangeMapper(ctx).feeModule,
      decoded(
        first('feeModule'),
        'FeeRefunded',
        { orderHash: bytes32(9), to: user(4), id: '3', refund: 12 },
        4,
      ),
    );
    expect(rows.alpha_exchange_events[0]).toMatchObject({
      kind: 'fee_refunded',
      order_hash: bytes32(9),
      account: user(4),
      token_id: '3',
      amount: 12,
    });
  });
});

describe('CTF family', () => {
  const ctf = first('conditionalTokens');

  it("lists a binary condition's derived outcome tokens on its preparation", () => {
    const { ctx } = setup();
    const conditionId = bytes32(0xc1);
    const { rows } = run(
      createCtfMapper(ctx),
      decoded(ctf, 'ConditionPreparation', {
        conditionId,
        oracle: user(0x0a),
        questionId: bytes32(0x91),
        outcomeSlotCount: '2',
      }),
    );
    const yes = positionIdOf(
      'simplified',
      lc(ALPHA_ROLES.usdcE) as `0x${string}`,
      conditionId as `0x${string}`,
      1n,
    );
    expect(rows.alpha_lifecycle[0]).toMatchObject({ kind: 'condition_prepared', outcome_slot_count: 2 });
    expect(JSON.parse(rows.alpha_lifecycle[0]!.tokens!)[0]).toEqual({ token_id: yes, label: 'Yes' });
  });

  it('skips an exchange mint as a trade', () => {
    const { ctx } = setup();
    const map = createCtfMapper(ctx);
    const mint = run(
      map,
      decoded(ctf, 'PositionSplit', {
        stakeholder: lc(first('exchangeV1').address),
        collateralToken: lc(ALPHA_ROLES.usdcE),
        conditionId: bytes32(0xc1),
        partition: ['1', '2'],
        amount: 5,
      }),
    );
    expect(mint.rows.alpha_activity).toHaveLength(0);
    expect(mint.stats.skipped).toBe(1);
  });
});

describe('NegRiskAdapter family', () => {
  it("pays a conversion of two NO positions (noCount − 1)·(amount − fee) at the market's fee", () => {
    const { ctx, tokens } = setup();
    tokens.setMarketFee(bytes32(0x3a), 200);
    const { rows } = run(
      createNegRiskAdapterMapper(ctx),
      decoded(first('negRiskAdapter'), 'PositionsConverted', {
        stakeholder: user(5),
        marketId: bytes32(0x3a),
        indexSet: '7',
        amount: '1000000',
      }),
    );
    // noCount 3, fee 2 % of 1,000,000 = 20,000: (3 − 1)·980,000.
    expect(rows.alpha_activity[0]).toMatchObject({
      type: 'CONVERT',
      wallet: user(5),
      condition_id: null,
      neg_risk_market_id: bytes32(0x3a),
      index_set: '7',
      amount: 1_000_000,
      payout: 1_960_000,
    });
  });
});

describe('operator and UMA families', () => {
  it('names operator lifecycle rows by their event', () => {
    const { ctx } = setup();
    const { rows } = run(
      createOperatorMapper(ctx),
      decoded(first('negRiskOperator'), 'QuestionFlagged', { questionId: bytes32(0x51) }),
    );
    expect(rows.alpha_lifecycle[0]).toMatchObject({
      kind: 'operator_question_flagged',
      question_id: bytes32(0x51),
    });
  });

  it("keeps oracle requests of the UMA adapters only, and a resolution's settled price", () => {
    const { ctx } = setup();
    const uma = createUmaMapper(ctx);
    const other = run(
      uma.optimisticOracle,
      decoded(first('optimisticOracleV2'), 'RequestPrice', { requester: user(0x77), timestamp: 1 }),
    );
    expect(other.rows.alpha_oracle).toHaveLength(0);
    expect(other.stats.skipped).toBe(1);
    const adapter = first('umaCtfAdapter');
    const resolved = run(
      uma.adapter,
      decoded(adapter, 'QuestionResolved', {
        questionID: bytes32(0x61),
        settledPrice: '1',
        payouts: ['1', '0'],
      }),
    );
    expect(resolved.rows.alpha_oracle[0]).toMatchObject({
      kind: 'question_resolved',
      question_id: bytes32(0x61),
      price: '1',
      payouts: ['1', '0'],
    });
  });
});

describe('reference events', () => {
  it("teach a binary condition's two tokens, each the other's complement", () => {
    const { ctx, tokens } = setup();
    const rows = emptyRowSet();
    const conditionId = bytes32(0xc2);
    learnTokens(
      ctx,
      decoded(first('conditionalTokens'), 'ConditionPreparation', {
        conditionId,
        oracle: user(0x0a),
        questionId: bytes32(1),
        outcomeSlotCount: '2',
      }),
      rows,
    );
    expect(rows.alpha_tokens.map((r) => r.outcome_index)).toEqual([0, 1]);
    expect(rows.alpha_tokens[0]!.complement_token_id).toBe(rows.alpha_tokens[1]!.token_id);
    expect(tokens.get(rows.alpha_tokens[1]!.token_id)).toEqual({
      condition_id: conditionId,
      outcome_index: 1,
    });
  });
});

describe('hot events, through the row mapper', () => {
  const exchangeV1 = first('exchangeV1');
  const exchangeV2 = first('exchangeV2');
  const pUsd = contracts.find((c) => lc(c.address) === lc(ALPHA_ROLES.pUsd))!;
  const BLOCK = {
    number: 12,
    hash: bytes32(0xb10c),
    parentHash: bytes32(0xb10b),
    timestampMs: 1_700_000_000_000,
  };

  /** `contract`'s event `name` with `args`, ABI-encoded by viem, as log `index` of block 12. */
  function logOf(
    contract: AlphaContract,
    name: string,
    args: Record<string, unknown>,
    index: number,
  ): RpcLog {
    const item = eventAbi(contract.kind as ContractKind).find((e) => e.name === name) as AbiEvent;
    const nonIndexed = item.inputs.filter((i) => !i.indexed);
    return {
      address: lc(contract.address),
      topics: encodeEventTopics({ abi: [item], eventName: name, args: args as never }) as Hex[],
      data: encodeAbiParameters(
        nonIndexed,
        nonIndexed.map((i) => args[i.name!]),
      ),
      blockNumber: '0xc',
      blockHash: BLOCK.hash,
      transactionHash: bytes32(0x700 + index),
      transactionIndex: '0x0',
      logIndex: `0x${index.toString(16)}`,
      removed: false,
    };
  }

  async function mapLogs(logs: RpcLog[], known?: [string, { condition_id: string; outcome_index: number }]) {
    const tokens = createTokenMap({ chainId: 137 });
    if (known) tokens.set(...known);
    const mapper = createRowMapper(createDecoderRegistry(ALPHA_ADDRESS_SETS), {
      chainId: 137,
      sets: ALPHA_ADDRESS_SETS,
      roles: ALPHA_ROLES,
      positionIds: 'simplified',
      tokens,
    });
    return mapper.mapPage(PackedLogs.of(logs), new Map([[12, BLOCK]]), () => 'confirmed');
  }

  it('maps a V1 maker fill paying collateral as a BUY of the taker asset, with the known condition', async () => {
    const { rows } = await mapLogs(
      [
        logOf(
          exchangeV1,
          'OrderFilled',
          {
            orderHash: bytes32(1),
            maker: user(1),
            taker: user(2),
            makerAssetId: 0n,
            takerAssetId: 77n,
            makerAmountFilled: 40_000_000n,
            takerAmountFilled: 100_000_000n,
            fee: 0n,
          },
          0,
        ),
      ],
      ['77', { condition_id: bytes32(0xc0), outcome_index: 1 }],
    );
    expect(rows.alpha_fills).toHaveLength(1);
    expect(rows.alpha_fills[0]).toMatchObject({
      exchange: lc(exchangeV1.address),
      exchange_version: 1,
      role: 'maker',
      side: 'BUY',
      token_id: '77',
      condition_id: bytes32(0xc0),
      outcome_index: 1,
      shares: 100_000_000,
      usd: 40_000_000,
      price: 0.4,
      fee_asset: 'shares',
    });
  });

  it("marks the exchange's own aggregate fill as the taker's and reads V2 builder codes", async () => {
    const { rows } = await mapLogs([
      logOf(
        exchangeV2,
        'OrderFilled',
        {
          orderHash: bytes32(2),
          maker: user(3),
          taker: lc(exchangeV2.address),
          side: 1,
          tokenId: 88n,
          makerAmountFilled: 10_000_000n,
          takerAmountFilled: 6_000_000n,
          fee: 5n,
          builder: bytes32(0xb0b),
          metadata: bytes32(0),
        },
        0,
      ),
    ]);
    expect(rows.alpha_fills[0]).toMatchObject({
      role: 'taker',
      side: 'SELL',
      shares: 10_000_000,
      usd: 6_000_000,
      condition_id: '',
      outcome_index: -1,
      builder: bytes32(0xb0b),
      metadata: '',
      fee_asset: 'collateral',
    });
  });

  it('quarantines a V1 fill whose asset ids are both outcome tokens, and a V2 side other than 0 or 1', async () => {
    const v1 = { orderHash: bytes32(1), maker: user(1), taker: user(2), fee: 0n };
    const amounts = { makerAmountFilled: 1n, takerAmountFilled: 1n };
    const { rows, quarantine } = await mapLogs([
      logOf(exchangeV1, 'OrderFilled', { ...v1, ...amounts, makerAssetId: 5n, takerAssetId: 6n }, 0),
      logOf(
        exchangeV2,
        'OrderFilled',
        { ...v1, ...amounts, side: 2, tokenId: 1n, builder: bytes32(0), metadata: bytes32(0) },
        1,
      ),
    ]);
    expect(rows.alpha_fills).toHaveLength(0);
    expect(quarantine.map((q) => [q.kind, q.reason])).toEqual([
      ['bad_data', 'OrderFilled: exactly one asset id must be 0 (collateral)'],
      ['bad_data', `OrderFilled: side 0x${'0'.repeat(63)}2 is neither BUY (0) nor SELL (1)`],
    ]);
    expect(quarantine[0]!.record_id).toBe(`137:${bytes32(0x700)}:0`);
  });

  it('writes one transfer row per TransferBatch item', async () => {
    const { rows } = await mapLogs([
      logOf(
        first('conditionalTokens'),
        'TransferBatch',
        { operator: user(1), from: user(2), to: user(3), ids: [1n, 2n, 3n], values: [10n, 20n, 30n] },
        0,
      ),
    ]);
    expect(rows.alpha_token_transfers.map((r) => [r.batch_index, r.token_id, r.amount])).toEqual([
      [0, '1', 10],
      [1, '2', 20],
      [2, '3', 30],
    ]);
  });

  it('maps a pUSD wrap with its caller and asset', async () => {
    const { rows } = await mapLogs([
      logOf(pUsd, 'Wrapped', { caller: user(1), asset: lc(ALPHA_ROLES.usdcE), to: user(2), amount: 42n }, 0),
    ]);
    expect(rows.alpha_collateral[0]).toMatchObject({
      kind: 'wrap',
      symbol: 'pUSD',
      caller: user(1),
      asset: lc(ALPHA_ROLES.usdcE),
      to_address: user(2),
      from_address: '',
      amount: 42,
    });
  });
});
